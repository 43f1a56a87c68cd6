/**
 * The local change feed against the real thing: the same store writes go to DynamoDB Local with a
 * NEW_AND_OLD_IMAGES stream, whose records are read back with the Streams API, and to dynalite, each
 * through a client tapped by the feed. Records must agree on everything but ids, sequence numbers and
 * timestamps.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { _Record as StreamsRecord } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDesiredStateStore } from '../../lambdas/store/dynamo-store.js';
import { ChangeFeed } from '../../local/store/change-feed.js';
import { createTable } from '../../local/store/table.js';
import { feedWrites } from '../../local/store/write-tap.js';
import { type DynamoServer, dynamoClient, readStream, startDynalite, startDynamoDbLocal } from './servers.js';
import { at, convergedStatus, historyEntries, spec, T0, uniqueTable } from './support.js';

const ID = 'team-a/stream';
const TTL = 60_000;

/** A create, a no-op re-apply, a spec change, lease and status writes (one a no-op), then a delete. */
async function scenario(store: DynamoDesiredStateStore): Promise<void> {
  await store.applySpec(ID, spec(), { now: T0 });
  await store.applySpec(ID, spec(), { now: at(1) });
  await store.applySpec(ID, spec({ nodeCount: 5, tags: { team: 'a', tier: 'gold' } }), { now: at(2) });
  await store.acquireLease(ID, 'exec-1', TTL, at(3));
  await store.renewLease(ID, 'exec-1', TTL, at(3)); // same value: DynamoDB emits no record
  await store.writeStatus(ID, 'exec-1', {
    status: convergedStatus(2, at(4)),
    history: historyEntries(0, 2),
    intent: {
      operation: 'CreateNodegroup',
      clientRequestToken: 'tok',
      generation: 2,
      at: at(4).toISOString(),
    },
    trackedUpdates: [{ id: 'upd-1', nodegroupName: 'ng-1' }],
  });
  await store.writeStatus(ID, 'exec-1', { status: convergedStatus(2, at(5)), intent: null });
  await store.requestDeletion(ID, at(6));
  await store.release(ID, 'exec-1', spec());
}

// The target claim is an item of its own: claimed before the record is first written, given up after it is removed.
const EXPECTED_EVENTS = [
  'INSERT',
  'INSERT',
  'MODIFY',
  'MODIFY',
  'MODIFY',
  'MODIFY',
  'MODIFY',
  'REMOVE',
  'REMOVE',
];

/**
 * An empty map (a pool's `labels: {}`) reads back through the Streams client as `{}`, not `{ M: {} }`
 * as the item holds it and the feed emits it: both spellings compare as the map.
 */
function emptyMapsAsM(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(emptyMapsAsM);
  if (typeof v !== 'object' || v === null) return v;
  const entries = Object.entries(v);
  if (entries.length === 0) return { M: {} };
  return Object.fromEntries(entries.map(([k, x]) => [k, k === 'M' && isEmpty(x) ? x : emptyMapsAsM(x)]));
}
const isEmpty = (x: unknown) => typeof x === 'object' && x !== null && Object.keys(x).length === 0;

/** What must match between a real record and a feed record. */
function comparable(r: DynamoDBRecord | StreamsRecord) {
  return {
    eventName: r.eventName,
    eventSource: r.eventSource,
    eventVersion: r.eventVersion,
    Keys: r.dynamodb?.Keys,
    NewImage: emptyMapsAsM(r.dynamodb?.NewImage),
    OldImage: emptyMapsAsM(r.dynamodb?.OldImage),
    StreamViewType: r.dynamodb?.StreamViewType,
    SizeBytes: r.dynamodb?.SizeBytes,
    fields: Object.keys(r.dynamodb ?? {}).sort(),
  };
}

async function runWithFeed(client: DynamoDBClient) {
  const tableName = uniqueTable();
  const { streamArn } = await createTable(client, tableName);
  const feed = new ChangeFeed({ tableName, region: 'us-east-1', ...(streamArn ? { streamArn } : {}) });
  const emitted: DynamoDBRecord[] = [];
  const failures: unknown[] = [];
  feed.subscribe(
    (r) => {
      emitted.push(r);
    },
    (err) => failures.push(err),
  );
  await scenario(new DynamoDesiredStateStore({ client: feedWrites(client, feed), tableName }));
  await feed.drain();
  expect(failures).toEqual([]);
  return { emitted, streamArn };
}

describe('local change feed vs DynamoDB Local streams', () => {
  let local: DynamoServer;
  let lite: DynamoServer;
  const clients: DynamoDBClient[] = [];

  beforeAll(async () => {
    [local, lite] = await Promise.all([startDynamoDbLocal(), startDynalite()]);
    clients.push(dynamoClient(local), dynamoClient(lite));
  });

  afterAll(async () => {
    for (const c of clients) c.destroy();
    await Promise.all([local?.stop(), lite?.stop()]);
  });

  it('emits the records DynamoDB Streams does, on DynamoDB Local and on dynalite', async () => {
    const onLocal = await runWithFeed(clients[0]!);
    const onLite = await runWithFeed(clients[1]!);
    expect(onLocal.streamArn).toBeDefined();
    expect(onLite.streamArn).toBeUndefined(); // dynalite drops StreamSpecification: why the feed exists
    const real = await readStream(local, onLocal.streamArn!);

    expect(real.map((r) => r.eventName)).toEqual(EXPECTED_EVENTS);
    expect(onLocal.emitted.map(comparable)).toEqual(real.map(comparable));
    expect(onLite.emitted.map(comparable)).toEqual(real.map(comparable));

    for (const [i, r] of onLite.emitted.entries()) {
      const reference = real[i]!;
      // The Lambda event carries the stream ARN on top of what GetRecords returns.
      expect(Object.keys(r).sort()).toEqual([...Object.keys(reference), 'eventSourceARN'].sort());
      expect(r.dynamodb?.SequenceNumber).toMatch(/^\d{21}$/);
      expect(typeof r.dynamodb?.ApproximateCreationDateTime).toBe('number');
    }
    const sequence = onLite.emitted.map((r) => BigInt(r.dynamodb?.SequenceNumber ?? '0'));
    expect(sequence).toEqual([...sequence].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  });
});
