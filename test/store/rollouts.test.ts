/**
 * Rollout records and cluster locks on dynalite (local mode's store): all-or-none locks, status
 * updates that never lose a concurrent write, and items written straight to the table refused with
 * the field named.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initialStatus, withCluster } from '../../lambdas/core/rollout/status.js';
import { DynamoDesiredStateStore } from '../../lambdas/store/dynamo-store.js';
import { RecordInvalidError } from '../../lambdas/store/errors.js';
import { DynamoRolloutStore } from '../../lambdas/store/rollouts.js';
import { createTable } from '../../local/store/table.js';
import { type DynamoServer, dynamoClient, startDynalite } from './servers.js';
import { at, spec, T0, uniqueTable } from './support.js';

let server: DynamoServer;
beforeAll(async () => {
  server = await startDynalite();
});
afterAll(async () => server.stop());

async function store(): Promise<{ s: DynamoRolloutStore; table: string }> {
  const client = dynamoClient(server);
  const table = uniqueTable();
  await createTable(client, table, { stream: false });
  return { s: new DynamoRolloutStore(client, table), table };
}

const SPEC = { clusters: ['team/a'], change: { tags: { a: 'b' } }, stages: [{ name: 'all' }] };

describe('rollout records', () => {
  it('a changed spec is a new generation; the same spec writes nothing', async () => {
    const { s } = await store();
    const first = await s.put('platform/r', SPEC, T0);
    expect(first).toMatchObject({
      created: true,
      changed: true,
      record: { generation: 1, version: 1, attempt: 0 },
    });
    expect(await s.put('platform/r', SPEC, at(1000))).toMatchObject({
      changed: false,
      record: { generation: 1 },
    });
    const next = await s.put('platform/r', { ...SPEC, change: { tags: { a: 'c' } } }, at(2000));
    expect(next.record).toMatchObject({ generation: 2, version: 2, createdAt: T0.toISOString() });
  });

  it('concurrent status updates all land: each retries on the version it lost to', async () => {
    const { s } = await store();
    const ids = Array.from({ length: 6 }, (_, i) => `team/c${i}`);
    await s.put('platform/r', SPEC, T0);
    const plan = [
      { name: 'all', clusters: ids, maxConcurrency: 6, soakSeconds: 0, approval: 'none' as const },
    ];
    await s.update('platform/r', () => ({ status: initialStatus(1, plan, T0) }), T0);
    await Promise.all(
      ids.map((id) =>
        s.update(
          'platform/r',
          (r) =>
            r.status ? { status: withCluster(r.status, 'all', id, { state: 'succeeded' }) } : undefined,
          T0,
        ),
      ),
    );
    const r = await s.get('platform/r');
    expect(r?.status?.stages[0]?.clusters.map((c) => c.state)).toEqual(ids.map(() => 'succeeded'));
    expect(r?.version).toBe(2 + ids.length);
  });

  it('an item written straight to the table is refused with the field named', async () => {
    const { s, table } = await store();
    await dynamoClient(server).send(
      new PutItemCommand({
        TableName: table,
        Item: {
          id: { S: 'platform/bad' },
          spec: { M: {} },
          generation: { S: 'one' },
          version: { N: '1' },
          attempt: { N: '0' },
          createdAt: { S: T0.toISOString() },
          updatedAt: { S: T0.toISOString() },
        },
      }),
    );
    const err = await s.get('platform/bad').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RecordInvalidError);
    expect((err as RecordInvalidError).message).toMatch(/platform\/bad.*generation/);
    const listed = await s.list();
    expect(listed.invalid).toEqual([{ id: 'platform/bad', reason: expect.stringMatching(/^generation: /) }]);
  });
});

describe('cluster locks', () => {
  it('locks all clusters or none, naming the first held one and its holder', async () => {
    const { s } = await store();
    expect(await s.lock('platform/first', ['team/a', 'team/b'], T0)).toEqual({});
    expect(await s.lock('platform/second', ['team/c', 'team/b', 'team/d'], T0)).toEqual({
      held: { cluster: 'team/b', by: 'platform/first' },
    });
    // The refusal gave back what it had taken.
    expect(await s.holder('team/c')).toBeUndefined();
    expect(await s.holder('team/d')).toBeUndefined();
    // The holder locks again (a resumed attempt); unlock frees only its own.
    expect(await s.lock('platform/first', ['team/a', 'team/b'], T0)).toEqual({});
    await s.unlock('platform/second', ['team/a']);
    expect(await s.holder('team/a')).toBe('platform/first');
    await s.unlock('platform/first', ['team/a', 'team/b']);
    expect(await s.lock('platform/second', ['team/b'], T0)).toEqual({});
    // Locks are not rollouts.
    expect((await s.list()).records).toEqual([]);
  });
});

describe('the rollout mark on a cluster record', () => {
  it('records which rollout wrote a generation, and goes when anyone else writes the spec', async () => {
    const client = dynamoClient(server);
    const tableName = uniqueTable();
    await createTable(client, tableName, { stream: false });
    const clusters = new DynamoDesiredStateStore({ client, tableName });
    await clusters.applySpec('team/a', spec(), { now: T0 });
    const mark = { id: 'platform/r', generation: 3, stage: 'canary' };
    const byRollout = await clusters.applySpec('team/a', spec({ tags: { wave: '1' } }), {
      now: T0,
      expectedVersion: 1,
      rollout: mark,
    });
    expect(byRollout.record).toMatchObject({ generation: 2, rollout: mark });
    const byHand = await clusters.applySpec('team/a', spec({ tags: { wave: '2' } }), { now: T0 });
    expect(byHand.record.generation).toBe(3);
    expect(byHand.record.rollout).toBeUndefined();
  });
});
