/** Sweep shard leases on the coordination table: the client of capability `shard:lease`. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ENV } from '../../config.js';
import { DynamoShardLeases, type ShardLeases } from '../../store/shard-leases.js';
import { required, sdkOptions, type Wiring } from '../compose.js';

export function dynamoShardLeases(w: Wiring): ShardLeases {
  const client = w.own(new DynamoDBClient(sdkOptions(w, 'dynamodb')));
  return new DynamoShardLeases(client, required(w.env, ENV.coordinationTable));
}
