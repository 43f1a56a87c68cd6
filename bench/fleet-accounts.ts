/**
 * Fleet benchmark (issue 18): 10,000 converged clusters over 50 accounts x 4 regions in the
 * simulator, one full sweep while 200 reconcile executions (a node count change each) run through
 * the local state machine. Every EKS HTTP attempt is timestamped with its (account, region); the
 * bench prints, per (account, region), the largest number of requests in any sliding 1-second window
 * against the shared budget, whether every cluster was observed within one sweep period, and what
 * the limiter itself wrote to DynamoDB.
 *
 * Run: `npm run bench:fleet` (optional arguments: accounts, regions, clusters per account-region,
 * executions; default 50 4 50 200). BENCH_FLEET_RATE sets the budget (default 5, the deployed one).
 */
import './lib/env.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { ENV } from '../lambdas/config.js';
import type { CloudClusterSpec } from '../lambdas/core/spec/schema.js';
import { FUNCTIONS } from '../lambdas/functions/catalog.js';
import { SHARDS_PER_RUN } from '../lambdas/handlers/triggers/sweep.js';
import { CLAIM_WRITES } from '../lambdas/store/budget-claims.js';
import { specHash } from '../lambdas/store/spec-hash.js';
import type { ClusterRec } from '../local/eks-sim/model.js';
import {
  type ControlPlane,
  LOCAL_ACCOUNT,
  LOCAL_COORDINATION_TABLE,
  LOCAL_TARGET_ROLE,
} from '../local/runtime/control-plane.js';
import { runBundle } from './lib/bundle-run.js';
import { benchSpec, cloneCluster, writeItems } from './lib/fleet.js';
import { FAST, startBench } from './lib/pipeline.js';
import { type Metered, maxInWindow, now, TABLE } from './lib/probes.js';
import { fmt, run, section, table } from './lib/stats.js';

const [ACCOUNTS = 50, REGION_COUNT = 4, PER_SHARD = 50, EXECUTIONS = 200] = process.argv.slice(2).map(Number);
const RATE = Number(process.env.BENCH_FLEET_RATE ?? 5);
const PERIOD_S = 300;
const FULL_PERIOD_S = 3600;
const REGIONS = ['us-east-1', 'us-west-2', 'eu-west-1', 'ap-southeast-2'].slice(0, REGION_COUNT);
const accountId = (i: number) => `2${String(i + 1).padStart(11, '0')}`;

interface Target {
  readonly id: string;
  readonly name: string;
  readonly region: string;
  readonly account: string;
}

function fleet(): Target[] {
  const out: Target[] = [];
  for (let a = 0; a < ACCOUNTS; a++)
    for (const region of REGIONS)
      for (let k = 0; k < PER_SHARD; k++) {
        const name = `f${String(a).padStart(2, '0')}-${region.replaceAll('-', '')}-${String(k).padStart(3, '0')}`;
        out.push({ id: `fleet/${name}`, name, region, account: accountId(a) });
      }
  return out;
}

/** An account swapped in ARNs only (`:<account>:`): subnet ids hold runs of digits too. */
const swapAccount = (text: string, account: string, from = LOCAL_ACCOUNT) =>
  text.replaceAll(`:${from}:`, `:${account}:`);

/** Names the target's account in the template's spec: roles and network are its own (a cluster in another account names them). */
function targetSpec(t: Target): CloudClusterSpec {
  return JSON.parse(
    swapAccount(
      JSON.stringify(
        benchSpec(t.name, t.region, {
          accountId: t.account,
          clusterRoleArn: `arn:aws:iam::${LOCAL_ACCOUNT}:role/cloudorch-local-cluster`,
          nodeRoleArn: `arn:aws:iam::${LOCAL_ACCOUNT}:role/cloudorch-local-node`,
          network: { subnetIds: ['subnet-0a000000000000001', 'subnet-0b000000000000002'] },
        }),
      ),
      t.account,
    ),
  ) as CloudClusterSpec;
}

/** The spec with its first pool at `n` nodes (within its bounds). */
function withNodes(spec: CloudClusterSpec, n: number): CloudClusterSpec {
  const [first, ...rest] = spec.nodeGroups;
  if (!first) throw new Error('the bench spec has a pool');
  return {
    ...spec,
    nodeGroups: [{ ...first, nodeCount: n, maxSize: Math.max(first.maxSize ?? n, n) }, ...rest],
  };
}

interface Template {
  readonly item: Record<string, unknown>;
  readonly cluster: ClusterRec;
  readonly name: string;
  readonly region: string;
  readonly account: string;
}

/** One cluster in a target account converged through the real pipeline, then cloned. */
async function convergeTemplate(cp: ControlPlane, m: Metered): Promise<Template> {
  const t: Target = { id: 'fleet/tplzq', name: 'tplzq', region: REGIONS[0]!, account: accountId(0) };
  await m.store.applySpec(t.id, targetSpec(t));
  await cp.settle();
  const { Item: item } = await DynamoDBDocumentClient.from(m.ddb).send(
    new GetCommand({ TableName: TABLE, Key: { id: t.id } }),
  );
  const rec = await m.store.get(t.id);
  if (!rec?.status?.ready)
    throw new Error(`the template cluster did not converge: ${JSON.stringify(rec?.status?.conditions)}`);
  const cluster = cp.sim.state.clusters(t.region, t.account).get(t.name);
  if (!cluster || !item) throw new Error('the template cluster is missing');
  return { item, cluster, name: t.name, region: t.region, account: t.account };
}

function cloneAs(tpl: Template, t: Target): ClusterRec {
  return cloneCluster(tpl.cluster, t, { from: tpl.account, to: t.account });
}

function cloneItem(tpl: Template, t: Target): Record<string, unknown> {
  const text = swapAccount(
    JSON.stringify(tpl.item).replaceAll(tpl.name, t.name).replaceAll(tpl.region, t.region),
    t.account,
    tpl.account,
  ).replaceAll(`"accountId":"${tpl.account}"`, `"accountId":"${t.account}"`);
  const item = JSON.parse(text) as Record<string, unknown>;
  return { ...item, id: t.id, specHash: specHash(item.spec as CloudClusterSpec) };
}

async function seed(cp: ControlPlane, m: Metered, tpl: Template, targets: readonly Target[]): Promise<void> {
  for (const t of targets) cp.sim.state.clusters(t.region, t.account).set(t.name, cloneAs(tpl, t));
  await writeItems(
    m,
    targets.map((t) => cloneItem(tpl, t)),
  );
}

async function main(): Promise<void> {
  section('Fleet: one EKS budget per account and region, a sharded sweep');
  const targets = fleet();
  console.log(
    `config: ${ACCOUNTS} accounts x ${REGIONS.length} regions x ${PER_SHARD} clusters = ${fmt.int(targets.length)}; ` +
      `budget ${RATE} EKS requests per second per (account, region); ${EXECUTIONS} reconcile executions during the sweep`,
  );
  const { cp, m } = await startBench({ ...FAST, eksCallsPerSecond: RATE });
  try {
    for (let a = 0; a < ACCOUNTS; a++) await cp.simAdmin.createRole(accountId(a), LOCAL_TARGET_ROLE);
    const tpl = await convergeTemplate(cp, m);
    const t0 = now();
    await seed(cp, m, tpl, targets);
    console.log(`seeded in ${fmt.s(now() - t0)} (BatchWriteItem + simulator state)`);
    m.eks.clear();
    m.meter.reset();
    // One execution per shard first, then round-robin: a node count change on a converged cluster.
    const changed = targets
      .filter((_, i) => i % PER_SHARD === 0)
      .concat(targets.filter((_, i) => i % PER_SHARD === 1));
    const s0 = now();
    await Promise.all(
      changed.slice(0, EXECUTIONS).map((t) => m.store.applySpec(t.id, withNodes(targetSpec(t), 3))),
    );
    const writes0 = CLAIM_WRITES.total;
    const report = await cp.sweepNow({ periodSeconds: PERIOD_S, fullObservePeriodSeconds: FULL_PERIOD_S });
    const sweepWrites = CLAIM_WRITES.total - writes0;
    const sweepMs = now() - s0;
    await cp.settle();
    const allMs = now() - s0;
    printRun(targets, m, report, sweepMs, allMs, s0);
    const writes = CLAIM_WRITES.total - writes0;
    const reqs = m.eks.requests.length;
    console.log(
      `limiter: ${fmt.int(writes)} conditional writes to the coordination table for ${fmt.int(reqs)} EKS requests ` +
        `(${fmt.num(writes / reqs, 3)} per request; ${fmt.int(sweepWrites)} by the time the sweep returned); ` +
        `at $0.625 per million write units: $${fmt.num((writes * 0.625) / 1e6, 4)} for this period`,
    );
    await measureShardRun(cp, targets);
    await measureDispatcher(cp);
  } finally {
    await cp.stop();
  }
}

function printRun(
  targets: readonly Target[],
  m: Metered,
  report: unknown,
  sweepMs: number,
  allMs: number,
  s0: number,
): void {
  const reqs = m.eks.requests;
  const byShard = new Map<string, number[]>();
  for (const r of reqs) {
    const k = `${r.account}/${r.region}`;
    const list = byShard.get(k) ?? [];
    list.push(r.at);
    byShard.set(k, list);
  }
  let worst = 0;
  let worstShard = '';
  let over = 0;
  for (const [k, times] of byShard) {
    const max1 = maxInWindow(times, 1000);
    if (max1 > worst) {
      worst = max1;
      worstShard = k;
    }
    if (max1 > RATE) over++;
  }
  const described = new Map<string, number>();
  for (const r of reqs)
    if (r.op === 'DescribeCluster' && r.cluster && !described.has(`${r.account}/${r.region}/${r.cluster}`))
      described.set(`${r.account}/${r.region}/${r.cluster}`, r.at - s0);
  const unseen = targets.filter((t) => !described.has(`${t.account}/${t.region}/${t.name}`));
  const lastSeen = Math.max(...described.values());
  console.log(`sweep: ${JSON.stringify(report)}`);
  console.log(
    `sweep wall time ${fmt.s(sweepMs)}; everything settled after ${fmt.s(allMs)}; EKS requests ${fmt.int(reqs.length)}`,
  );
  console.log(
    `observed: ${fmt.int(targets.length - unseen.length)}/${fmt.int(targets.length)} clusters, the last ${fmt.s(lastSeen)} after the start (period ${PERIOD_S} s)`,
  );
  console.log(
    table([
      [
        '(account, region) shards',
        'requests',
        'max in any 1 s (worst shard)',
        'budget',
        'shards over budget',
      ],
      [fmt.int(byShard.size), fmt.int(reqs.length), `${worst} (${worstShard})`, String(RATE), String(over)],
    ]),
  );
  console.log(
    `DynamoDB (store clients): ${fmt.num(m.meter.readUnits, 1)} read units, ${fmt.num(m.meter.writeUnits, 1)} write units`,
  );
}

/** What every bundle run here gets: Lambda's variables, with this control plane's endpoints. */
function bundleEnv(cp: ControlPlane): Record<string, string | undefined> {
  return {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_ENDPOINT_URL_DYNAMODB: cp.endpoints.dynamodb,
    AWS_ENDPOINT_URL_SFN: cp.endpoints.sfn,
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    POWERTOOLS_METRICS_DISABLED: 'true',
    [ENV.table]: TABLE,
    [ENV.ownAccountId]: LOCAL_ACCOUNT,
    [ENV.sweepPeriod]: String(PERIOD_S),
  };
}

/**
 * The sweep shard function's bundle run by its Lambda handler in a fresh process against this
 * control plane, on one invocation's worth of shards (8 shards of this fleet): its peak resident
 * memory is what sizes the function.
 */
async function measureShardRun(cp: ControlPlane, targets: readonly Target[]): Promise<void> {
  const shards = new Map<string, { accountId: string; region: string; ids: string[] }>();
  for (const t of targets) {
    const k = `${t.account}#${t.region}`;
    const s = shards.get(k) ?? { accountId: t.account, region: t.region, ids: [] };
    s.ids.push(t.id);
    shards.set(k, s);
  }
  const payload = { periodBucket: 'bench-memory', shards: [...shards.values()].slice(0, SHARDS_PER_RUN) };
  const env = {
    ...bundleEnv(cp),
    [ENV.eksEndpoint]: cp.endpoints.eks,
    [ENV.coordinationTable]: LOCAL_COORDINATION_TABLE,
    [ENV.stateMachine]: cp.stateMachineArn,
    [ENV.eksCallsPerSecond]: String(RATE),
    [ENV.targetRoleName]: LOCAL_TARGET_ROLE,
    [ENV.fullObservePeriod]: String(FULL_PERIOD_S),
  };
  const run = await runBundle(
    'sweepShard',
    env,
    `handler(${JSON.stringify(payload)}, { getRemainingTimeInMillis: () => 360000 })`,
  );
  const r = run.result as {
    shards: { checked: number; clusters: number; errors: number; skipped?: boolean }[];
  };
  const n = (f: (s: (typeof r.shards)[number]) => number) => r.shards.reduce((a, s) => a + f(s), 0);
  console.log(
    `sweepShard bundle in a fresh process, one invocation of ${payload.shards.length} shards: ` +
      `${n((s) => s.checked)}/${n((s) => s.clusters)} clusters checked in ${fmt.s(run.runMs)} (load ${fmt.ms(run.loadMs)}), ` +
      `errors ${n((s) => s.errors)}, skipped shards ${n((s) => (s.skipped ? 1 : 0))}; peak resident memory ` +
      `${fmt.num(run.maxRssMb, 0)} MB (deployed memory ${FUNCTIONS.sweepShard.memoryMb} MB)`,
  );
}

/**
 * The dispatcher's bundle run by its Lambda handler in a fresh process over the whole fleet's table,
 * handing its shard runs to a stand-in of Lambda's Invoke (202, as Lambda queues an asynchronous
 * invocation): its peak resident memory is what sizes the function.
 */
async function measureDispatcher(cp: ControlPlane): Promise<void> {
  let invokes = 0;
  let largest = 0;
  const lambda = createServer((req, res) => {
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
    });
    req.on('end', () => {
      invokes++;
      largest = Math.max(largest, size);
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((r) => lambda.listen(0, '127.0.0.1', r));
  try {
    const env = {
      ...bundleEnv(cp),
      [ENV.sweepShardFunction]: 'cloudorch-sweep-shard',
      [ENV.lambdaEndpoint]: `http://127.0.0.1:${(lambda.address() as AddressInfo).port}`,
    };
    const run = await runBundle(
      'sweep',
      env,
      'handler({ segment: 0, totalSegments: 1 }, { getRemainingTimeInMillis: () => 300000 })',
    );
    const r = run.result as { scanned: number; invoked: number; errors: number };
    console.log(
      `sweep dispatcher bundle in a fresh process, the whole table: ${fmt.int(r.scanned)} items scanned, ` +
        `${fmt.int(invokes)} shard runs handed over (largest payload ${fmt.num(largest / 1024, 0)} KiB), ` +
        `errors ${r.errors}, in ${fmt.s(run.runMs)} (load ${fmt.ms(run.loadMs)}); peak resident memory ` +
        `${fmt.num(run.maxRssMb, 0)} MB (deployed memory ${FUNCTIONS.sweep.memoryMb} MB)`,
    );
  } finally {
    lambda.close();
  }
}

run(main);
