/** The desired-state store on DynamoDB: the client of capabilities `table:read` and `table:reconcile`. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ENV } from '../../config.js';
import { DynamoDesiredStateStore } from '../../store/dynamo-store.js';
import { type Env, required, sdkOptions, type Wiring } from '../compose.js';

/** The store over a given client, on the table the environment names. */
export function storeOn(client: DynamoDBClient, env: Env): DynamoDesiredStateStore {
  return new DynamoDesiredStateStore({ client, tableName: required(env, ENV.table) });
}

export function dynamoStore(w: Wiring): DynamoDesiredStateStore {
  return storeOn(w.own(new DynamoDBClient(sdkOptions(w, 'dynamodb'))), w.env);
}
