/**
 * Decision speed: what the sweep and one reconcile step compute per cluster, on one core, without
 * I/O. Stages: observe-parse (EKS JSON response bodies -> the observation, as the SDK hands them to
 * the provider: JSON.parse, epoch seconds -> Date, then the provider's mapping), plan (planner and
 * drift), cost (estimate) and policy (input built, WASM bundle evaluated).
 *
 * Run: `npm run bench:decision` (optional argument: timed clusters, default 20000).
 */
import './lib/env.js';
import { join } from 'node:path';
import type { Cluster, Nodegroup } from '@aws-sdk/client-eks';
import { estimateSpecCost } from '../lambdas/core/cost/estimate.js';
import type { Observation } from '../lambdas/core/observation.js';
import { ownershipTags, POOL_TAG } from '../lambdas/core/ownership.js';
import { detectDrift } from '../lambdas/core/plan/fields.js';
import { amiTypeFor, desiredNodegroup } from '../lambdas/core/plan/nodegroup.js';
import { firstAction, plan } from '../lambdas/core/plan/plan.js';
import { buildPolicyInput } from '../lambdas/core/policy-input.js';
import type { NodePool } from '../lambdas/core/spec/pools.js';
import type { CloudClusterSpec, CloudClusterSpecInput } from '../lambdas/core/spec/schema.js';
import { PolicyEngine } from '../lambdas/policy/engine.js';
import { FileBundleSource } from '../lambdas/policy/sources.js';
import { toObservedCluster, toObservedNodegroup } from '../lambdas/provider/to-observation.js';
import { Prng } from '../local/eks-sim/model.js';
import { LOCAL_DEFAULTS } from '../local/runtime/control-plane.js';
import { ensurePolicyBundle, POLICY_DIR } from '../policies/build.js';
import { benchSpec, REGIONS } from './lib/fleet.js';
import { fmt, run, section, summarize, summaryLine, table } from './lib/stats.js';

const iterations = Number(process.argv[2] ?? 20_000);
const DISTINCT = 200;
const TYPES = ['t3.medium', 't3.large', 'm6i.large', 'm7g.large', 'c6i.xlarge', 'r6i.large'];
const VERSIONS = ['1.32', '1.33', '1.34', '1.35'];
/** What the observed side differs by, so every planner branch is exercised. */
const CASES = [
  'in sync',
  'scaled out of band',
  'one version behind',
  'tag drift',
  'no node group',
  'not created',
];

interface Input {
  readonly id: string;
  readonly spec: CloudClusterSpec;
  /** Response bodies as EKS sends them: DescribeCluster, ListNodegroups, DescribeNodegroup per group. */
  readonly bodies: readonly [string, string, readonly string[]] | undefined;
}

const CREATED_AT = Date.parse('2026-01-01T00:00:00Z') / 1000;

/** What the EKS side of one input reports, before it is written as response bodies. */
interface EksSide {
  readonly spec: CloudClusterSpec;
  readonly version: string;
  readonly tags: Readonly<Record<string, string>>;
}

/** DescribeCluster's `cluster`, as EKS sends it. */
function clusterBody({ spec, version, tags }: EksSide, rng: Prng): object {
  const { clusterName: name, region } = spec;
  return {
    name,
    arn: `arn:aws:eks:${region}:000000000000:cluster/${name}`,
    createdAt: CREATED_AT,
    version,
    endpoint: `https://${rng.hex(32).toUpperCase()}.gr7.${region}.eks.amazonaws.com`,
    certificateAuthority: { data: 'c2ltdWxhdGVk' },
    roleArn: LOCAL_DEFAULTS.clusterRoleArn,
    resourcesVpcConfig: { subnetIds: LOCAL_DEFAULTS.subnetIds, securityGroupIds: [], vpcId: 'vpc-1' },
    status: 'ACTIVE',
    platformVersion: 'eks.1',
    tags,
    health: { issues: [] },
  };
}

/** DescribeNodegroup's `nodegroup`: the group one pool asks for, at `desired` nodes. */
function nodegroupBody({ spec, version, tags }: EksSide, pool: NodePool, desired: number): object {
  const shape = desiredNodegroup(pool, spec, LOCAL_DEFAULTS);
  const { clusterName: name, region } = spec;
  return {
    nodegroupName: shape.name,
    nodegroupArn: `arn:aws:eks:${region}:000000000000:nodegroup/${name}/${shape.name}/x`,
    clusterName: name,
    version,
    releaseVersion: `${version}.0-20260101`,
    createdAt: CREATED_AT,
    modifiedAt: CREATED_AT,
    status: 'ACTIVE',
    capacityType: shape.capacityType,
    scalingConfig: {
      minSize: pool.minSize ?? pool.nodeCount,
      maxSize: Math.max(desired, pool.maxSize ?? pool.nodeCount),
      desiredSize: desired,
    },
    instanceTypes: shape.instanceTypes,
    amiType: amiTypeFor(shape.instanceTypes[0] ?? ''),
    subnets: LOCAL_DEFAULTS.subnetIds,
    nodeRole: LOCAL_DEFAULTS.nodeRoleArn,
    labels: pool.labels,
    taints: pool.taints,
    health: { issues: [] },
    tags: { ...tags, [POOL_TAG]: pool.name },
  };
}

/** Half the clusters of every case use the flat fields (one pool), half three pools: system, workers, spot. */
function nodeFields(i: number, rng: Prng): Partial<CloudClusterSpecInput> {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rng.next() * xs.length)]!;
  const nodeCount = 1 + Math.floor(rng.next() * 8);
  if (Math.floor(i / CASES.length) % 2 === 0)
    return { nodeCount, instanceType: pick(TYPES), spotEnabled: rng.next() < 0.3 };
  return {
    nodeGroups: [
      {
        name: 'system',
        instanceTypes: ['t3.medium'],
        nodeCount: 2,
        labels: { 'node-role': 'system' },
        taints: [{ key: 'CriticalAddonsOnly', value: 'true', effect: 'NO_SCHEDULE' }],
      },
      { name: 'workers', instanceTypes: [pick(TYPES)], nodeCount },
      {
        name: 'spot',
        instanceTypes: ['m6i.large', 'c6i.xlarge'],
        capacityType: 'SPOT',
        nodeCount: 1,
        minSize: 0,
        maxSize: 6,
        scaling: 'external',
      },
    ],
  };
}

function makeInput(i: number, rng: Prng): Input {
  const name = `dec-${i}`;
  const id = `bench/${name}`;
  const region = REGIONS[i % REGIONS.length]!;
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rng.next() * xs.length)]!;
  const spec = benchSpec(name, region, {
    kubernetesVersion: pick(VERSIONS.slice(1)),
    ...nodeFields(i, rng),
    tags: { team: pick(['platform', 'data', 'payments']), environment: pick(['dev', 'prod']) },
  });
  const kase = CASES[i % CASES.length]!;
  if (kase === 'not created') return { id, spec, bodies: undefined };
  const tags = { ...spec.tags, ...ownershipTags(id), ...(kase === 'tag drift' ? { rogue: 'x' } : {}) };
  const version =
    kase === 'one version behind'
      ? VERSIONS[VERSIONS.indexOf(spec.kubernetesVersion) - 1]!
      : spec.kubernetesVersion;
  const side: EksSide = { spec, version, tags };
  const cluster = clusterBody(side, rng);
  // Out of band, the first pool is scaled by three.
  const groups =
    kase === 'no node group'
      ? []
      : spec.nodeGroups.map((p, k) =>
          nodegroupBody(side, p, p.nodeCount + (kase === 'scaled out of band' && k === 0 ? 3 : 0)),
        );
  return {
    id,
    spec,
    bodies: [
      JSON.stringify({ cluster }),
      JSON.stringify({ nodegroups: groups.map((g) => (g as { nodegroupName: string }).nodegroupName) }),
      groups.map((nodegroup) => JSON.stringify({ nodegroup })),
    ],
  };
}

/** The SDK's deserializer turns epoch-second members into Dates; done here the same way. */
function dates<T extends { createdAt?: unknown; modifiedAt?: unknown }>(x: T): T {
  const d = (v: unknown) => (typeof v === 'number' ? new Date(v * 1000) : v);
  return { ...x, createdAt: d(x.createdAt), modifiedAt: d(x.modifiedAt) };
}

function observe(input: Input, at: string): Observation {
  if (!input.bodies) return { cluster: null, nodegroups: [], observedAt: at };
  const [c, list, groups] = input.bodies;
  const cluster = dates((JSON.parse(c) as { cluster: Cluster }).cluster);
  // The provider describes each listed group: one DescribeNodegroup body per listed name.
  const names = (JSON.parse(list) as { nodegroups: string[] }).nodegroups;
  if (names.length !== groups.length)
    throw new Error(`${names.length} groups listed, ${groups.length} described`);
  const nodegroups = groups.map((ng) =>
    toObservedNodegroup(dates((JSON.parse(ng) as { nodegroup: Nodegroup }).nodegroup)),
  );
  return { cluster: toObservedCluster(cluster), nodegroups, observedAt: at };
}

async function main(): Promise<void> {
  section('Decision speed: observe-parse + plan + cost + policy per cluster, one core');
  const { bundlePath } = await ensurePolicyBundle({ outDir: join(POLICY_DIR, 'build') });
  const engine = new PolicyEngine({ source: new FileBundleSource(bundlePath) });
  await engine.ready();
  const rng = new Prng(9);
  const inputs = Array.from({ length: DISTINCT }, (_, i) => makeInput(i, rng));
  const at = new Date();
  const stamp = at.toISOString();
  const stages = {
    parse: [] as number[],
    plan: [] as number[],
    cost: [] as number[],
    policy: [] as number[],
  };
  const totals: number[] = [];
  let work = 0;
  let denied = 0;
  const warmup = Math.min(2_000, iterations);
  let start = 0;
  for (let i = -warmup; i < iterations; i++) {
    if (i === 0) start = performance.now();
    const input = inputs[((i % DISTINCT) + DISTINCT) % DISTINCT]!;
    const t0 = performance.now();
    const observation = observe(input, stamp);
    const t1 = performance.now();
    const desired = { id: input.id, spec: input.spec, generation: 1, deletionRequested: false };
    const ops = plan(desired, observation, LOCAL_DEFAULTS);
    const drift = detectDrift(input.spec, observation, LOCAL_DEFAULTS);
    const t2 = performance.now();
    const estimate = estimateSpecCost(input.spec, at);
    const t3 = performance.now();
    const decision = engine.evaluate(
      buildPolicyInput({ desired, observation, plan: ops, estimate, now: at }),
    );
    const t4 = performance.now();
    if (i < 0) continue;
    if (firstAction(ops) || drift.length > 0) work++;
    if (!decision.allow) denied++;
    stages.parse.push((t1 - t0) * 1000);
    stages.plan.push((t2 - t1) * 1000);
    stages.cost.push((t3 - t2) * 1000);
    stages.policy.push((t4 - t3) * 1000);
    totals.push((t4 - t0) * 1000);
  }
  const elapsed = performance.now() - start;
  if (engine.health().evaluationErrors > 0) throw new Error('policy evaluations failed during the benchmark');
  const rows = [['stage', 'median', 'p99']];
  for (const [name, xs] of Object.entries(stages)) {
    const s = summarize(xs);
    rows.push([name, fmt.us(s.median), fmt.us(s.p99)]);
  }
  const total = summarize(totals);
  rows.push(['total per cluster', fmt.us(total.median), fmt.us(total.p99)]);
  console.log(
    `${fmt.int(iterations)} decisions over ${DISTINCT} distinct clusters (${CASES.join(', ')}); ` +
      `${fmt.int(work)} with work or drift, ${fmt.int(denied)} denied by policy`,
  );
  console.log(table(rows));
  console.log(`per cluster: ${summaryLine(total, fmt.us)}`);
  console.log(
    `throughput on one core: ${fmt.int((iterations / elapsed) * 1000)} clusters/s ` +
      `(${fmt.int(iterations)} decisions in ${fmt.s(elapsed)}, stage timers included)`,
  );
}

run(main);
