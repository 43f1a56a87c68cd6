/**
 * The field tables are complete for planning: every call the planner makes is in the `via` of a
 * field that drifts on that input, about the same resource (the cluster, one pool, or one node group
 * no pool wants), so drift reports what the planner acts on. A pool's items
 * (`nodeGroups[<pool>].<field>`) reach the pool table's rules through `ruleOfDrift`; each member of an
 * UpdateNodegroupConfig must be explained by its own field. Each run converges a random spec of
 * several pools under random deployment defaults, tampers with the cluster, changes every field at
 * random (pools added, removed and changed, defaults too), and checks each step to the new spec.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { catalog } from '../../lambdas/core/catalog.js';
import type { Observation } from '../../lambdas/core/observation.js';
import {
  MANAGED_BY_TAG,
  OWNER_TAG,
  ownershipOf,
  POOL_TAG,
  RELEASED_TAG,
} from '../../lambdas/core/ownership.js';
import { type DriftItem, detectDrift, FIELD_TABLE, ruleOfDrift } from '../../lambdas/core/plan/fields.js';
import { firstAction, plan } from '../../lambdas/core/plan/plan.js';
import type { Desired, MutatingOperation, PlanDefaults } from '../../lambdas/core/plan/types.js';
import { DEFAULT_POOL } from '../../lambdas/core/spec/pools.js';
import { type CloudClusterSpec, specSchema } from '../../lambdas/core/spec/schema.js';
import { applyToModel, minorsBetween, settle } from './support/eks-model.js';
import { ACCOUNT, ID } from './support/fixtures.js';

type Kind = MutatingOperation['kind'];

const VERSIONS = Object.keys(catalog.kubernetesVersions);
const role = (name: string) => `arn:aws:iam::${ACCOUNT}:role/${name}`;
const SUBNETS = [
  ['subnet-0000000a', 'subnet-0000000b'],
  ['subnet-0000000c', 'subnet-0000000d'],
];

// Small domains, so that a change and no change are both likely for every field.
const defaultsArb: fc.Arbitrary<PlanDefaults> = fc.record({
  clusterRoleArn: fc.constant(role('eks-cluster')),
  nodeRoleArn: fc.constantFrom(role('eks-node'), role('eks-node-2')),
  subnetIds: fc.constantFrom(...SUBNETS),
});

const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });

const poolArb = (name: string) =>
  fc
    .record({
      spot: fc.boolean(),
      types: fc.uniqueArray(fc.constantFrom('t3.medium', 't3.large'), { minLength: 1, maxLength: 2 }),
      nodeCount: fc.integer({ min: 0, max: 4 }),
      bounds: opt(fc.tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 1, max: 6 }))),
      external: fc.boolean(),
      labels: fc.dictionary(fc.constantFrom('tier', 'zone'), fc.constantFrom('a', 'b'), { maxKeys: 2 }),
      taints: fc.subarray([
        { key: 'dedicated', value: 'a', effect: 'NO_SCHEDULE' },
        { key: 'spot', effect: 'PREFER_NO_SCHEDULE' },
      ]),
      updateConfig: opt(fc.constantFrom({ maxUnavailable: 1 }, { maxUnavailablePercentage: 25 })),
      diskSize: opt(fc.constantFrom(20, 40)),
      nodeRoleArn: opt(fc.constantFrom(role('eks-node'), role('custom-node'))),
      subnetIds: opt(fc.constantFrom(['subnet-0000000a'], ['subnet-0000000c'])),
    })
    .map(({ spot, types, bounds, external, ...r }) => {
      const [a, b] = bounds ?? (external ? [0, 6] : [undefined, undefined]);
      const clean = Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined));
      return {
        ...clean,
        name,
        capacityType: spot ? 'SPOT' : 'ON_DEMAND',
        instanceTypes: spot ? types : types.slice(0, 1),
        ...(a !== undefined && b !== undefined
          ? { minSize: Math.min(a, b, r.nodeCount), maxSize: Math.max(a, b, r.nodeCount, 1) }
          : {}),
        scaling: external ? 'external' : 'managed',
      };
    });

const specArb: fc.Arbitrary<CloudClusterSpec> = fc
  .record({
    kubernetesVersion: fc.constantFrom(...VERSIONS),
    nodeGroups: fc
      .shuffledSubarray(['default', 'web', 'batch'], { minLength: 1 })
      .chain((names) => fc.tuple(...names.map(poolArb))),
    tags: fc.dictionary(fc.constantFrom('team', 'env'), fc.constantFrom('a', 'b'), { maxKeys: 2 }),
    clusterRoleArn: opt(fc.constantFrom(role('eks-cluster'), role('other'))),
    network: opt(
      fc.record({
        subnetIds: fc.constantFrom(...SUBNETS),
        securityGroupIds: opt(fc.constantFrom(['sg-0000000a'], [])),
      }),
    ),
    adopt: fc.boolean(),
  })
  .map((r) =>
    specSchema.parse({
      provider: 'aws',
      region: 'us-east-1',
      clusterName: 'via',
      ...Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)),
    }),
  );

const MUTABLE = new Set(['nodeCount', 'minSize', 'maxSize', 'scaling', 'labels', 'taints', 'updateConfig']);
const only = (o: object, keep: (k: string) => boolean) =>
  Object.fromEntries(Object.entries(o).filter(([k]) => keep(k)));

/** The same pools with only their mutable fields drawn again: sizes, labels, taints, updateConfig. */
const retunedArb = (s: CloudClusterSpec): fc.Arbitrary<CloudClusterSpec> =>
  fc.tuple(...s.nodeGroups.map((p) => poolArb(p.name))).map((fresh) =>
    specSchema.parse({
      ...s,
      nodeGroups: s.nodeGroups.map((p, i) => ({
        ...only(p, (k) => !MUTABLE.has(k)),
        ...only(fresh[i]!, (k) => MUTABLE.has(k)),
      })),
    }),
  );

/** The next spec and defaults: anything at all, or the same shape retuned under the same defaults. */
const nextArb = (s0: CloudClusterSpec, df0: PlanDefaults) =>
  fc.oneof(fc.tuple(specArb, defaultsArb), fc.tuple(retunedArb(s0), fc.constant(df0)));

/** How the cluster was touched outside CloudOrch between the two specs. */
const tamperArb = fc.record({
  ownership: fc.constantFrom('kept', 'kept', 'removed', 'released'),
  strayTag: fc.boolean(),
  desiredSize: opt(fc.integer({ min: 0, max: 6 })),
  labels: opt(fc.dictionary(fc.constantFrom('tier', 'other'), fc.constantFrom('a', 'x'), { maxKeys: 2 })),
  foreignGroup: fc.boolean(),
});

type Tamper = typeof tamperArb extends fc.Arbitrary<infer T> ? T : never;

const desiredOf = (spec: CloudClusterSpec): Desired => ({
  id: ID,
  spec,
  generation: 1,
  deletionRequested: false,
});

/** Steps to desired state against the EKS model; `check` sees each input and the call made on it. */
function reconcile(
  d: Desired,
  start: Observation,
  defaults: PlanDefaults,
  check: (o: Observation, op: MutatingOperation) => void = () => {},
): Observation {
  const pools = d.spec.nodeGroups.length;
  const minors = start.cluster ? Math.abs(minorsBetween(d.spec.kubernetesVersion, start.cluster.version)) : 0;
  const bound = 2 * (4 + pools * 6 + start.nodegroups.length + minors * (1 + pools)) + 2;
  let o = start;
  for (let i = 0; i < bound; i++) {
    const action = firstAction(plan(d, o, defaults));
    if (!action) return o;
    if (action.kind === 'Wait') {
      o = settle(o);
      continue;
    }
    check(o, action);
    o = applyToModel(o, action);
  }
  throw new Error(`did not settle within ${bound} steps`);
}

function tamper(o: Observation, t: Tamper): Observation {
  const c = o.cluster;
  if (!c) return o;
  const { [OWNER_TAG]: _owner, [MANAGED_BY_TAG]: _by, ...unowned } = c.tags;
  const tags = {
    ...(t.ownership === 'removed' ? unowned : c.tags),
    ...(t.ownership === 'released' ? { [RELEASED_TAG]: ID } : {}),
    ...(t.strayTag ? { stray: 'x' } : {}),
  };
  const [ng, ...rest] = o.nodegroups;
  if (!ng) return { ...o, cluster: { ...c, tags } };
  const size = t.desiredSize;
  const scaling =
    size !== undefined && size >= ng.scaling.minSize && size <= ng.scaling.maxSize
      ? { ...ng.scaling, desiredSize: size }
      : ng.scaling;
  const touched = { ...ng, scaling, labels: t.labels ?? ng.labels };
  // A group someone made with the console: no ownership tags.
  const foreign = t.foreignGroup
    ? [{ ...ng, name: 'console-made', arn: `${ng.arn}-console`, tags: { made: 'console' } }]
    : [];
  return { ...o, cluster: { ...c, tags }, nodegroups: [touched, ...rest, ...foreign] };
}

/** What a drift item is about: one pool, one node group no pool wants, or the cluster. */
function targetOfItem(field: string): string {
  const pool = /^nodeGroups\[([^\]]*)\]/.exec(field)?.[1];
  if (pool !== undefined) return `pool:${pool}`;
  const group = /^nodeGroups \(node group (.+)\)$/.exec(field)?.[1];
  return group !== undefined ? `group:${group}` : 'cluster';
}

/** What a call acts on, in the same terms. */
function targetOfOp(o: Observation, op: MutatingOperation): string {
  if ('pool' in op && op.pool !== undefined && !(op.kind === 'DeleteNodegroup' && op.reason !== 'replaced'))
    return `pool:${op.pool}`;
  if (op.kind === 'DeleteNodegroup') return `group:${op.nodegroupName}`;
  if (op.kind === 'TagResource' || op.kind === 'UntagResource') {
    const ng = o.nodegroups.find((n) => n.arn === op.resourceArn);
    // A group's pool is on its pool tag; CloudOrch's groups from before pools are `default`'s.
    if (ng) return `pool:${ng.tags[POOL_TAG] ?? DEFAULT_POOL}`;
  }
  return 'cluster';
}

/** The fields an UpdateNodegroupConfig's members converge: each member needs one of them drifting. */
const CONFIG_FIELDS = {
  scaling: ['nodeCount', 'minSize', 'maxSize'],
  labels: ['labels'],
  taints: ['taints'],
  updateConfig: ['updateConfig'],
} as const;

/** The calls the drifting items allow, per target; a missing cluster is created. */
function allowedBy(d: Desired, o: Observation, items: readonly DriftItem[]): Map<string, Set<Kind>> {
  const allowed = new Map<string, Set<Kind>>();
  const allow = (target: string, kinds: readonly Kind[]) =>
    allowed.set(target, new Set([...(allowed.get(target) ?? []), ...kinds]));
  for (const item of items)
    allow(
      targetOfItem(item.field),
      ruleOfDrift(item.field)?.rule.via ?? (o.cluster ? [] : ['CreateCluster']),
    );
  // adopt is a behaviour field: set on a cluster that is not yet this record's, it makes the
  // planner claim the cluster.
  if (d.spec.adopt && o.cluster && ownershipOf(o.cluster.tags, ID) !== 'owned')
    allow('cluster', FIELD_TABLE.adopt.via);
  return allowed;
}

function checkCall(d: Desired, o: Observation, op: MutatingOperation, defaults: PlanDefaults): void {
  const items = detectDrift(d.spec, o, defaults);
  const target = targetOfOp(o, op);
  const why = `${op.kind} on ${target}; drift ${JSON.stringify(items)}`;
  expect([...(allowedBy(d, o, items).get(target) ?? [])], why).toContain(op.kind);
  if (op.kind !== 'UpdateNodegroupConfig') return;
  const drifting = new Set(
    items.flatMap((i) =>
      i.field.startsWith(`nodeGroups[${op.pool}].`) ? [ruleOfDrift(i.field)?.field] : [],
    ),
  );
  for (const member of Object.keys(CONFIG_FIELDS) as (keyof typeof CONFIG_FIELDS)[])
    if (op[member] !== undefined)
      expect(
        CONFIG_FIELDS[member].some((f) => drifting.has(`nodeGroups[].${f}`)),
        `${member} sent; ${why}`,
      ).toBe(true);
}

describe('field tables: complete for planning', () => {
  it('every call the planner makes converges a field that drifts on its input, for the resource it acts on', () => {
    fc.assert(
      fc.property(
        fc
          .tuple(specArb, defaultsArb)
          .chain(([s0, df0]) => fc.tuple(fc.constant([s0, df0] as const), nextArb(s0, df0))),
        tamperArb,
        ([[s0, df0], [s1, df1]], t) => {
          const empty: Observation = { cluster: null, nodegroups: [], observedAt: 'now' };
          const start = tamper(reconcile(desiredOf({ ...s0, adopt: false }), empty, df0), t);
          const d = desiredOf(s1);
          const final = reconcile(d, start, df1, (o, op) => checkCall(d, o, op, df1));
          // Once nothing more is called, what still drifts is what the planner reports as impossible.
          const after = plan(d, final, df1);
          const reported = new Set(after.flatMap((op) => (op.kind === 'Impossible' ? [op.field] : [])));
          if (reported.size === 0 && final.cluster && ownershipOf(final.cluster.tags, ID) === 'owned')
            expect(detectDrift(d.spec, final, df1)).toEqual([]);
        },
      ),
      { numRuns: 200, seed: 1312 },
    );
  });
});
