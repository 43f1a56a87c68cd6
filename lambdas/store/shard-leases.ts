/**
 * Sweep shard leases and cursors on the coordination table: item `shard#<account>#<region>` holds
 * `holder` and `until` (epoch ms) while a run checks the shard, `cursor` (the last record id a run
 * checked) between runs, and `expiresAt` (epoch seconds, the table's TTL) so the item of a shard
 * whose clusters are all gone disappears by itself. Taking is one conditional write (absent or
 * expired), so two runs of one shard cannot overlap; only the holder releases.
 */
import { type DynamoDBClient, ReturnValue } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type ShardKey, shardItemId } from '../core/shard.js';
import { isConditionFailure } from './items.js';

/** How long the item of an idle shard is kept (its cursor with it). */
const IDLE_TTL_SECONDS = 7 * 24 * 3600;

export type LeaseTaken = { readonly taken: true; readonly cursor?: string } | { readonly taken: false };

export interface ShardLeases {
  /** Takes the shard's lease until `untilMs` when it is free or expired at `now`; the stored cursor with it. */
  take(shard: ShardKey, holder: string, untilMs: number, now: Date): Promise<LeaseTaken>;
  /**
   * Stores the cursor (when given) and frees the lease, only while `holder` holds it. False when it
   * no longer did (its lease expired and another run took it): nothing was written.
   */
  release(shard: ShardKey, holder: string, cursor: string | undefined, now: Date): Promise<boolean>;
}

const ttl = (now: Date) => Math.floor(now.getTime() / 1000) + IDLE_TTL_SECONDS;

export class DynamoShardLeases implements ShardLeases {
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient,
    private readonly tableName: string,
  ) {
    this.doc = DynamoDBDocumentClient.from(client);
  }

  async take(shard: ShardKey, holder: string, untilMs: number, now: Date): Promise<LeaseTaken> {
    try {
      const out = await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id: shardItemId(shard) },
          UpdateExpression: 'SET #holder = :holder, #until = :until, #ttl = :ttl',
          ConditionExpression: 'attribute_not_exists(#holder) OR #until < :now',
          ExpressionAttributeNames: { '#holder': 'holder', '#until': 'until', '#ttl': 'expiresAt' },
          ExpressionAttributeValues: {
            ':holder': holder,
            ':until': untilMs,
            ':ttl': ttl(now),
            ':now': now.getTime(),
          },
          ReturnValues: ReturnValue.ALL_NEW,
        }),
      );
      const cursor = out.Attributes?.['cursor'];
      return typeof cursor === 'string' ? { taken: true, cursor } : { taken: true };
    } catch (err) {
      if (isConditionFailure(err)) return { taken: false };
      throw err;
    }
  }

  async release(shard: ShardKey, holder: string, cursor: string | undefined, now: Date): Promise<boolean> {
    try {
      await this.doc.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { id: shardItemId(shard) },
          UpdateExpression: `SET #ttl = :ttl${cursor !== undefined ? ', #cursor = :cursor' : ''} REMOVE #holder, #until`,
          ConditionExpression: '#holder = :holder',
          ExpressionAttributeNames: {
            '#holder': 'holder',
            '#until': 'until',
            '#ttl': 'expiresAt',
            ...(cursor !== undefined ? { '#cursor': 'cursor' } : {}),
          },
          ExpressionAttributeValues: {
            ':holder': holder,
            ':ttl': ttl(now),
            ...(cursor !== undefined ? { ':cursor': cursor } : {}),
          },
        }),
      );
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }
}
