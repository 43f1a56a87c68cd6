/**
 * The planner and the provider together against the simulator: drift made through the admin API is
 * observed as fact and converged back with one EKS call per step. The clock moves only when the loop
 * waits, so each run issues the same calls.
 */
import { CreateClusterCommand } from '@aws-sdk/client-eks';
import { describe, expect, it } from 'vitest';
import { OWNER_TAG } from '../../lambdas/core/ownership.js';
import { DEFAULT_DURATIONS } from '../../local/eks-sim/model.js';
import { converge, DEFAULTS, desiredOf } from './support/reconcile.js';
import { REGION, useSimProvider } from './support/servers.js';

const SPEC = {
  provider: 'aws',
  region: REGION,
  clusterName: 'drifty',
  kubernetesVersion: '1.31',
  nodeCount: 2,
  instanceType: 't3.large',
  tags: { team: 'a' },
} as const;
const ID = 'team-a/drifty';

describe('reconcile against the simulator', () => {
  const h = useSimProvider({ seed: 21, speed: 1 });
  const wait = () => ({ onWait: () => h.admin.advance(DEFAULT_DURATIONS.clusterVersionUpdate) });

  it('converges from nothing, then puts drifted size and tags back', async () => {
    const first = await converge(h.provider, desiredOf(ID, SPEC), DEFAULTS, wait());
    expect(first.applied.map((op) => op.kind)).toEqual(['CreateCluster', 'CreateNodegroup']);
    const ng = first.observation.nodegroups[0];
    expect(ng).toMatchObject({ instanceTypes: ['t3.large'], scaling: { desiredSize: 2 }, version: '1.31' });

    await h.admin.driftNodegroup('drifty', ng?.name ?? '', { scaling: { desiredSize: 5, maxSize: 5 } });
    await h.admin.driftCluster('drifty', {
      tags: { [OWNER_TAG]: ID, 'cloudorch.io/managed-by': 'cloudorch' },
    });
    const healed = await converge(h.provider, desiredOf(ID, SPEC), DEFAULTS, wait());
    expect(healed.applied.map((op) => op.kind)).toEqual(['UpdateNodegroupConfig', 'TagResource']);
    expect(healed.observation.nodegroups[0]?.scaling).toEqual({ minSize: 2, maxSize: 2, desiredSize: 2 });
    expect(healed.observation.cluster?.tags.team).toBe('a');
  });

  it('replaces the node group when the instance type changes: create the new one, then delete the old', async () => {
    const first = await converge(h.provider, desiredOf(ID, SPEC), DEFAULTS, wait());
    const old = first.observation.nodegroups[0]?.name ?? '';
    const changed = await converge(
      h.provider,
      desiredOf(ID, { ...SPEC, instanceType: 'm5.large' }, 2),
      DEFAULTS,
      wait(),
    );
    expect(changed.applied.map((op) => op.kind)).toEqual(['CreateNodegroup', 'DeleteNodegroup']);
    expect(changed.applied[1]).toMatchObject({ nodegroupName: old });
    expect(changed.observation.nodegroups.map((n) => n.instanceTypes)).toEqual([['m5.large']]);
  });

  it('adopts an unowned cluster only when asked: tag it, then manage it', async () => {
    await h.eks.send(
      new CreateClusterCommand({
        name: 'drifty',
        version: '1.31',
        roleArn: DEFAULTS.clusterRoleArn,
        resourcesVpcConfig: { subnetIds: DEFAULTS.subnetIds },
      }),
    );
    await h.admin.advance(DEFAULT_DURATIONS.clusterCreate);
    await expect(converge(h.provider, desiredOf(ID, SPEC), DEFAULTS, wait())).rejects.toThrow(/adopt/);
    expect((await h.admin.calls()).TagResource).toBeUndefined();
    const adopted = await converge(h.provider, desiredOf(ID, { ...SPEC, adopt: true }), DEFAULTS, wait());
    expect(adopted.applied.map((op) => op.kind)).toEqual(['TagResource', 'CreateNodegroup', 'TagResource']);
    expect(adopted.observation.cluster?.tags[OWNER_TAG]).toBe(ID);
  });
});
