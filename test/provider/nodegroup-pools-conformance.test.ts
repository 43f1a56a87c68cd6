/**
 * Several node groups per cluster, with labels and taints, through the SDK against both servers the
 * provider is tested on (the EKS simulator and moto server). What both implement is asserted the same
 * way; where moto differs (update params, updateConfig at create, validation, quotas) a moto-only case
 * asserts moto's real answer, so the gap stays explicit (docs/eks-conformance.md lists it).
 */
import {
  CreateClusterCommand,
  CreateNodegroupCommand,
  type CreateNodegroupCommandInput,
  DeleteNodegroupCommand,
  DescribeClusterCommand,
  DescribeNodegroupCommand,
  EKSClient,
  ListNodegroupsCommand,
  type Nodegroup,
  UpdateNodegroupConfigCommand,
} from '@aws-sdk/client-eks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { POOL_TAG } from '../../lambdas/core/ownership.js';
import type { EksProvider } from '../../lambdas/provider/eks-provider.js';
import { configOp, createNodegroupOp } from './support/fixtures.js';
import {
  providerFor,
  REGION,
  roleArn,
  type ServerKind,
  startTarget,
  type Target,
  TEST_CREDENTIALS,
} from './support/servers.js';

const CLUSTER = 'pools';

async function poll<T>(read: () => Promise<T>, done: (v: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.each<ServerKind>(['sim', 'moto'])('node group pools against %s', (kind) => {
  let target: Target;
  let eks: EKSClient;
  let provider: EksProvider;
  const sim = kind === 'sim';
  const moto = kind === 'moto';

  beforeAll(async () => {
    target = await startTarget(kind);
    eks = new EKSClient({
      endpoint: target.url,
      region: REGION,
      credentials: TEST_CREDENTIALS,
      maxAttempts: 1,
    });
    provider = providerFor(target.url);
  });
  afterAll(async () => {
    provider?.clients.destroy();
    eks?.destroy();
    await target?.close();
  });
  beforeEach(async () => {
    await target.reset();
    await eks.send(
      new CreateClusterCommand({
        name: CLUSTER,
        version: '1.30',
        roleArn: roleArn(target.accountId, 'cluster'),
        resourcesVpcConfig: { subnetIds: ['subnet-a', 'subnet-b'] },
      }),
    );
    await poll(
      () => eks.send(new DescribeClusterCommand({ name: CLUSTER })),
      (r) => r.cluster?.status === 'ACTIVE',
      'the cluster',
    );
  });

  const input = (nodegroupName: string, over: Partial<CreateNodegroupCommandInput> = {}) => ({
    clusterName: CLUSTER,
    nodegroupName,
    subnets: ['subnet-a'],
    nodeRole: roleArn(target.accountId, 'node'),
    scalingConfig: { minSize: 1, maxSize: 3, desiredSize: 2 },
    ...over,
  });
  const describeNg = async (nodegroupName: string): Promise<Nodegroup> => {
    const r = await eks.send(new DescribeNodegroupCommand({ clusterName: CLUSTER, nodegroupName }));
    if (!r.nodegroup) throw new Error('DescribeNodegroup answered without a nodegroup');
    return r.nodegroup;
  };
  const active = (nodegroupName: string) =>
    poll(
      () => describeNg(nodegroupName),
      (ng) => ng.status === 'ACTIVE',
      nodegroupName,
    );

  const POOL_SPECS: (Partial<CreateNodegroupCommandInput> & { nodegroupName: string })[] = [
    {
      nodegroupName: 'system',
      labels: { role: 'system' },
      taints: [{ key: 'CriticalAddonsOnly', effect: 'NO_EXECUTE' }],
    },
    {
      nodegroupName: 'gpu',
      instanceTypes: ['g5.xlarge', 'g5.2xlarge'],
      labels: { role: 'gpu' },
      taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NO_SCHEDULE' }],
    },
    {
      nodegroupName: 'spot',
      capacityType: 'SPOT',
      instanceTypes: ['m5.large', 'm5a.large'],
      labels: { role: 'batch', lifecycle: 'spot' },
      taints: [{ key: 'spot', value: 'true', effect: 'PREFER_NO_SCHEDULE' }],
    },
  ];
  /** Built per test: the node role names the target's account. */
  const pools = (): CreateNodegroupCommandInput[] =>
    POOL_SPECS.map((p) => ({ ...input(p.nodegroupName), ...p }));

  const givenPools = async () => {
    for (const p of pools()) await eks.send(new CreateNodegroupCommand(p));
    for (const p of pools()) await active(p.nodegroupName as string);
  };

  it('three node groups of one cluster: each listed and described with its own labels, taints, instance and capacity types', async () => {
    await givenPools();
    const list = await eks.send(new ListNodegroupsCommand({ clusterName: CLUSTER }));
    expect([...(list.nodegroups ?? [])].sort()).toEqual(['gpu', 'spot', 'system']);
    for (const p of pools()) {
      const ng = await describeNg(p.nodegroupName as string);
      expect(ng.labels).toEqual(p.labels);
      expect(ng.taints).toEqual(p.taints);
      if (p.instanceTypes) expect(ng.instanceTypes).toEqual(p.instanceTypes);
      expect(ng.capacityType).toBe(p.capacityType ?? 'ON_DEMAND');
    }
  });

  it('deleting one node group leaves the others as they were', async () => {
    await givenPools();
    await eks.send(new DeleteNodegroupCommand({ clusterName: CLUSTER, nodegroupName: 'gpu' }));
    await poll(
      () => eks.send(new ListNodegroupsCommand({ clusterName: CLUSTER })),
      (r) => !r.nodegroups?.includes('gpu'),
      'gpu to be gone',
    );
    const list = await eks.send(new ListNodegroupsCommand({ clusterName: CLUSTER }));
    expect([...(list.nodegroups ?? [])].sort()).toEqual(['spot', 'system']);
    expect((await describeNg('system')).labels).toEqual({ role: 'system' });
    expect((await describeNg('spot')).taints).toEqual(POOL_SPECS[2]?.taints);
  });

  it('UpdateNodegroupConfig adds and removes taints and sets updateConfig; the result is the same on both', async () => {
    await givenPools();
    const { update } = await eks.send(
      new UpdateNodegroupConfigCommand({
        clusterName: CLUSTER,
        nodegroupName: 'spot',
        taints: {
          addOrUpdateTaints: [{ key: 'team', value: 'ml', effect: 'NO_EXECUTE' }],
          removeTaints: [{ key: 'spot', value: 'true', effect: 'PREFER_NO_SCHEDULE' }],
        },
        updateConfig: { maxUnavailablePercentage: 50 },
      }),
    );
    expect(update?.type).toBe('ConfigUpdate');
    // EKS reports one param per change (UpdateParamType); moto one per member, with types outside the enum.
    expect(update?.params?.map((p) => p.type)).toEqual(
      sim ? ['TaintsToAdd', 'TaintsToRemove', 'MaxUnavailablePercentage'] : ['Taints', 'UpdateConfig'],
    );
    const ng = await poll(
      () => describeNg('spot'),
      (n) => n.status === 'ACTIVE' && n.taints?.[0]?.key === 'team',
      'the update to apply',
    );
    expect(ng.taints).toEqual([{ key: 'team', value: 'ml', effect: 'NO_EXECUTE' }]);
    expect(ng.updateConfig).toEqual({ maxUnavailablePercentage: 50 });
    expect((await describeNg('gpu')).taints).toEqual(POOL_SPECS[1]?.taints);
  });

  it.runIf(sim)('updateConfig given at create is kept; without one it is maxUnavailable 1', async () => {
    await eks.send(new CreateNodegroupCommand(input('a', { updateConfig: { maxUnavailable: 2 } })));
    await eks.send(new CreateNodegroupCommand(input('b')));
    expect((await active('a')).updateConfig).toEqual({ maxUnavailable: 2 });
    expect((await active('b')).updateConfig).toEqual({ maxUnavailable: 1 });
  });

  it.runIf(moto)('moto ignores updateConfig at create and reports none', async () => {
    await eks.send(new CreateNodegroupCommand(input('a', { updateConfig: { maxUnavailable: 2 } })));
    expect((await active('a')).updateConfig).toBeUndefined();
  });

  it.runIf(sim)('an invalid taint effect and a 31st node group are refused', async () => {
    await expect(
      eks.send(
        new CreateNodegroupCommand(
          input('bad', { taints: [{ key: 'a', effect: 'NoSchedule' as 'NO_SCHEDULE' }] }),
        ),
      ),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
    for (let i = 0; i < 30; i++) await eks.send(new CreateNodegroupCommand(input(`ng${i}`)));
    await expect(eks.send(new CreateNodegroupCommand(input('ng30')))).rejects.toMatchObject({
      name: 'ResourceLimitExceededException',
    });
  });

  it.runIf(moto)(
    'moto accepts an invalid taint effect and a 31st node group (no validation, no quota)',
    async () => {
      const bad = await eks.send(
        new CreateNodegroupCommand(
          input('bad', { taints: [{ key: 'a', effect: 'NoSchedule' as 'NO_SCHEDULE' }] }),
        ),
      );
      expect(bad.nodegroup?.taints).toEqual([{ key: 'a', effect: 'NoSchedule' }]);
      for (let i = 0; i < 30; i++) await eks.send(new CreateNodegroupCommand(input(`ng${i}`)));
      const list = await eks.send(new ListNodegroupsCommand({ clusterName: CLUSTER }));
      expect(list.nodegroups).toHaveLength(31);
    },
  );

  // The provider's own operations, as the planner builds them, on two pools of one cluster.
  const at = { clusterName: CLUSTER, region: REGION };
  const WEB = 'cloudorch-web-m5-large-od-abc123';
  const GPU = 'cloudorch-gpu-g5-xlarge-spot-abc123';
  const webOp = () =>
    createNodegroupOp(target.accountId, '1.30', 1, {
      ...at,
      nodegroupName: WEB,
      pool: 'web',
      capacityType: 'ON_DEMAND',
      labels: { role: 'web', tier: 'front' },
      taints: [{ key: 'web', value: 'true', effect: 'NO_SCHEDULE' }],
    });
  const gpuOp = () =>
    createNodegroupOp(target.accountId, '1.30', 1, {
      ...at,
      nodegroupName: GPU,
      pool: 'gpu',
      instanceTypes: ['g5.xlarge', 'g5.2xlarge'],
      amiType: 'AL2023_x86_64_NVIDIA',
      diskSize: 100,
      labels: { role: 'gpu' },
      taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NO_SCHEDULE' }],
      updateConfig: { maxUnavailablePercentage: 50 },
    });
  const observed = async (name: string) => {
    const o = await provider.observe(at);
    return o.nodegroups.find((n) => n.name === name);
  };
  const givenProviderPools = async () => {
    await provider.apply(webOp());
    await provider.apply(gpuOp());
    await active(WEB);
    await active(GPU);
  };

  it('provider: two pools created with their configuration, each observed with its own', async () => {
    await givenProviderPools();
    expect(await observed(WEB)).toMatchObject({
      instanceTypes: ['m5.large'],
      capacityType: 'ON_DEMAND',
      amiType: 'AL2023_x86_64_STANDARD',
      labels: { role: 'web', tier: 'front' },
      taints: [{ key: 'web', value: 'true', effect: 'NO_SCHEDULE' }],
      tags: { [POOL_TAG]: 'web' },
    });
    const gpu = await observed(GPU);
    expect(gpu).toMatchObject({
      instanceTypes: ['g5.xlarge', 'g5.2xlarge'],
      capacityType: 'SPOT',
      amiType: 'AL2023_x86_64_NVIDIA',
      diskSize: 100,
      labels: { role: 'gpu' },
      taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NO_SCHEDULE' }],
      tags: { [POOL_TAG]: 'gpu' },
    });
    // moto drops updateConfig given at create (see the SDK case above); the simulator keeps it.
    expect(gpu?.updateConfig).toEqual(sim ? { maxUnavailablePercentage: 50 } : undefined);
  });

  it('provider: one UpdateNodegroupConfig changes scaling, labels, taints and updateConfig of one pool only', async () => {
    await givenProviderPools();
    const r = await provider.apply({
      ...configOp(
        {
          scaling: { minSize: 2, maxSize: 4, desiredSize: 3 },
          labels: { addOrUpdateLabels: { role: 'edge' }, removeLabels: ['tier'] },
          taints: {
            addOrUpdateTaints: [{ key: 'edge', effect: 'PREFER_NO_SCHEDULE' }],
            removeTaints: [{ key: 'web', value: 'true', effect: 'NO_SCHEDULE' }],
          },
          updateConfig: { maxUnavailable: 2 },
        },
        1,
        WEB,
      ),
      ...at,
    });
    expect(r.kind).toBe('UpdateNodegroupConfig');
    // moto applies the change at once; the simulator, like EKS, runs it asynchronously.
    expect(r.status).toBe(sim ? 'InProgress' : 'Successful');
    const web = await poll(
      () => observed(WEB),
      (n) => n?.status === 'ACTIVE' && n.scaling.desiredSize === 3,
      'the update to apply',
    );
    expect(web).toMatchObject({
      scaling: { minSize: 2, maxSize: 4, desiredSize: 3 },
      labels: { role: 'edge' },
      taints: [{ key: 'edge', effect: 'PREFER_NO_SCHEDULE' }],
      updateConfig: { maxUnavailable: 2 },
    });
    expect(await observed(GPU)).toMatchObject({
      scaling: { minSize: 1, maxSize: 3, desiredSize: 2 },
      labels: { role: 'gpu' },
      taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NO_SCHEDULE' }],
    });
  });
});
