/**
 * The sharded sweep on dynalite: the dispatcher groups records by (account, region) and hands runs
 * over; a shard run takes its lease, checks from its cursor until its window closes, and says when
 * its cadence degraded. Executions are recorded, not run; the records have no status yet, so each
 * decision ("status is stale") is made from the record alone, without EKS.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { worstCaseMs } from '../../../lambdas/aws/signed-http.js';
import { shardItemId } from '../../../lambdas/core/shard.js';
import type { ShardRunPayload } from '../../../lambdas/handlers/contracts.js';
import { defaultsFromEnv } from '../../../lambdas/handlers/deployment-defaults.js';
import { DEFAULT_CONFIG, type Deps, deps, setDeps } from '../../../lambdas/handlers/deps.js';
import { addMetricSink, type MetricPoint } from '../../../lambdas/handlers/telemetry.js';
import { INVOKE_RESERVE_MS, sweep } from '../../../lambdas/handlers/triggers/sweep.js';
import { type ShardRunOptions, sweepShard } from '../../../lambdas/handlers/triggers/sweep-shard.js';
import { DynamoDesiredStateStore } from '../../../lambdas/store/dynamo-store.js';
import { EksBudgetExhaustedError } from '../../../lambdas/store/errors.js';
import { DynamoShardLeases } from '../../../lambdas/store/shard-leases.js';
import { createTable } from '../../../local/store/table.js';
import { spec } from '../../core/support/fixtures.js';
import { type DynamoServer, dynamoClient, startDynalite } from '../../store/servers.js';
import { convergedStatus, T0, uniqueTable } from '../../store/support.js';

const OWN = '111111111111';
const OTHER = '222222222222';
const RUN: ShardRunOptions = {
  periodSeconds: 300,
  concurrency: 1,
  windowMs: 270_000,
  leaseMs: 360_000,
  fullObservePeriodSeconds: 300,
};

let server: DynamoServer;
let store: DynamoDesiredStateStore;
let leases: DynamoShardLeases;
let tableName: string;
let clock: number;
let started: string[];
let payloads: ShardRunPayload[];
const metrics: MetricPoint[] = [];
let stopSink: () => void;

beforeAll(async () => {
  server = await startDynalite();
  stopSink = addMetricSink((p) => metrics.push(p));
});
afterAll(async () => {
  stopSink();
  await server.stop();
});

beforeEach(async () => {
  const client = dynamoClient(server);
  tableName = uniqueTable();
  const coordination = uniqueTable();
  await createTable(client, tableName, { stream: false });
  await createTable(client, coordination, { stream: false });
  store = new DynamoDesiredStateStore({ client, tableName });
  leases = new DynamoShardLeases(client, coordination);
  clock = T0.getTime();
  started = [];
  payloads = [];
  metrics.length = 0;
  const refuse = () => {
    throw new Error('not called by these sweeps');
  };
  const deps: Deps = {
    now: () => new Date(clock),
    config: { ...DEFAULT_CONFIG, defaults: defaultsFromEnv({}), ownRoleArns: [], ownAccountId: OWN },
    store,
    provider: { observe: refuse, apply: refuse },
    policy: { evaluate: refuse },
    callbacks: { succeed: refuse, fail: refuse },
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
    // Each start takes a second of the window: how a shard runs out of time here.
    executions: {
      async start(name) {
        started.push(name);
        clock += 1000;
        return { started: true };
      },
      status: async () => ({ state: 'unknown' }),
    },
    shardInvoker: {
      async invoke(p) {
        payloads.push(p);
      },
    },
    shardLeases: leases,
  };
  setDeps(deps);
});
afterEach(() => setDeps(undefined));

async function put(id: string, over: { region?: string; accountId?: string } = {}): Promise<void> {
  await store.applySpec(id, spec({ clusterName: id.split('/')[1]!, ...over }), { now: T0 });
}

const shardOf = (accountId: string, region: string, ids: string[]) => ({ accountId, region, ids });
const startedFor = (id: string) => started.filter((n) => n.startsWith(id.replace('/', '_')));
const points = (name: string, dims: Record<string, string> = {}) =>
  metrics.filter((m) => m.name === name && JSON.stringify(m.dimensions) === JSON.stringify(dims));

describe('the dispatcher', () => {
  it('puts clusters of two accounts and two regions in separate shards and hands them over', async () => {
    await put('t/a1');
    await put('t/a2');
    await put('t/b1', { region: 'eu-west-1' });
    await put('t/c1', { accountId: OTHER });
    const report = await sweep({ segment: 0, totalSegments: 1, periodSeconds: 300, shardsPerRun: 2 });
    expect(report).toMatchObject({ scanned: 4, invalid: 0, shards: 3, runs: 2, errors: 0 });
    expect(payloads.flatMap((p) => p.shards)).toEqual([
      shardOf(OWN, 'eu-west-1', ['t/b1']),
      shardOf(OWN, 'us-east-1', ['t/a1', 't/a2']),
      shardOf(OTHER, 'us-east-1', ['t/c1']),
    ]);
    expect(new Set(payloads.map((p) => p.periodBucket)).size).toBe(1);
    // It decides nothing itself.
    expect(started).toEqual([]);
  });

  it('reports a malformed item and hands a usable one to a shard run, which starts the one run that marks it', async () => {
    await put('t/a1');
    await dynamoClient(server).send(
      new PutItemCommand({ TableName: tableName, Item: { id: { S: 'bad/item' }, generation: { S: 'x' } } }),
    );
    const report = await sweep({ segment: 0, totalSegments: 1, periodSeconds: 300 });
    expect(report).toMatchObject({ scanned: 2, invalid: 1, shards: 2 });
    const run = await sweepShard(payloads[0]!, RUN);
    expect(run.shards.find((s) => s.invalid === 1)).toBeDefined();
    expect(startedFor('bad/item')).toHaveLength(1);
    expect(startedFor('t/a1')).toHaveLength(1);
  });
  it('publishes the gauges, then hands over runs only while the invocation has time for one', async () => {
    for (const r of ['us-east-1', 'eu-west-1', 'eu-central-1']) await put(`t/${r}`, { region: r });
    let left = 20_000;
    const report = await sweep({
      segment: 0,
      totalSegments: 1,
      periodSeconds: 300,
      shardsPerRun: 1,
      invokeConcurrency: 1,
      // Each hand-over spends 3 s of the invocation: two fit above the reserve, the third does not.
      remainingMs: () => {
        const now = left;
        left -= 3_000;
        return now;
      },
    });
    expect(INVOKE_RESERVE_MS).toBeGreaterThan(worstCaseMs());
    expect(report).toMatchObject({ scanned: 3, shards: 3, runs: 2, errors: 1 });
    expect(payloads).toHaveLength(2);
    expect(points('SweepClusters')).toHaveLength(1);
  });
});

describe('a shard run', () => {
  it('skips a shard another run holds: two runs of one shard never overlap', async () => {
    await put('t/a1');
    await put('t/b1', { region: 'eu-west-1' });
    const held = { accountId: OWN, region: 'us-east-1' };
    expect((await leases.take(held, 'other-run', clock + 60_000, new Date(clock))).taken).toBe(true);
    const run = await sweepShard(
      {
        periodBucket: '1',
        shards: [shardOf(OWN, 'us-east-1', ['t/a1']), shardOf(OWN, 'eu-west-1', ['t/b1'])],
      },
      RUN,
    );
    expect(run.shards.map((s) => [s.shard, s.skipped, s.checked])).toEqual([
      [shardItemId(held), true, 0],
      ['shard#111111111111#eu-west-1', false, 1],
    ]);
    expect(startedFor('t/a1')).toEqual([]);
    // Its own lease is free again after the run; the held one is still held.
    expect(
      (await leases.take({ accountId: OWN, region: 'eu-west-1' }, 'x', clock + 1, new Date(clock))).taken,
    ).toBe(true);
    expect((await leases.take(held, 'x', clock + 1, new Date(clock))).taken).toBe(false);
  });

  it('a shard larger than its window continues from its cursor next period and says its cadence degraded', async () => {
    const ids = ['t/c1', 't/c2', 't/c3', 't/c4', 't/c5'];
    for (const id of ids) await put(id);
    const payload = (bucket: string) => ({ periodBucket: bucket, shards: [shardOf(OWN, 'us-east-1', ids)] });
    // 2.5 s of window at a second per cluster: three clusters are checked.
    const first = await sweepShard(payload('1'), { ...RUN, windowMs: 2_500 });
    expect(first.shards[0]).toMatchObject({ clusters: 5, checked: 3, degraded: true, cadenceSeconds: 500 });
    expect(started.map((n) => n.split('-')[0])).toEqual(['t_c1', 't_c2', 't_c3']);
    const dims = { Account: OWN, Region: 'us-east-1' };
    expect(points('SweepShardsDegraded', dims).map((p) => p.value)).toEqual([1]);
    expect(points('SweepShardsDegraded').map((p) => p.value)).toEqual([1]);
    expect(points('SweepCadenceSeconds', dims).map((p) => p.value)).toEqual([500]);
    // Counts go out per run without dimensions: per-shard series only while a shard is degraded.
    expect(points('SweepShardClusters').map((p) => p.value)).toEqual([5]);
    expect(points('SweepShardChecked').map((p) => p.value)).toEqual([3]);
    expect(points('SweepShardClusters', dims)).toEqual([]);

    started = [];
    clock += 300_000;
    await sweepShard(payload('2'), { ...RUN, windowMs: 2_500 });
    // The next period starts after the last cluster checked, then wraps around.
    expect(started.map((n) => n.split('-')[0])).toEqual(['t_c4', 't_c5', 't_c1']);

    started = [];
    metrics.length = 0;
    clock += 300_000;
    const roomy = await sweepShard(payload('3'), RUN);
    expect(roomy.shards[0]).toMatchObject({ checked: 5, degraded: false, cadenceSeconds: 300 });
    expect(started.map((n) => n.split('-')[0])).toEqual(['t_c2', 't_c3', 't_c4', 't_c5', 't_c1']);
    expect(points('SweepShardsDegraded', dims)).toEqual([]);
    expect(points('SweepShardsDegraded').map((p) => p.value)).toEqual([0]);
    expect(points('SweepCadenceSeconds', dims)).toEqual([]);
  });

  it('a malformed record in one shard does not stop it or the others', async () => {
    await put('t/a1');
    await put('t/a3');
    await put('t/b1', { region: 'eu-west-1' });
    await dynamoClient(server).send(
      new PutItemCommand({
        TableName: tableName,
        Item: { id: { S: 't/a2' }, spec: { S: 'not a map' }, generation: { N: '1' } },
      }),
    );
    const run = await sweepShard(
      {
        periodBucket: '1',
        shards: [shardOf(OWN, 'us-east-1', ['t/a1', 't/a2', 't/a3']), shardOf(OWN, 'eu-west-1', ['t/b1'])],
      },
      RUN,
    );
    expect(run.shards.map((s) => [s.checked, s.invalid, s.errors])).toEqual([
      [2, 1, 0],
      [1, 0, 0],
    ]);
    expect(['t/a1', 't/a2', 't/a3', 't/b1'].map((id) => startedFor(id).length)).toEqual([1, 1, 1, 1]);
  });
});

describe('a shard run and the EKS budget', () => {
  /** A converged record: the sweep must observe it to decide (no quick answer from the record). */
  async function converged(id: string): Promise<void> {
    await put(id);
    await store.acquireLease(id, 'run', 60_000, T0);
    await store.writeStatus(id, 'run', { status: convergedStatus(1, T0) });
    await store.releaseLease(id, 'run');
  }

  it('yields when the budget refuses a slot: no run started for it, and it is checked first next period', async () => {
    for (const id of ['t/a1', 't/a2', 't/a3']) await converged(id);
    const observed: string[] = [];
    let refuse = true;
    setDeps({
      ...deps(),
      provider: {
        async observe(ref) {
          observed.push(ref.clusterName);
          if (ref.clusterName === 'a2' && refuse)
            throw new EksBudgetExhaustedError('every slot of the next 2 s is taken');
          throw new Error('EKS unreadable');
        },
        apply: async () => {
          throw new Error('not called');
        },
      },
    });
    const shard = shardOf(OWN, 'us-east-1', ['t/a1', 't/a2', 't/a3']);
    const first = await sweepShard({ periodBucket: 'p1', shards: [shard] }, RUN);
    // a1's observation failed (a run restores the truth); a2 met a full budget: the shard stopped there.
    expect(observed).toEqual(['a1', 'a2']);
    expect(first.shards[0]).toMatchObject({ checked: 1, degraded: true });
    expect(first.shards[0]?.reasons).toMatchObject({ 'yielded to reconciles (EKS budget queue full)': 1 });
    expect(startedFor('t/a1')).toHaveLength(1);
    expect(startedFor('t/a2')).toEqual([]);
    refuse = false;
    observed.length = 0;
    await sweepShard({ periodBucket: 'p2', shards: [shard] }, RUN);
    expect(observed[0]).toBe('a2');
  });
});

describe('segments and failures', () => {
  it('each scan segment has its own lease and cursor for its part of an (account, region)', async () => {
    for (const id of ['t/a1', 't/a2', 't/a3', 't/a4']) await put(id);
    for (const segment of [0, 1]) await sweep({ segment, totalSegments: 2, periodSeconds: 300 });
    const parts = payloads.flatMap((p) => p.shards);
    // The same (account, region), one part per segment, with every cluster in exactly one part.
    expect(new Set(parts.map((p) => `${p.accountId}/${p.region}`))).toEqual(new Set([`${OWN}/us-east-1`]));
    expect(parts.map((p) => p.segment).sort()).toEqual(['0/2', '1/2']);
    expect(parts.flatMap((p) => p.ids).sort()).toEqual(['t/a1', 't/a2', 't/a3', 't/a4']);
    // One segment's run holding its lease does not stop the other's: neither is skipped.
    const runs = await Promise.all(payloads.map((p) => sweepShard(p, RUN)));
    expect(runs.flatMap((r) => r.shards).map((s) => s.skipped)).toEqual([false, false]);
    expect(['t/a1', 't/a2', 't/a3', 't/a4'].map((id) => startedFor(id).length)).toEqual([1, 1, 1, 1]);
  });

  it('a shard that cannot read its records is degraded, not complete', async () => {
    await put('t/a1');
    setDeps({
      ...deps(),
      store: {
        ...store,
        getMany: async () => {
          throw new Error('AccessDeniedException: BatchGetItem');
        },
      } as unknown as Deps['store'],
    });
    const run = await sweepShard({ periodBucket: 'p', shards: [shardOf(OWN, 'us-east-1', ['t/a1'])] }, RUN);
    expect(run.shards[0]).toMatchObject({ clusters: 1, checked: 0, errors: 1, degraded: true });
    expect(points('SweepShardsDegraded').map((p) => p.value)).toEqual([1]);
  });
});
