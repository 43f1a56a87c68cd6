/**
 * The field table is complete for planning: every call the planner makes is in the `via` of a field
 * that drifts on that input (or of a missing cluster or node group), so drift reports what the
 * planner acts on. Each run converges one random spec under random deployment defaults, then
 * changes every field at random (defaults too), and checks each step of converging to the new spec.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { catalog } from '../../lambdas/core/catalog.js';
import type { Observation } from '../../lambdas/core/observation.js';
import { MANAGED_BY_TAG, OWNER_TAG, ownershipOf, RELEASED_TAG } from '../../lambdas/core/ownership.js';
import { detectDrift, FIELD_TABLE, ruleOfDrift } from '../../lambdas/core/plan/fields.js';
import { desiredNodegroup, matchesShape } from '../../lambdas/core/plan/nodegroup.js';
import { firstAction, plan } from '../../lambdas/core/plan/plan.js';
import type { Desired, MutatingOperation, PlanDefaults } from '../../lambdas/core/plan/types.js';
import { type CloudClusterSpec, specSchema } from '../../lambdas/core/spec/schema.js';
import { applyToModel, settle } from './support/eks-model.js';
import { ACCOUNT, ID } from './support/fixtures.js';

type Kind = MutatingOperation['kind'];

/**
 * What the resource items converge: a missing cluster is created, the first node group too, and
 * once the desired group exists the others go. Replacing a group that exists must be explained
 * by a field, so the node group item does not cover it.
 */
function resourceVia(d: Desired, o: Observation, defaults: PlanDefaults): Kind[] {
  if (!o.cluster) return ['CreateCluster'];
  if (o.nodegroups.length === 0) return ['CreateNodegroup'];
  const shape = desiredNodegroup(d.spec, defaults);
  return o.nodegroups.some((ng) => matchesShape(ng, shape)) ? ['DeleteNodegroup'] : [];
}

const VERSIONS = Object.keys(catalog.kubernetesVersions);
const role = (name: string) => `arn:aws:iam::${ACCOUNT}:role/${name}`;
const SUBNETS = [
  ['subnet-0000000a', 'subnet-0000000b'],
  ['subnet-0000000c', 'subnet-0000000d'],
];

// Small pools, so that a change and no change are both likely for every field.
const defaultsArb: fc.Arbitrary<PlanDefaults> = fc.record({
  clusterRoleArn: fc.constant(role('eks-cluster')),
  nodeRoleArn: fc.constantFrom(role('eks-node'), role('eks-node-2')),
  subnetIds: fc.constantFrom(...SUBNETS),
});

const specArb: fc.Arbitrary<CloudClusterSpec> = fc
  .record({
    kubernetesVersion: fc.constantFrom(...VERSIONS),
    nodeCount: fc.integer({ min: 0, max: 6 }),
    bounds: fc.option(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1, max: 8 }))),
    external: fc.boolean(),
    instanceType: fc.constantFrom('t3.medium', 't3.large'),
    spotEnabled: fc.boolean(),
    tags: fc.dictionary(fc.constantFrom('team', 'env'), fc.constantFrom('a', 'b'), { maxKeys: 2 }),
    nodeRoleArn: fc.option(fc.constantFrom(role('eks-node'), role('custom-node')), { nil: undefined }),
    clusterRoleArn: fc.option(fc.constantFrom(role('eks-cluster'), role('other')), { nil: undefined }),
    network: fc.option(
      fc.record({
        subnetIds: fc.constantFrom(...SUBNETS),
        securityGroupIds: fc.option(fc.constantFrom(['sg-0000000a'], []), { nil: undefined }),
      }),
      { nil: undefined },
    ),
    adopt: fc.boolean(),
  })
  .map(({ bounds, external, ...r }) => {
    const [a, b] = bounds ?? (external ? [0, 8] : [undefined, undefined]);
    const clean = Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined));
    return specSchema.parse({
      provider: 'aws',
      region: 'us-east-1',
      clusterName: 'via',
      ...clean,
      ...(a !== undefined && b !== undefined
        ? { minSize: Math.min(a, b, r.nodeCount), maxSize: Math.max(a, b, r.nodeCount, 1) }
        : {}),
      scaling: external ? 'external' : 'managed',
    });
  });

/** How the cluster was touched outside CloudOrch between the two specs. */
const tamperArb = fc.record({
  ownership: fc.constantFrom('kept', 'kept', 'removed', 'released'),
  strayTag: fc.boolean(),
  desiredSize: fc.option(fc.integer({ min: 0, max: 8 }), { nil: undefined }),
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
  let o = start;
  for (let i = 0; i < 2 * VERSIONS.length + 12; i++) {
    const action = firstAction(plan(d, o, defaults));
    if (!action) return o;
    if (action.kind === 'Wait') {
      o = settle(o);
      continue;
    }
    check(o, action);
    o = applyToModel(o, action);
  }
  throw new Error('did not settle');
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
  const size = t.desiredSize;
  const scaled =
    ng && size !== undefined && size >= ng.scaling.minSize && size <= ng.scaling.maxSize
      ? [{ ...ng, scaling: { ...ng.scaling, desiredSize: size } }, ...rest]
      : o.nodegroups;
  return { ...o, cluster: { ...c, tags }, nodegroups: scaled };
}

/** The operations that converge what drifts on `o`. */
function allowedBy(d: Desired, o: Observation, defaults: PlanDefaults): Set<Kind> {
  const allowed = new Set<Kind>();
  for (const item of detectDrift(d.spec, o, defaults))
    for (const kind of ruleOfDrift(item.field)?.rule.via ?? resourceVia(d, o, defaults)) allowed.add(kind);
  // adopt is a behaviour field: it has no counterpart in EKS, but set on a cluster that is not yet
  // this record's, it makes the planner claim the cluster.
  if (d.spec.adopt && o.cluster && ownershipOf(o.cluster.tags, ID) !== 'owned')
    for (const kind of FIELD_TABLE.adopt.via) allowed.add(kind);
  return allowed;
}

describe('field table: complete for planning', () => {
  it('every call the planner makes converges a field that drifts on its input', () => {
    fc.assert(
      fc.property(specArb, defaultsArb, specArb, defaultsArb, tamperArb, (s0, df0, s1, df1, t) => {
        const empty: Observation = { cluster: null, nodegroups: [], observedAt: 'now' };
        const start = tamper(reconcile(desiredOf({ ...s0, adopt: false }), empty, df0), t);
        const d = desiredOf(s1);
        const final = reconcile(d, start, df1, (o, op) => {
          expect([...allowedBy(d, o, df1)], `${op.kind} on ${JSON.stringify(o)}`).toContain(op.kind);
        });
        // Once nothing more is called, what still drifts is what the planner reports as impossible.
        const after = plan(d, final, df1);
        const reported = new Set(after.flatMap((op) => (op.kind === 'Impossible' ? [op.field] : [])));
        if (reported.size === 0 && final.cluster && ownershipOf(final.cluster.tags, ID) === 'owned')
          expect(detectDrift(d.spec, final, df1)).toEqual([]);
      }),
      { numRuns: 300, seed: 1312 },
    );
  });
});
