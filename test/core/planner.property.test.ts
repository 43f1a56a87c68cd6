import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { catalog } from '../../lambdas/core/catalog.js';
import { Health } from '../../lambdas/core/health.js';
import type { Observation, ObservedNodegroup } from '../../lambdas/core/observation.js';
import { ownershipOf, ownershipTags } from '../../lambdas/core/ownership.js';
import { detectDrift } from '../../lambdas/core/plan/fields.js';
import { desiredNodegroup } from '../../lambdas/core/plan/nodegroup.js';
import { firstAction, plan } from '../../lambdas/core/plan/plan.js';
import { type Desired, isMutating, type MutatingOperation } from '../../lambdas/core/plan/types.js';
import { type CloudClusterSpec, specSchema } from '../../lambdas/core/spec/schema.js';
import { applyToModel, settle } from './support/eks-model.js';
import { ACCOUNT, DEFAULTS, ID } from './support/fixtures.js';

const VERSIONS = Object.keys(catalog.kubernetesVersions);
const TYPES = ['t3.medium', 't3.large', 'm6i.large'];
const TAG_KEYS = ['team', 'env', 'owner', 'cost'];

const tagsArb = fc.dictionary(fc.constantFrom(...TAG_KEYS), fc.constantFrom('a', 'b'), { maxKeys: 3 });

const specArb: fc.Arbitrary<CloudClusterSpec> = fc
  .record({
    kubernetesVersion: fc.constantFrom(...VERSIONS),
    nodeCount: fc.integer({ min: 0, max: 12 }),
    bounds: fc.option(fc.tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 1, max: 15 }))),
    external: fc.boolean(),
    instanceType: fc.constantFrom(...TYPES),
    spotEnabled: fc.boolean(),
    tags: tagsArb,
    adopt: fc.boolean(),
    paused: fc.constant(false),
  })
  .map(({ bounds, external, ...r }) => {
    let minSize: number | undefined;
    let maxSize: number | undefined;
    if (bounds || external) {
      const [a, b] = bounds ?? [0, 10];
      minSize = Math.min(a, b, r.nodeCount);
      maxSize = Math.max(a, b, r.nodeCount, 1);
    }
    return specSchema.parse({
      provider: 'aws',
      region: 'us-east-1',
      clusterName: 'prop',
      ...r,
      ...(minSize !== undefined ? { minSize, maxSize } : {}),
      scaling: external ? 'external' : 'managed',
    });
  });

/**
 * A random, EKS-consistent starting point: nothing, or a cluster with up to two legacy node groups
 * and possibly the node group the spec wants, with random scaling, tags and version.
 */
const observedArb = (s: CloudClusterSpec): fc.Arbitrary<Observation> =>
  fc
    .option(
      fc.record({
        version: fc.constantFrom(...VERSIONS),
        owned: fc.constantFrom('owned', 'owned', 'unowned'),
        tags: tagsArb,
        status: fc.constantFrom('ACTIVE', 'ACTIVE', 'UPDATING', 'CREATING'),
        ngs: fc.array(
          fc.record({
            behind: fc.integer({ min: 0, max: 2 }),
            instanceType: fc.constantFrom(...TYPES),
            spot: fc.boolean(),
            desiredSize: fc.integer({ min: 0, max: 12 }),
            tags: tagsArb,
            status: fc.constantFrom('ACTIVE', 'ACTIVE', 'CREATING', 'UPDATING', 'DELETING'),
          }),
          { maxLength: 2 },
        ),
        current: fc.option(
          fc.record({
            behind: fc.integer({ min: 0, max: 2 }),
            min: fc.integer({ min: 0, max: 6 }),
            span: fc.integer({ min: 0, max: 10 }),
            at: fc.integer({ min: 0, max: 10 }),
            tags: tagsArb,
          }),
        ),
      }),
      { freq: 4 },
    )
    .map((c): Observation => {
      if (!c) return { cluster: null, nodegroups: [], observedAt: 'now' };
      const arn = `arn:aws:eks:us-east-1:${ACCOUNT}:cluster/prop`;
      const cv = Number(c.version.split('.')[1]);
      const nodegroups: ObservedNodegroup[] = c.ngs.map((n, i) => ({
        name: `legacy-${i}`,
        arn: `arn:aws:eks:us-east-1:${ACCOUNT}:nodegroup/prop/legacy-${i}/x`,
        version: `1.${Math.max(cv - n.behind, 28)}`,
        status: n.status,
        health:
          n.status === 'ACTIVE'
            ? Health.Healthy
            : n.status === 'DELETING'
              ? Health.Deleting
              : Health.Progressing,
        instanceTypes: [n.instanceType],
        capacityType: n.spot ? 'SPOT' : 'ON_DEMAND',
        scaling: { minSize: 0, maxSize: Math.max(n.desiredSize, 1), desiredSize: n.desiredSize },
        nodeRole: DEFAULTS.nodeRoleArn!,
        subnets: DEFAULTS.subnetIds!,
        tags: n.tags,
      }));
      if (c.current) {
        const shape = desiredNodegroup(s, DEFAULTS);
        const maxSize = Math.max(c.current.min + c.current.span, 1);
        nodegroups.push({
          ...nodegroups[0]!,
          ...(nodegroups[0]
            ? {}
            : {
                status: 'ACTIVE',
                health: Health.Healthy,
                nodeRole: DEFAULTS.nodeRoleArn!,
                subnets: DEFAULTS.subnetIds!,
              }),
          name: shape.name,
          arn: `arn:aws:eks:us-east-1:${ACCOUNT}:nodegroup/prop/${shape.name}/x`,
          version: `1.${Math.max(cv - c.current.behind, 28)}`,
          instanceTypes: [shape.instanceType],
          capacityType: shape.capacityType,
          scaling: {
            minSize: c.current.min,
            maxSize,
            desiredSize: Math.min(c.current.min + c.current.at, maxSize),
          },
          tags: c.current.tags,
        });
      }
      return {
        cluster: {
          name: 'prop',
          arn,
          region: 'us-east-1',
          version: c.version,
          status: c.status,
          health: c.status === 'ACTIVE' ? Health.Healthy : Health.Progressing,
          roleArn: DEFAULTS.clusterRoleArn!,
          subnetIds: DEFAULTS.subnetIds!,
          securityGroupIds: [],
          tags: c.owned === 'owned' ? { ...c.tags, ...ownershipTags(ID) } : c.tags,
        },
        nodegroups,
        observedAt: 'now',
      };
    });

/** Version steps dominate: 2 per minor, plus create, replace, scale, tags and settling. */
const STEP_BOUND = 2 * VERSIONS.length + 12;

interface Run {
  final: Observation;
  applied: MutatingOperation[];
}

function reconcile(d: Desired, start: Observation): Run {
  let o = start;
  const applied: MutatingOperation[] = [];
  for (let i = 0; i < STEP_BOUND; i++) {
    const action = firstAction(plan(d, o, DEFAULTS));
    if (!action) return { final: o, applied };
    if (action.kind === 'Wait') {
      o = settle(o);
      continue;
    }
    // A capacity gap would be deleting a node group while no other ACTIVE group serves the cluster.
    if (action.kind === 'DeleteNodegroup' && !d.deletionRequested) {
      const others = o.nodegroups.filter(
        (n) => n.name !== action.nodegroupName && n.health === Health.Healthy,
      );
      const replacementReady = others.length > 0;
      const deletingAWrongGroupWithDesiredName = !replacementReady && o.nodegroups.length === 1;
      expect(replacementReady || deletingAWrongGroupWithDesiredName, 'capacity gap').toBe(true);
    }
    o = applyToModel(o, action);
    applied.push(action);
  }
  throw new Error(
    `did not settle within ${STEP_BOUND} steps; applied ${applied.map((a) => a.kind).join(', ')}`,
  );
}

describe('planner: property', () => {
  it('converges within a bounded number of steps, never breaks an EKS rule, and then plans nothing', () => {
    fc.assert(
      fc.property(
        specArb.chain((s) => fc.tuple(fc.constant(s), observedArb(s))),
        ([s, start]) => {
          const d: Desired = { id: ID, spec: s, generation: 1, deletionRequested: false };
          const unowned = start.cluster !== null && ownershipOf(start.cluster.tags, ID) !== 'owned';
          const downgrade =
            start.cluster !== null &&
            Number(start.cluster.version.split('.')[1]) > Number(s.kubernetesVersion.split('.')[1]);
          const { final, applied } = reconcile(d, start);
          if (unowned && !s.adopt) {
            expect(applied).toEqual([]); // never touch an unowned cluster
            return;
          }
          const after = plan(d, final, DEFAULTS);
          expect(after.filter(isMutating)).toEqual([]); // idempotent once converged
          if (downgrade) {
            expect(after.some((op) => op.kind === 'Impossible' && op.field === 'kubernetesVersion')).toBe(
              true,
            );
            return;
          }
          expect(detectDrift(s, final, DEFAULTS)).toEqual([]);
          expect(after).toEqual([]);
        },
      ),
      { numRuns: 400, seed: 20261129 },
    );
  });

  it('deletes owned clusters in EKS order and leaves nothing behind', () => {
    fc.assert(
      fc.property(
        specArb.chain((s) => fc.tuple(fc.constant(s), observedArb(s))),
        ([s, start]) => {
          const d: Desired = {
            id: ID,
            spec: { ...s, deletionPolicy: 'Delete', adopt: true },
            generation: 1,
            deletionRequested: true,
          };
          const { final, applied } = reconcile(d, start);
          // A cluster this record does not own is never touched by its deletion, adopt or not.
          if (start.cluster && ownershipOf(start.cluster.tags, ID) !== 'owned') {
            expect(applied).toEqual([]);
            return;
          }
          expect(final.cluster).toBeNull();
          const kinds = applied.map((a) => a.kind);
          expect(kinds.every((k) => k === 'DeleteNodegroup' || k === 'DeleteCluster')).toBe(true);
          if (start.cluster) expect(kinds.at(-1)).toBe('DeleteCluster');
        },
      ),
      { numRuns: 200, seed: 7 },
    );
  });
});
