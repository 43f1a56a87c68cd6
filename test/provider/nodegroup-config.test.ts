/**
 * A pool's node group configuration through the provider and the simulator: what CreateNodegroup
 * sends is what observe reads back, and one UpdateNodegroupConfig operation is one EKS update however
 * many members it changes. The simulator runs at speed 1; the tests move its clock.
 */
import { DescribeUpdateCommand } from '@aws-sdk/client-eks';
import { beforeEach, describe, expect, it } from 'vitest';
import { POOL_TAG } from '../../lambdas/core/ownership.js';
import { ProviderBugError } from '../../lambdas/provider/ops.js';
import { DEFAULT_DURATIONS } from '../../local/eks-sim/model.js';
import { CLUSTER, configOp, createClusterOp, createNodegroupOp, ref } from './support/fixtures.js';
import { useSimProvider } from './support/servers.js';

const ACCOUNT = '000000000000';
const GPU = 'cloudorch-gpu-g5-xlarge-spot-abc123';

describe('node group configuration against the simulator', () => {
  const h = useSimProvider({ seed: 5, speed: 1 });

  beforeEach(async () => {
    await h.provider.apply(createClusterOp(ACCOUNT));
    await h.admin.advance(DEFAULT_DURATIONS.clusterCreate);
  });

  const gpuPool = () =>
    createNodegroupOp(ACCOUNT, '1.30', 1, {
      nodegroupName: GPU,
      pool: 'gpu',
      instanceTypes: ['g5.xlarge', 'g5.2xlarge'],
      amiType: 'AL2023_x86_64_NVIDIA',
      diskSize: 100,
      labels: { role: 'gpu', tier: 'batch' },
      taints: [
        { key: 'nvidia.com/gpu', value: 'true', effect: 'NO_SCHEDULE' },
        { key: 'dedicated', effect: 'NO_EXECUTE' },
      ],
      updateConfig: { maxUnavailablePercentage: 50 },
    });
  const observeGpu = async () => (await h.provider.observe(ref)).nodegroups.find((n) => n.name === GPU);

  it('CreateNodegroup: instance types, AMI type, disk size, labels, taints, updateConfig and the pool tag are observed', async () => {
    await h.provider.apply(gpuPool());
    await h.admin.advance(DEFAULT_DURATIONS.nodegroupCreate);
    expect(await observeGpu()).toMatchObject({
      status: 'ACTIVE',
      instanceTypes: ['g5.xlarge', 'g5.2xlarge'],
      capacityType: 'SPOT',
      amiType: 'AL2023_x86_64_NVIDIA',
      diskSize: 100,
      labels: { role: 'gpu', tier: 'batch' },
      taints: [
        { key: 'nvidia.com/gpu', value: 'true', effect: 'NO_SCHEDULE' },
        { key: 'dedicated', effect: 'NO_EXECUTE' },
      ],
      updateConfig: { maxUnavailablePercentage: 50 },
      tags: { [POOL_TAG]: 'gpu' },
    });
  });

  it('without disk size or updateConfig, observe reports what EKS chose (20 GiB, one node at a time)', async () => {
    await h.provider.apply(createNodegroupOp(ACCOUNT));
    await h.admin.advance(DEFAULT_DURATIONS.nodegroupCreate);
    expect((await h.provider.observe(ref)).nodegroups[0]).toMatchObject({
      amiType: 'AL2023_x86_64_STANDARD',
      diskSize: 20,
      labels: {},
      taints: [],
      updateConfig: { maxUnavailable: 1 },
    });
  });

  it('UpdateNodegroupConfig: labels and taints added and removed, updateConfig and scaling, as ONE EKS update', async () => {
    await h.provider.apply(gpuPool());
    await h.admin.advance(DEFAULT_DURATIONS.nodegroupCreate);
    await h.admin.resetCalls();
    const r = await h.provider.apply(
      configOp(
        {
          scaling: { minSize: 2, maxSize: 4, desiredSize: 3 },
          labels: { addOrUpdateLabels: { role: 'ml', zone: 'a' }, removeLabels: ['tier'] },
          taints: {
            addOrUpdateTaints: [{ key: 'team', value: 'ml', effect: 'PREFER_NO_SCHEDULE' }],
            removeTaints: [{ key: 'dedicated', effect: 'NO_EXECUTE' }],
          },
          updateConfig: { maxUnavailable: 2 },
        },
        1,
        GPU,
      ),
    );
    expect(r).toMatchObject({ kind: 'UpdateNodegroupConfig', status: 'InProgress' });
    const calls = await h.admin.calls();
    expect(calls.UpdateNodegroupConfig?.succeeded).toBe(1);
    const { update } = await h.eks.send(
      new DescribeUpdateCommand({ name: CLUSTER, nodegroupName: GPU, updateId: r.updateId }),
    );
    expect(update?.type).toBe('ConfigUpdate');

    await h.admin.advance(DEFAULT_DURATIONS.nodegroupConfigUpdate);
    const ng = await observeGpu();
    expect(ng).toMatchObject({
      status: 'ACTIVE',
      scaling: { minSize: 2, maxSize: 4, desiredSize: 3 },
      labels: { role: 'ml', zone: 'a' },
      taints: [
        { key: 'nvidia.com/gpu', value: 'true', effect: 'NO_SCHEDULE' },
        { key: 'team', value: 'ml', effect: 'PREFER_NO_SCHEDULE' },
      ],
      updateConfig: { maxUnavailable: 2 },
    });
    expect(ng?.labels).not.toHaveProperty('tier');
    // Immutable members are as they were created.
    expect(ng).toMatchObject({ amiType: 'AL2023_x86_64_NVIDIA', diskSize: 100 });
  });

  it('an update with nothing to change is refused before EKS sees it', async () => {
    await h.provider.apply(createNodegroupOp(ACCOUNT));
    await h.admin.advance(DEFAULT_DURATIONS.nodegroupCreate);
    await h.admin.resetCalls();
    const err = await h.provider
      .apply(configOp({ labels: { addOrUpdateLabels: {}, removeLabels: [] } }))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderBugError);
    expect((await h.admin.calls()).UpdateNodegroupConfig).toBeUndefined();
  });
});
