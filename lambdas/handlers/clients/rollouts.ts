/** Rollout records and cluster locks on DynamoDB: the client of capability `rollout:write`. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ENV } from '../../config.js';
import { DynamoRolloutStore, type RolloutStore } from '../../store/rollouts.js';
import { required, sdkOptions, type Wiring } from '../compose.js';

export function dynamoRollouts(w: Wiring): RolloutStore {
  const client = w.own(new DynamoDBClient(sdkOptions(w, 'dynamodb')));
  return new DynamoRolloutStore(client, required(w.env, ENV.rolloutTable));
}
