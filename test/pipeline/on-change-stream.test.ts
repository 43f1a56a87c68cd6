/**
 * The on-change trigger fed with real DynamoDB stream records, read from AWS's DynamoDB Local,
 * for every kind of write the store makes: only spec, generation and deletion changes start an
 * execution; status, lease and release writes never do.
 */
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { applyOutcome } from '../../lambdas/core/status.js';
import { DEFAULT_CONFIG, setDeps } from '../../lambdas/handlers/deps.js';
import { changeOf, onChange } from '../../lambdas/handlers/triggers/on-change.js';
import { DynamoDesiredStateStore } from '../../lambdas/store/dynamo-store.js';
import { createTable } from '../../local/store/table.js';
import { type DynamoServer, dynamoClient, readStream, startDynamoDbLocal } from '../store/servers.js';
import { spec } from './support.js';

/**
 * An empty map (a pool's `labels: {}`) reads back through the Streams client as `{}`, where Lambda's
 * event (and the item) has `{ M: {} }`; read it as Lambda would deliver it (as stream-shape.test.ts does).
 */
function emptyMapsAsM(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(emptyMapsAsM);
  if (typeof v !== 'object' || v === null || v instanceof Date) return v;
  const entries = Object.entries(v);
  if (entries.length === 0) return { M: {} };
  return Object.fromEntries(entries.map(([k, x]) => [k, k === 'M' && isEmpty(x) ? x : emptyMapsAsM(x)]));
}
const isEmpty = (x: unknown) => typeof x === 'object' && x !== null && Object.keys(x).length === 0;

let server: DynamoServer;
beforeAll(async () => {
  server = await startDynamoDbLocal();
}, 60_000);
afterAll(async () => server?.stop());

it('starts executions for spec and deletion changes only, from real stream records', async () => {
  const client = dynamoClient(server);
  const { streamArn } = await createTable(client, 'stream-on-change');
  const store = new DynamoDesiredStateStore({ client, tableName: 'stream-on-change' });
  const id = 'team/streamed';
  const owner = 'exec-1';

  await store.applySpec(id, spec('streamed')); // INSERT, generation 1
  await store.applySpec(id, spec('streamed')); // no-op: no record
  await store.applySpec(id, spec('streamed', { nodeCount: 5 })); // MODIFY, generation 2
  await store.acquireLease(id, owner, 60_000); // lease only
  await store.writeStatus(id, owner, {
    status: applyOutcome(undefined, { kind: 'Converged' }, { generation: 2, now: new Date() }),
  });
  await store.releaseLease(id, owner);
  await store.requestDeletion(id); // deletion requested
  await store.acquireLease(id, owner, 60_000);
  await store.release(id, owner, spec('streamed')); // REMOVE, then the claim's REMOVE

  const records = (await readStream(server, streamArn!)).map(emptyMapsAsM) as DynamoDBRecord[];
  expect(records.map((r) => r.eventName)).toEqual([
    'INSERT', // the target claim, before the record
    'INSERT',
    'MODIFY',
    'MODIFY',
    'MODIFY',
    'MODIFY',
    'MODIFY',
    'MODIFY',
    'REMOVE',
    'REMOVE',
  ]);
  // Claim items carry no generation: on-change ignores them.
  expect(records.map((r) => changeOf(r)?.trigger ?? '-')).toEqual([
    '-',
    'change',
    'change',
    '-',
    '-',
    '-',
    'delete',
    '-',
    '-',
    '-',
  ]);

  const started: string[] = [];
  const refuse = () => {
    throw new Error('not used by on-change');
  };
  setDeps({
    store,
    provider: { observe: refuse, apply: refuse },
    policy: { evaluate: refuse },
    callbacks: { succeed: refuse, fail: refuse },
    shardInvoker: { invoke: refuse },
    shardLeases: { take: refuse, release: refuse },
    rollouts: {
      get: refuse,
      put: refuse,
      update: refuse,
      list: refuse,
      lock: refuse,
      unlock: refuse,
      holder: refuse,
    },
    notifier: { publish: refuse },
    alarms: { inAlarm: refuse },
    executions: {
      async start(name) {
        const fresh = !started.includes(name);
        if (fresh) started.push(name);
        return { started: fresh };
      },
      async status() {
        return refuse();
      },
    },
    now: () => new Date(),
    config: { ...DEFAULT_CONFIG, defaults: {}, ownRoleArns: [] },
  });
  // Lambda delivers a batch; a retried batch delivers the same records again: absorbed by name.
  const first = await onChange({ Records: records });
  const again = await onChange({ Records: records });
  expect(first).toEqual({ started: 3, absorbed: 0, ignored: 7 });
  expect(again).toEqual({ started: 0, absorbed: 3, ignored: 7 });
  expect(started.map((n) => n.replace(/^.*-(g\d+-\w+)$/, '$1'))).toEqual([
    'g1-change',
    'g2-change',
    'g2-delete',
  ]);
  setDeps(undefined);
  client.destroy();
});
