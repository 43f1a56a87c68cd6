/**
 * The planner against an independent EKS model (support/eks-model.ts), over specs of 1-4 pools and
 * starts from nothing, from a converged cluster with drifted pools, from older versions, with groups
 * of removed pools and groups CloudOrch did not create. The rules each step must keep are in
 * support/planner-check.ts, shared with the mutant test that proves they catch broken planners.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Health } from '../../lambdas/core/health.js';
import type { Observation } from '../../lambdas/core/observation.js';
import { ownershipTags } from '../../lambdas/core/ownership.js';
import { firstAction, plan } from '../../lambdas/core/plan/plan.js';
import { shortHash } from '../../lambdas/core/plan/tokens.js';
import type { CreateNodegroup, Desired, MutatingOperation } from '../../lambdas/core/plan/types.js';
import { type CloudClusterSpec, specSchema } from '../../lambdas/core/spec/schema.js';
import { validateSpec } from '../../lambdas/core/spec/validate.js';
import { applyToModel, settle } from './support/eks-model.js';
import { cluster, converged, DEFAULTS, ID, nodegroupFor, observation } from './support/fixtures.js';
import { checkConvergence, converge, PropertyViolation, scenarioArb } from './support/planner-check.js';

describe('planner: property, several pools', () => {
  it('converges within its bound without a capacity gap or an EKS rule broken, then plans nothing', () => {
    const seen = { fromNothing: 0, upgrades: 0, orphans: 0, foreign: 0, replacements: 0 };
    fc.assert(
      fc.property(scenarioArb, (sc) => {
        const { applied } = checkConvergence(plan, sc);
        const kinds = new Set(applied.map((a) => a.kind));
        seen.fromNothing += sc.start.cluster ? 0 : 1;
        seen.upgrades += kinds.has('UpdateClusterVersion') ? 1 : 0;
        for (const a of applied)
          if (a.kind === 'DeleteNodegroup') {
            seen.orphans += a.reason === 'pool-removed' ? 1 : 0;
            seen.foreign += a.reason === 'foreign' ? 1 : 0;
            seen.replacements += a.reason === 'replaced' ? 1 : 0;
          }
      }),
      { numRuns: 200, seed: 20261201 },
    );
    // The generators reach every kind of start the property is about.
    for (const [kind, n] of Object.entries(seen)) expect(n, kind).toBeGreaterThan(10);
  });

  it('deletes an owned cluster of several pools, groups first, and leaves nothing behind', () => {
    fc.assert(
      fc.property(scenarioArb, (sc) => {
        const d: Desired = {
          id: ID,
          spec: { ...sc.spec, deletionPolicy: 'Delete' },
          generation: 1,
          deletionRequested: true,
        };
        let o = sc.start;
        const applied: MutatingOperation[] = [];
        for (let i = 0; i < 4 * sc.start.nodegroups.length + 4; i++) {
          const action = firstAction(plan(d, o, DEFAULTS));
          if (!action) break;
          if (action.kind === 'Wait') o = settle(o);
          else {
            o = applyToModel(o, action);
            applied.push(action);
          }
        }
        expect(o.cluster).toBeNull();
        const kinds = applied.map((a) => a.kind);
        expect(kinds.filter((k) => k === 'DeleteNodegroup')).toHaveLength(sc.start.nodegroups.length);
        if (sc.start.cluster) expect(kinds.at(-1)).toBe('DeleteCluster');
      }),
      { numRuns: 100, seed: 7 },
    );
  });
});

const TYPES = ['t3.medium', 't3.large', 'm6i.large'];

/** The seed's flat spec form, which validation turns into the one pool `default`. */
const flatSpecArb: fc.Arbitrary<CloudClusterSpec> = fc
  .record({
    kubernetesVersion: fc.constantFrom('1.31', '1.33'),
    nodeCount: fc.integer({ min: 0, max: 8 }),
    instanceType: fc.constantFrom(...TYPES),
    spotEnabled: fc.boolean(),
    external: fc.boolean(),
    tags: fc.dictionary(fc.constantFrom('team', 'env'), fc.constantFrom('a', 'b'), { maxKeys: 2 }),
  })
  .map(({ external, ...r }) =>
    specSchema.parse({
      provider: 'aws',
      region: 'us-east-1',
      clusterName: 'demo',
      ...r,
      ...(external ? { scaling: 'external', minSize: 0, maxSize: Math.max(r.nodeCount, 1) } : {}),
    }),
  );

/** The node group name the seed derived, before pools existed: its hash inputs, written out again here. */
function seedName(s: CloudClusterSpec): string {
  const p = s.nodeGroups[0]!;
  const type = p.instanceTypes[0]!;
  const hash = shortHash([type, p.capacityType, DEFAULTS.nodeRoleArn!, ...[...DEFAULTS.subnetIds!].sort()]);
  return `cloudorch-${type.replaceAll('.', '-')}-${p.capacityType === 'SPOT' ? 'spot' : 'od'}-${hash}`;
}

/** A cluster the seed converged: its one group has no pool tag, and EKS reports its defaults. */
function seedConverged(s: CloudClusterSpec): Observation {
  const ng = nodegroupFor(s, { name: seedName(s), tags: { ...s.tags, ...ownershipTags(ID) } });
  return observation(cluster({ version: s.kubernetesVersion, tags: { ...s.tags, ...ownershipTags(ID) } }), [
    ng,
  ]);
}

describe('planner: property, flat specs as before pools', () => {
  it('creates the cluster and the one node group under the seed name, then nothing', () => {
    fc.assert(
      fc.property(flatSpecArb, (s) => {
        const { applied, final } = converge(plan, { spec: s, start: observation(null) }, 8);
        expect(applied.map((a) => a.kind)).toEqual(['CreateCluster', 'CreateNodegroup']);
        const create = applied[1] as CreateNodegroup;
        expect(create).toMatchObject({ nodegroupName: seedName(s), pool: 'default', labels: {}, taints: [] });
        expect(final.nodegroups.map((n) => n.health)).toEqual([Health.Healthy]);
      }),
      { numRuns: 100, seed: 31 },
    );
  });

  it('plans nothing for a cluster the seed converged', () => {
    fc.assert(
      fc.property(flatSpecArb, (s) => {
        const d: Desired = { id: ID, spec: s, generation: 1, deletionRequested: false };
        expect(plan(d, seedConverged(s), DEFAULTS)).toEqual([]);
      }),
      { numRuns: 100, seed: 32 },
    );
  });
});

/** The input of `pools` on-demand pools p0, p1, ... of t3.medium, one node each, `over` on p0. */
function poolsInput(pools: number, over: Record<string, unknown> = {}) {
  return {
    provider: 'aws',
    region: 'us-east-1',
    clusterName: 'demo',
    kubernetesVersion: '1.33',
    nodeGroups: Array.from({ length: pools }, (_, i) => ({
      name: `p${i}`,
      instanceTypes: ['t3.medium'],
      nodeCount: 1,
      ...(i === 0 ? over : {}),
    })),
  };
}

/** That spec, validated; null if validation refuses it. */
function poolsSpec(pools: number, over: Record<string, unknown> = {}): CloudClusterSpec | null {
  const parsed = specSchema.safeParse(poolsInput(pools, over));
  return parsed.success ? parsed.data : null;
}

/**
 * The defect's symptom when the real planner runs against the model: EKS refusing a call, or a pool
 * losing its capacity. Empty when the spec no longer validates, or the planner stops short of it
 * (reporting the difference as impossible is a fix too).
 */
function defect(spec: CloudClusterSpec | null, start: (s: CloudClusterSpec) => Observation): string {
  if (!spec) return '';
  try {
    checkConvergence(plan, { spec, start: start(spec) });
    return '';
  } catch (e) {
    if (!(e instanceof PropertyViolation)) throw e;
    return /^(EKS refused|capacity gap)/.test(e.message) ? e.message : '';
  }
}

const SYMPTOM_FREE = '';

/** Defects the model found in the planner and the schema, each kept as a test of its fix. */
describe('planner: defects the EKS model found', () => {
  const issueAt = (over: Record<string, unknown>) => {
    const r = validateSpec({ ...poolsInput(1, over) });
    return r.ok ? [] : r.issues.map((i) => i.field);
  };

  it('a SPOT pool mixing x86 and Graviton types is refused by validation (one AMI per group)', () => {
    expect(issueAt({ capacityType: 'SPOT', instanceTypes: ['t3.large', 'm6g.large'] })).toEqual([
      'spec.nodeGroups.0.instanceTypes',
    ]);
  });

  it('an ARM AMI type on x86 instances is refused by validation', () => {
    expect(issueAt({ amiType: 'AL2023_ARM_64_STANDARD' })).toEqual(['spec.nodeGroups.0.amiType']);
  });

  it('the schema keeps one slot of the 30-group quota free: 30 pools are refused', () => {
    expect(poolsSpec(30)).toBeNull();
  });

  it('29 pools: a replacement runs beside its group within the quota', () => {
    const before = poolsSpec(29)!;
    expect(defect(poolsSpec(29, { capacityType: 'SPOT' }), () => converged(before))).toBe(SYMPTOM_FREE);
  });

  // p0 takes the place of the removed pool `gone`, and a foreign group fills the 30th slot.
  it("at the quota, a removed pool's group makes room before a new pool's group is created", () => {
    const gone = poolsSpec(29, { name: 'gone' })!;
    const full = (s: CloudClusterSpec) => {
      const o = converged(gone);
      const foreign = nodegroupFor(s, { name: 'team-made', tags: {} }, 'p1');
      return observation(o.cluster, [...o.nodegroups, foreign]);
    };
    expect(defect(poolsSpec(29), full)).toBe(SYMPTOM_FREE);
  });

  // A DEGRADED group (e.g. AsgInstanceLaunchFailures, no spot capacity) may run no node at all.
  it("a pool's old group is kept while its replacement is DEGRADED, not ACTIVE", () => {
    const before = poolsSpec(2)!;
    const degraded = (s: CloudClusterSpec) =>
      observation(cluster({ version: '1.33', tags: ownershipTags(ID) }), [
        ...converged(before).nodegroups,
        nodegroupFor(s, { status: 'DEGRADED', health: Health.Degraded }, 'p0'),
      ]);
    const s = poolsSpec(2, { capacityType: 'SPOT' })!;
    const ops = plan({ id: ID, spec: s, generation: 1, deletionRequested: false }, degraded(s), DEFAULTS);
    expect(ops.some((op) => op.kind === 'DeleteNodegroup')).toBe(false);
    expect(ops).toContainEqual(expect.objectContaining({ kind: 'Impossible', field: 'nodeGroups[p0]' }));
  });
});
