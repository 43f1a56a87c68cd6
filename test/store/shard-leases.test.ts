/**
 * Sweep shard leases and cursors on the coordination table, and reading records in batches, on
 * dynalite (local mode's store).
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDesiredStateStore } from '../../lambdas/store/dynamo-store.js';
import { DynamoShardLeases } from '../../lambdas/store/shard-leases.js';
import { createTable } from '../../local/store/table.js';
import { type DynamoServer, dynamoClient, startDynalite } from './servers.js';
import { at, spec, T0, uniqueTable } from './support.js';

let server: DynamoServer;
beforeAll(async () => {
  server = await startDynalite();
});
afterAll(async () => server.stop());

async function leases(): Promise<DynamoShardLeases> {
  const client = dynamoClient(server);
  const table = uniqueTable();
  await createTable(client, table, { stream: false });
  return new DynamoShardLeases(client, table);
}

const shard = { accountId: '111111111111', region: 'us-east-1' };

describe('shard leases', () => {
  it('a held shard cannot be taken again until its holder releases it', async () => {
    const l = await leases();
    expect(await l.take(shard, 'run-1', at(60_000).getTime(), T0)).toEqual({ taken: true });
    // Overlapping runs are impossible: the second take is refused while the first holds it.
    expect(await l.take(shard, 'run-2', at(60_000).getTime(), at(1_000))).toEqual({ taken: false });
    // Another shard is independent.
    expect(await l.take({ ...shard, region: 'eu-west-1' }, 'run-2', at(60_000).getTime(), at(1_000))).toEqual(
      {
        taken: true,
      },
    );
    expect(await l.release(shard, 'run-1', 'ns/c', at(2_000))).toBe(true);
    expect(await l.take(shard, 'run-2', at(60_000).getTime(), at(3_000))).toEqual({
      taken: true,
      cursor: 'ns/c',
    });
  });

  it('an expired lease (a crashed run) is taken over, and only the holder releases and writes the cursor', async () => {
    const l = await leases();
    await l.take(shard, 'crashed', at(10_000).getTime(), T0);
    expect(await l.take(shard, 'next', at(70_000).getTime(), at(10_000))).toEqual({ taken: false });
    expect(await l.take(shard, 'next', at(70_000).getTime(), at(10_001))).toEqual({ taken: true });
    // The crashed run wakes up: its release writes nothing.
    expect(await l.release(shard, 'crashed', 'ns/z', at(11_000))).toBe(false);
    expect(await l.release(shard, 'next', undefined, at(12_000))).toBe(true);
    // A release without a cursor keeps the one stored (none yet here), and the lease is free.
    expect(await l.take(shard, 'third', at(80_000).getTime(), at(13_000))).toEqual({ taken: true });
    expect(await l.release(shard, 'third', 'ns/b', at(14_000))).toBe(true);
    expect(await l.take(shard, 'fourth', at(90_000).getTime(), at(15_000))).toEqual({
      taken: true,
      cursor: 'ns/b',
    });
    expect(await l.release(shard, 'fourth', undefined, at(16_000))).toBe(true);
    expect(await l.take(shard, 'fifth', at(90_000).getTime(), at(17_000))).toEqual({
      taken: true,
      cursor: 'ns/b',
    });
  });
});

describe('getMany', () => {
  it('returns the records, the malformed items apart, and leaves out ids that do not exist', async () => {
    const client = dynamoClient(server);
    const table = uniqueTable();
    await createTable(client, table, { stream: false });
    const store = new DynamoDesiredStateStore({ client, tableName: table });
    // More than one BatchGetItem's 100 keys.
    const ids = Array.from({ length: 130 }, (_, i) => `ns/c-${String(i).padStart(3, '0')}`);
    for (const id of ids) await store.applySpec(id, spec({ clusterName: id.slice(3) }), { now: T0 });
    await client.send(
      new PutItemCommand({ TableName: table, Item: { id: { S: 'ns/broken' }, generation: { S: 'one' } } }),
    );
    const got = await store.getMany([...ids, 'ns/broken', 'ns/missing', ids[0]!]);
    expect(got.records.map((r) => r.id).sort()).toEqual(ids);
    expect(got.invalid.map((i) => i.id)).toEqual(['ns/broken']);
    expect(got.invalid[0]?.usable).toBe(true);
    expect(await store.getMany([])).toEqual({ records: [], invalid: [] });
  });
});
