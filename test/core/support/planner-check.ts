/**
 * The planner's convergence property over several pools, shared by the property test and the
 * mutant test (which runs the same check against deliberately broken planners). A scenario is a
 * spec with 1-4 pools and a starting observation; `checkConvergence` plans, applies the first action
 * in the EKS model (a Wait lets transitions complete), and throws a `PropertyViolation` at the first
 * broken rule.
 */
import fc from 'fast-check';
import { catalog } from '../../../lambdas/core/catalog.js';
import type { Observation, ObservedNodegroup, UpdateConfig } from '../../../lambdas/core/observation.js';
import { createdByCloudOrch, ownershipTags, POOL_TAG } from '../../../lambdas/core/ownership.js';
import { detectDrift } from '../../../lambdas/core/plan/fields.js';
import { desiredNodegroup } from '../../../lambdas/core/plan/nodegroup.js';
import { firstAction } from '../../../lambdas/core/plan/plan.js';
import type {
  Desired,
  MutatingOperation,
  Operation,
  PlanDefaults,
} from '../../../lambdas/core/plan/types.js';
import { DEFAULT_POOL, type NodePool } from '../../../lambdas/core/spec/pools.js';
import { type CloudClusterSpec, specSchema } from '../../../lambdas/core/spec/schema.js';
import { applyToModel, minorsBetween, settle } from './eks-model.js';
import { cluster, DEFAULTS, ID, nodegroupFor, observation } from './fixtures.js';

export type Planner = (d: Desired, o: Observation, defaults: PlanDefaults) => Operation[];

export class PropertyViolation extends Error {
  override readonly name = 'PropertyViolation';
}

function violated(msg: string): never {
  throw new PropertyViolation(msg);
}

const VERSIONS = Object.keys(catalog.kubernetesVersions);
/** x86 types only: the allow-list's Graviton types need an ARM AMI, which a mixed list cannot have. */
const TYPES = ['t3.medium', 't3.large', 'm6i.large', 'c5.large'];
const POOL_NAMES = [DEFAULT_POOL, 'web', 'batch', 'gpu-x', 'spot1'];
const TAINTS = [
  { key: 'dedicated', value: 'a', effect: 'NO_SCHEDULE' },
  { key: 'dedicated', value: 'b', effect: 'NO_EXECUTE' },
  { key: 'spot', effect: 'PREFER_NO_SCHEDULE' },
] as const;
const labelsArb = fc.dictionary(fc.constantFrom('tier', 'team', 'zone'), fc.constantFrom('a', 'b'), {
  maxKeys: 2,
});
const taintsArb = fc.subarray([...TAINTS]);
const tagsArb = fc.dictionary(fc.constantFrom('team', 'env', 'cost'), fc.constantFrom('a', 'b'), {
  maxKeys: 2,
});
const updateConfigArb = fc.oneof(
  fc.record({ maxUnavailable: fc.integer({ min: 1, max: 2 }) }),
  fc.record({ maxUnavailablePercentage: fc.integer({ min: 10, max: 50 }) }),
);

/** A disruption budget the pool's maxSize allows (validation rejects a larger maxUnavailable). */
const fitted = (u: UpdateConfig, max: number): UpdateConfig =>
  u.maxUnavailable !== undefined ? { maxUnavailable: Math.min(u.maxUnavailable, max) } : u;

/** One pool as a user writes it: several instance types only for SPOT, external scaling on some. */
const poolArb = (name: string) =>
  fc
    .record({
      spot: fc.boolean(),
      types: fc.uniqueArray(fc.constantFrom(...TYPES), { minLength: 1, maxLength: 3 }),
      nodeCount: fc.integer({ min: 0, max: 6 }),
      external: fc.boolean(),
      labels: labelsArb,
      taints: taintsArb,
      updateConfig: fc.option(updateConfigArb, { nil: undefined }),
      diskSize: fc.option(fc.constantFrom(20, 50), { nil: undefined }),
      amiType: fc.option(fc.constantFrom('AL2023_x86_64_STANDARD', 'BOTTLEROCKET_x86_64'), {
        nil: undefined,
      }),
    })
    .map((r) => ({
      name,
      capacityType: r.spot ? 'SPOT' : 'ON_DEMAND',
      instanceTypes: r.spot ? r.types : r.types.slice(0, 1),
      nodeCount: r.nodeCount,
      scaling: r.external ? 'external' : 'managed',
      ...(r.external ? { minSize: 0, maxSize: Math.max(r.nodeCount, 2) } : {}),
      labels: r.labels,
      taints: r.taints,
      ...(r.updateConfig
        ? {
            updateConfig: fitted(
              r.updateConfig,
              r.external ? Math.max(r.nodeCount, 2) : Math.max(r.nodeCount, 1),
            ),
          }
        : {}),
      ...(r.diskSize !== undefined ? { diskSize: r.diskSize } : {}),
      ...(r.amiType !== undefined ? { amiType: r.amiType } : {}),
    }));

const poolsArb = fc
  .shuffledSubarray(POOL_NAMES, { minLength: 1, maxLength: 4 })
  .chain((names) => fc.tuple(...names.map(poolArb)));

export const multiPoolSpecArb: fc.Arbitrary<CloudClusterSpec> = fc
  .record({
    kubernetesVersion: fc.constantFrom(...VERSIONS),
    tags: tagsArb,
    nodeGroups: poolsArb,
  })
  .map((r) =>
    specSchema.parse({ provider: 'aws', region: 'us-east-1', clusterName: 'demo', ...r, adopt: false }),
  );

/** How a pool's group stands at the start. */
const poolStateArb = fc.record({
  state: fc.constantFrom('ok', 'absent', 'drifted', 'old-shape', 'replacing'),
  behind: fc.boolean(),
  scaling: fc.option(
    fc
      .tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 4 }))
      .map(([min, up, span]) => ({
        minSize: min,
        desiredSize: min + Math.min(up, span),
        maxSize: Math.max(min + span, 1),
      })),
    { nil: undefined },
  ),
  labels: fc.option(labelsArb, { nil: undefined }),
  taints: fc.option(taintsArb, { nil: undefined }),
  updateConfig: fc.option(updateConfigArb, { nil: undefined }),
  tags: fc.option(tagsArb, { nil: undefined }),
});
type PoolState = typeof poolStateArb extends fc.Arbitrary<infer T> ? T : never;

export interface Scenario {
  readonly spec: CloudClusterSpec;
  readonly start: Observation;
}

const older = (v: string, by: number) => VERSIONS[Math.max(VERSIONS.indexOf(v) - by, 0)]!;

/** The pool with its immutable shape changed (capacity type flipped), so its group has another name. */
function reshaped(spec: CloudClusterSpec, pool: NodePool): CloudClusterSpec {
  const other: NodePool = {
    ...pool,
    capacityType: pool.capacityType === 'SPOT' ? 'ON_DEMAND' : 'SPOT',
    instanceTypes: pool.instanceTypes.slice(0, 1),
  };
  return { ...spec, nodeGroups: spec.nodeGroups.map((p) => (p === pool ? other : p)) };
}

function poolGroups(
  spec: CloudClusterSpec,
  pool: NodePool,
  st: PoolState,
  version: string,
): ObservedNodegroup[] {
  const v = st.behind ? older(version, 1) : version;
  const old = () => nodegroupFor(reshaped(spec, pool), { version: v }, pool.name);
  const current = (drift: boolean) =>
    nodegroupFor(
      spec,
      {
        version: v,
        ...(drift && st.scaling ? { scaling: st.scaling } : {}),
        ...(drift && st.labels ? { labels: st.labels } : {}),
        ...(drift && st.taints ? { taints: st.taints } : {}),
        ...(drift && st.updateConfig ? { updateConfig: st.updateConfig } : {}),
        ...(drift && st.tags
          ? {
              tags: {
                ...st.tags,
                ...ownershipTags(ID),
                ...(pool.name === DEFAULT_POOL ? {} : { [POOL_TAG]: pool.name }),
              },
            }
          : {}),
      },
      pool.name,
    );
  switch (st.state) {
    case 'absent':
      return [];
    case 'ok':
      return [current(false)];
    case 'drifted':
      return [current(true)];
    case 'old-shape':
      return [old()];
    case 'replacing':
      return [old(), current(true)];
  }
  return [];
}

/** A group CloudOrch made for a pool the spec no longer lists (`default` keeps the seed's untagged form). */
function orphan(spec: CloudClusterSpec, name: string, version: string): ObservedNodegroup {
  const s = specSchema.parse({ ...spec, nodeGroups: [{ name, instanceTypes: ['t3.medium'], nodeCount: 1 }] });
  return nodegroupFor(s, { version }, name);
}

function foreign(i: number, version: string, tags: Record<string, string>): ObservedNodegroup {
  return {
    ...nodegroupFor(
      specSchema.parse({
        provider: 'aws',
        region: 'us-east-1',
        clusterName: 'demo',
        kubernetesVersion: version,
        nodeCount: 1,
        instanceType: 'm6i.large',
      }),
    ),
    name: `foreign-${i}`,
    arn: `arn:aws:eks:us-east-1:111122223333:nodegroup/demo/foreign-${i}/x`,
    version,
    tags,
  };
}

/** Nothing yet, or a cluster up to two minors behind with drifted pools, orphans and foreign groups. */
export const scenarioArb: fc.Arbitrary<Scenario> = multiPoolSpecArb.chain((spec) =>
  fc
    .option(
      fc.record({
        behind: fc.constantFrom(0, 0, 1, 2),
        tags: tagsArb,
        pools: fc.tuple(...spec.nodeGroups.map(() => poolStateArb)),
        orphans: fc.subarray(
          ['old1', DEFAULT_POOL].filter((n) => !spec.nodeGroups.some((p) => p.name === n)),
        ),
        foreign: fc.array(fc.tuple(tagsArb, fc.boolean()), { maxLength: 2 }),
      }),
      { freq: 5 },
    )
    .map((c): Scenario => {
      if (!c) return { spec, start: observation(null) };
      const version = older(spec.kubernetesVersion, c.behind);
      const groups = [
        ...spec.nodeGroups.flatMap((p, i) => poolGroups(spec, p, c.pools[i]!, version)),
        ...c.orphans.map((n) => orphan(spec, n, version)),
        ...c.foreign.map(([tags, behind], i) => foreign(i, behind ? older(version, 1) : version, tags)),
      ];
      const tags = { ...c.tags, ...ownershipTags(ID) };
      return { spec, start: observation(cluster({ version, tags }), groups) };
    }),
);

/** The pool a group serves, read from what EKS reports (its pool tag; CloudOrch's untagged groups are `default`'s). */
function poolOf(ng: ObservedNodegroup): string | undefined {
  if (!createdByCloudOrch(ng.tags)) return undefined;
  return ng.tags[POOL_TAG] ?? DEFAULT_POOL;
}

/** A group whose nodes serve the pool: ACTIVE, or ACTIVE before the update it is running. */
const serving = (ng: ObservedNodegroup) => ng.status === 'ACTIVE' || ng.status === 'UPDATING';

const servedPools = (spec: CloudClusterSpec, o: Observation) =>
  new Set(
    spec.nodeGroups
      .filter((p) => o.nodegroups.some((ng) => poolOf(ng) === p.name && serving(ng)))
      .map((p) => p.name),
  );

/**
 * Enough steps for every operation the scenario can need, each followed by a wait: the cluster's
 * create and tags, per pool a create, a replacement, a configuration, tags and a catch-up, each
 * orphan's and foreign group's deletion, and per control-plane minor one step plus one per pool.
 */
export function stepBound({ spec, start }: Scenario): number {
  const pools = spec.nodeGroups.length;
  const minors = start.cluster ? minorsBetween(spec.kubernetesVersion, start.cluster.version) : 0;
  const ops = 3 + pools * 6 + start.nodegroups.length + minors * (1 + pools);
  return 2 * ops + 2;
}

/** What one step may do to the pools: checked before the action is applied. */
function checkAction(spec: CloudClusterSpec, o: Observation, op: MutatingOperation): void {
  const listed = new Set(spec.nodeGroups.map((p) => p.name));
  if (op.kind === 'DeleteNodegroup') {
    const ng = o.nodegroups.find((n) => n.name === op.nodegroupName);
    const pool = ng && poolOf(ng);
    if (ng && pool !== undefined && !listed.has(pool)) {
      const waiting = spec.nodeGroups.filter((p) => {
        const name = desiredNodegroup(p, spec, DEFAULTS).name;
        return !o.nodegroups.some((n) => n.name === name && n.status === 'ACTIVE');
      });
      if (waiting.length > 0)
        violated(
          `orphan ${ng.name} deleted while pools ${waiting.map((p) => p.name).join(', ')} are not ACTIVE`,
        );
    }
    if (ng && pool === undefined && op.reason !== 'foreign')
      violated(`foreign ${ng.name} deleted as ${op.reason}`);
  }
  if (op.kind === 'UpdateClusterVersion') {
    const behind = o.nodegroups.filter((n) => n.version !== o.cluster?.version);
    if (behind.length > 0)
      violated(
        `control plane moved to ${op.toVersion} while ${behind.map((n) => n.name).join(', ')} are behind`,
      );
  }
}

/** Version calls so far: the control plane one minor at a time, each minor's pool upgrades in spec order. */
function checkVersionOrder(spec: CloudClusterSpec, ops: readonly MutatingOperation[]): void {
  const order = spec.nodeGroups.map((p) => p.name);
  let last = -1;
  for (const op of ops) {
    if (op.kind === 'UpdateClusterVersion') {
      if (minorsBetween(op.toVersion, op.fromVersion) !== 1)
        violated(`control plane ${op.fromVersion} -> ${op.toVersion}`);
      last = -1;
    }
    if (op.kind === 'UpdateNodegroupVersion') {
      const at = order.indexOf(op.pool);
      if (at < last)
        violated(`pool ${op.pool} upgraded after pool ${order[last]} (spec order: ${order.join(', ')})`);
      last = at;
    }
  }
}

export interface Run {
  readonly final: Observation;
  readonly applied: readonly MutatingOperation[];
}

/** Plans and applies the first action until nothing is left, checking every step's rules. */
export function converge(planner: Planner, { spec, start }: Scenario, bound: number): Run {
  const d: Desired = { id: ID, spec, generation: 1, deletionRequested: false };
  let o = start;
  const applied: MutatingOperation[] = [];
  for (let i = 0; i < bound; i++) {
    const action = firstAction(planner(d, o, DEFAULTS));
    if (!action) return { final: o, applied };
    if (action.kind === 'Wait') {
      o = settle(o);
      continue;
    }
    checkAction(spec, o, action);
    const before = servedPools(spec, o);
    try {
      o = applyToModel(o, action);
    } catch (e) {
      violated(
        `EKS refused ${action.kind} after ${applied.map((a) => a.kind).join(', ')}: ${(e as Error).message}`,
      );
    }
    const after = servedPools(spec, o);
    const gap = [...before].filter((p) => !after.has(p));
    if (gap.length > 0)
      violated(`capacity gap in pool ${gap.join(', ')} after ${action.kind} ${JSON.stringify(action)}`);
    applied.push(action);
    checkVersionOrder(spec, applied);
  }
  violated(`did not converge within ${bound} steps; applied ${applied.map((a) => a.kind).join(', ')}`);
}

/** The whole property for one scenario: converges within its bound, then plans nothing and nothing drifts. */
export function checkConvergence(planner: Planner, sc: Scenario): Run {
  const run = converge(planner, sc, stepBound(sc));
  const d: Desired = { id: ID, spec: sc.spec, generation: 1, deletionRequested: false };
  const after = planner(d, run.final, DEFAULTS);
  if (after.length > 0) violated(`converged state still plans ${JSON.stringify(after)}`);
  const drift = detectDrift(sc.spec, run.final, DEFAULTS);
  if (drift.length > 0) violated(`converged state still drifts: ${JSON.stringify(drift)}`);
  const extra = run.final.nodegroups.filter(
    (ng) => poolOf(ng) === undefined || !sc.spec.nodeGroups.some((p) => p.name === poolOf(ng)),
  );
  if (extra.length > 0) violated(`groups no pool wants remain: ${extra.map((n) => n.name).join(', ')}`);
  return run;
}
