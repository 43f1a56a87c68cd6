/**
 * Generators of the planner's property tests: specs of 1-4 pools (unique names, mixed capacity types,
 * several instance types only for SPOT, labels, taints, updateConfig, external scaling on some) and
 * starts from nothing, from a converged cluster with random drift on some pools, from older versions,
 * with groups of removed pools (orphans) and groups CloudOrch did not create (foreign).
 */
import fc from 'fast-check';
import { catalog } from '../../../lambdas/core/catalog.js';
import { Health } from '../../../lambdas/core/health.js';
import type {
  Observation,
  ObservedCluster,
  ObservedNodegroup,
  UpdateConfig,
} from '../../../lambdas/core/observation.js';
import { ownershipTags, POOL_TAG } from '../../../lambdas/core/ownership.js';
import { DEFAULT_POOL, type NodePool } from '../../../lambdas/core/spec/pools.js';
import { type CloudClusterSpec, specSchema } from '../../../lambdas/core/spec/schema.js';
import { cluster, ID, nodegroupFor, observation } from './fixtures.js';

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
  /** The pool's current group may still be in a transition the planner must wait for. */
  transition: fc.constantFrom(undefined, undefined, undefined, 'CREATING', 'UPDATING'),
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

/** A resource EKS is still working on: CREATING, or UPDATING with its update in progress. */
function inTransition<T extends ObservedNodegroup | ObservedCluster>(r: T, status: string | undefined): T {
  if (status === undefined) return r;
  const update =
    status === 'UPDATING'
      ? {
          update: {
            id: 'start',
            type: 'ConfigUpdate',
            status: 'InProgress',
            health: Health.Progressing,
            errorCodes: [],
          },
        }
      : {};
  return { ...r, status, health: Health.Progressing, ...update };
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
    inTransition(
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
      ),
      st.transition,
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
        updating: fc.constantFrom(undefined, undefined, undefined, 'UPDATING'),
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
      return { spec, start: observation(inTransition(cluster({ version, tags }), c.updating), groups) };
    }),
);
