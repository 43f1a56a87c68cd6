/** The planner with several pools: each converges on its own, in spec order, without a capacity gap. */
import { describe, expect, it } from 'vitest';
import { Health } from '../../lambdas/core/health.js';
import { MANAGED_BY_TAG, OWNER_TAG, POOL_TAG } from '../../lambdas/core/ownership.js';
import { detectDrift } from '../../lambdas/core/plan/fields.js';
import { describeOperation, plan } from '../../lambdas/core/plan/plan.js';
import type { Operation } from '../../lambdas/core/plan/types.js';
import type { CloudClusterSpecInput } from '../../lambdas/core/spec/schema.js';
import {
  cluster,
  converged,
  DEFAULTS,
  desired,
  nodegroupFor,
  observation,
  spec,
} from './support/fixtures.js';
import { GENERAL, SPOT, SYSTEM } from './support/pools.js';

const three = (over: Partial<CloudClusterSpecInput> = {}) =>
  ({ nodeGroups: [SYSTEM, GENERAL, SPOT], ...over }) as Partial<CloudClusterSpecInput>;
const s3 = spec(three());
const kinds = (ops: readonly Operation[]) => ops.map((o) => o.kind);
const lines = (ops: readonly Operation[]) => ops.map(describeOperation);

describe('planner: pools', () => {
  it('creates a 3-pool cluster from nothing, pools in spec order, each tagged with its pool', () => {
    const ops = plan(desired(three()), observation(null), DEFAULTS);
    expect(kinds(ops)).toEqual(['CreateCluster', 'CreateNodegroup', 'CreateNodegroup', 'CreateNodegroup']);
    const creates = ops.filter((o) => o.kind === 'CreateNodegroup');
    expect(creates.map((o) => o.pool)).toEqual(['system', 'general', 'spot']);
    expect(creates.map((o) => o.tags[POOL_TAG])).toEqual(['system', 'general', 'spot']);
    expect(creates[0]).toMatchObject({ labels: { role: 'system' }, taints: SYSTEM.taints });
    expect(creates[2]).toMatchObject({ instanceTypes: ['m5.large', 'm6i.large'], capacityType: 'SPOT' });
    expect(new Set(creates.map((o) => o.nodegroupName)).size).toBe(3);
  });

  it('a converged 3-pool cluster needs nothing and shows no drift', () => {
    expect(plan(desired(three()), converged(s3), DEFAULTS)).toEqual([]);
    expect(detectDrift(s3, converged(s3), DEFAULTS)).toEqual([]);
  });

  it('a pool added is one create; the others are untouched', () => {
    const two = spec(three({ nodeGroups: [SYSTEM, GENERAL] }));
    const ops = plan(desired(three()), converged(two), DEFAULTS);
    expect(lines(ops)).toEqual([
      expect.stringMatching(/^create node group cloudorch-spot-m5-large-spot-\w+ for pool spot/),
    ]);
  });

  it('a pool removed is deleted only once every remaining pool is ACTIVE', () => {
    const o = converged(s3);
    const d = desired(three({ nodeGroups: [SYSTEM, GENERAL] }));
    expect(plan(d, o, DEFAULTS)).toEqual([
      expect.objectContaining({
        kind: 'DeleteNodegroup',
        nodegroupName: o.nodegroups[2]!.name,
        reason: 'pool-removed',
        pool: 'spot',
      }),
    ]);
    // Another pool still coming up: the removal waits for it.
    const creating = observation(o.cluster, [
      { ...o.nodegroups[0]!, status: 'CREATING', health: Health.Progressing },
      ...o.nodegroups.slice(1),
    ]);
    expect(kinds(plan(d, creating, DEFAULTS))).toEqual(['Wait']);
    // A pool whose group is missing is created before the removal.
    const missing = observation(o.cluster, o.nodegroups.slice(1));
    expect(kinds(plan(d, missing, DEFAULTS))).toEqual(['CreateNodegroup', 'DeleteNodegroup']);
  });

  it("one pool's instance type change replaces only that pool's group, new before old", () => {
    const changed = three({ nodeGroups: [SYSTEM, { ...GENERAL, instanceTypes: ['c6i.large'] }, SPOT] });
    const o = converged(s3);
    const ops = plan(desired(changed), o, DEFAULTS);
    expect(kinds(ops)).toEqual(['CreateNodegroup', 'DeleteNodegroup']);
    expect(ops[0]).toMatchObject({ pool: 'general', instanceTypes: ['c6i.large'] });
    expect(ops[1]).toMatchObject({
      nodegroupName: o.nodegroups[1]!.name,
      reason: 'replaced',
      pool: 'general',
    });
    expect(detectDrift(spec(changed), o, DEFAULTS).map((i) => i.field)).toEqual([
      'nodeGroups[general]',
      `nodeGroups[general].instanceTypes (node group ${o.nodegroups[1]!.name})`,
    ]);
  });

  it('labels, taints and sizes change in place in one UpdateNodegroupConfig', () => {
    const changed = three({
      nodeGroups: [
        {
          ...SYSTEM,
          nodeCount: 3,
          labels: { role: 'core' },
          taints: [{ key: 'dedicated', value: 'sys', effect: 'NO_EXECUTE' }],
        },
        GENERAL,
        SPOT,
      ],
    });
    const ops = plan(desired(changed), converged(s3), DEFAULTS);
    expect(ops).toEqual([
      expect.objectContaining({
        kind: 'UpdateNodegroupConfig',
        pool: 'system',
        scaling: { minSize: 3, maxSize: 3, desiredSize: 3 },
        labels: { addOrUpdateLabels: { role: 'core' }, removeLabels: [] },
        taints: {
          addOrUpdateTaints: [{ key: 'dedicated', value: 'sys', effect: 'NO_EXECUTE' }],
          removeTaints: [{ key: 'CriticalAddonsOnly', effect: 'NO_SCHEDULE' }],
        },
      }),
    ]);
    expect(ops[0]).not.toHaveProperty('updateConfig');
  });

  it('1.32 -> 1.34 with 3 pools: CP 1.33, pools 1.33 in spec order, CP 1.34, pools 1.34', () => {
    const old = spec(three({ kubernetesVersion: '1.32' }));
    const o = converged(old);
    const ops = plan(desired(three({ kubernetesVersion: '1.34' })), o, DEFAULTS);
    const [a, b, c] = o.nodegroups.map((ng) => ng.name);
    expect(lines(ops)).toEqual([
      'upgrade control plane 1.32 -> 1.33',
      `upgrade node group ${a} (pool system) 1.32 -> 1.33`,
      `upgrade node group ${b} (pool general) 1.32 -> 1.33`,
      `upgrade node group ${c} (pool spot) 1.32 -> 1.33`,
      'upgrade control plane 1.33 -> 1.34',
      `upgrade node group ${a} (pool system) 1.33 -> 1.34`,
      `upgrade node group ${b} (pool general) 1.33 -> 1.34`,
      `upgrade node group ${c} (pool spot) 1.33 -> 1.34`,
    ]);
  });

  it('drift on one pool is corrected without touching the others, and names the pool', () => {
    const o = converged(s3);
    const drifted = observation(o.cluster, [
      o.nodegroups[0]!,
      { ...o.nodegroups[1]!, scaling: { minSize: 3, maxSize: 3, desiredSize: 1 } },
      o.nodegroups[2]!,
    ]);
    expect(detectDrift(s3, drifted, DEFAULTS)).toEqual([
      { field: 'nodeGroups[general].nodeCount', desired: '3', observed: '1' },
    ]);
    expect(plan(desired(three()), drifted, DEFAULTS)).toEqual([
      expect.objectContaining({
        kind: 'UpdateNodegroupConfig',
        pool: 'general',
        scaling: { minSize: 3, maxSize: 3, desiredSize: 3 },
      }),
    ]);
  });

  it('an external pool keeps the size its autoscaler chose', () => {
    const o = converged(s3);
    const scaled = observation(o.cluster, [
      ...o.nodegroups.slice(0, 2),
      { ...o.nodegroups[2]!, scaling: { minSize: 0, maxSize: 10, desiredSize: 7 } },
    ]);
    expect(plan(desired(three()), scaled, DEFAULTS)).toEqual([]);
  });

  it('a foreign node group is drift, and its deletion is planned last for the policy to decide', () => {
    const o = converged(s3);
    const foreign = nodegroupFor(s3, { name: 'team-made', tags: { team: 'a' } }, 'general');
    const withForeign = observation(o.cluster, [...o.nodegroups, foreign]);
    expect(detectDrift(s3, withForeign, DEFAULTS)).toEqual([
      {
        field: 'nodeGroups (node group team-made)',
        desired: 'absent',
        observed: 'created outside CloudOrch',
      },
    ]);
    expect(plan(desired(three()), withForeign, DEFAULTS)).toEqual([
      expect.objectContaining({ kind: 'DeleteNodegroup', nodegroupName: 'team-made', reason: 'foreign' }),
    ]);
  });

  it("a node group from before pools (no pool tag) is the default pool's; with no default pool listed it is removed last", () => {
    const flat = spec();
    const legacy = nodegroupFor(flat);
    expect(legacy.tags[POOL_TAG]).toBeUndefined();
    expect(legacy.tags[OWNER_TAG] && legacy.tags[MANAGED_BY_TAG]).toBeTruthy();
    const d = desired(three({ nodeGroups: [GENERAL] }));
    const ops = plan(d, observation(cluster(), [legacy]), DEFAULTS);
    expect(ops).toEqual([
      expect.objectContaining({ kind: 'CreateNodegroup', pool: 'general' }),
      expect.objectContaining({
        kind: 'DeleteNodegroup',
        nodegroupName: legacy.name,
        reason: 'pool-removed',
        pool: 'default',
      }),
    ]);
  });

  it('a failed pool is reported and left alone; the other pools still converge', () => {
    const o = converged(s3);
    const broken = observation(o.cluster, [
      { ...o.nodegroups[0]!, status: 'CREATE_FAILED', health: Health.Failed },
      { ...o.nodegroups[1]!, scaling: { minSize: 3, maxSize: 3, desiredSize: 1 } },
      o.nodegroups[2]!,
    ]);
    const ops = plan(desired(three()), broken, DEFAULTS);
    expect(ops).toEqual([
      expect.objectContaining({ kind: 'Impossible', field: 'nodeGroups[system]' }),
      expect.objectContaining({ kind: 'UpdateNodegroupConfig', pool: 'general' }),
    ]);
  });

  it('the control plane does not step while a group CloudOrch will not upgrade is behind it', () => {
    const old = spec(three({ kubernetesVersion: '1.33' }));
    const o = converged(old);
    const broken = observation(o.cluster, [
      { ...o.nodegroups[0]!, version: '1.32', status: 'DEGRADED', health: Health.Failed },
      ...o.nodegroups.slice(1),
    ]);
    const ops = plan(desired(three({ kubernetesVersion: '1.34' })), broken, DEFAULTS);
    expect(ops.every((op) => op.kind === 'Impossible')).toBe(true);
    expect(ops.map((op) => op.kind === 'Impossible' && op.field)).toContain('kubernetesVersion');
  });

  it("a foreign group holding a pool's derived name is never taken for the pool's: the name is reported taken", () => {
    const o = converged(s3);
    const impostor = { ...o.nodegroups[1]!, tags: { team: 'a' } };
    const ops = plan(
      desired(three()),
      observation(o.cluster, [o.nodegroups[0]!, impostor, o.nodegroups[2]!]),
      DEFAULTS,
    );
    expect(ops).toEqual([
      expect.objectContaining({
        kind: 'Impossible',
        field: 'nodeGroups[general]',
        reason: expect.stringMatching(/taken by a group CloudOrch did not create/),
      }),
    ]);
  });

  it("a group whose pool tag was removed is never taken for the default pool's; it waits for every pool", () => {
    const withDefault = three({
      nodeGroups: [{ name: 'default', instanceTypes: ['t3.medium'], nodeCount: 1 }, SYSTEM],
    });
    const before = spec(withDefault);
    const o = converged(before);
    const untagged = {
      ...o.nodegroups[1]!,
      tags: Object.fromEntries(Object.entries(o.nodegroups[1]!.tags).filter(([k]) => k !== POOL_TAG)),
    };
    // The system pool changes instance type: its new group comes first, whatever the old one lost.
    const changed = three({
      nodeGroups: [
        { name: 'default', instanceTypes: ['t3.medium'], nodeCount: 1 },
        { ...SYSTEM, instanceTypes: ['t3.xlarge'] },
      ],
    });
    const ops = plan(desired(changed), observation(o.cluster, [o.nodegroups[0]!, untagged]), DEFAULTS);
    expect(kinds(ops)).toEqual(['CreateNodegroup', 'DeleteNodegroup']);
    expect(ops[0]).toMatchObject({ pool: 'system' });
    expect(ops[1]).toMatchObject({ nodegroupName: untagged.name, reason: 'pool-removed' });
    expect(ops[1]).not.toHaveProperty('pool');
  });

  it("reordering a spot pool's instance types, or setting a field to the value EKS runs, replaces nothing", () => {
    const o = converged(s3);
    const reordered = three({
      nodeGroups: [SYSTEM, GENERAL, { ...SPOT, instanceTypes: ['m6i.large', 'm5.large'] }],
    });
    expect(plan(desired(reordered), o, DEFAULTS)).toEqual([]);
    const explicit = three({
      nodeGroups: [{ ...SYSTEM, amiType: 'AL2023_x86_64_STANDARD', diskSize: 20 }, GENERAL, SPOT],
    });
    expect(plan(desired(explicit), o, DEFAULTS)).toEqual([]);
    expect(detectDrift(spec(explicit), o, DEFAULTS)).toEqual([]);
    // A value EKS does not run still replaces the group.
    const bigger = three({ nodeGroups: [{ ...SYSTEM, diskSize: 50 }, GENERAL, SPOT] });
    expect(kinds(plan(desired(bigger), o, DEFAULTS))).toEqual(['CreateNodegroup', 'DeleteNodegroup']);
  });
});
