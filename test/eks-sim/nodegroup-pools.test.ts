/**
 * Several managed node groups ("pools") per cluster, through the real SDK against the simulator: each
 * with its own labels, taints, updateConfig, AMI, capacity and instance types; taints and updateConfig
 * updates reported and applied as EKS does; one update at a time per node group but concurrently
 * across node groups; and the limits EKS documents for them.
 */
import {
  CreateNodegroupCommand,
  type CreateNodegroupCommandInput,
  DeleteNodegroupCommand,
  DescribeNodegroupCommand,
  DescribeUpdateCommand,
  ListNodegroupsCommand,
  type Taint,
  UpdateNodegroupConfigCommand,
  type UpdateNodegroupConfigCommandInput,
} from '@aws-sdk/client-eks';
import { beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_DURATIONS } from '../../local/eks-sim/model.js';
import {
  activeCluster,
  activeNodegroup,
  expectEksError,
  nodegroupInput,
  raw,
  type SimClients,
  useSimulator,
} from './support.js';

const h = useSimulator();

const describeNg = async (nodegroupName: string) =>
  (await h.eks.send(new DescribeNodegroupCommand({ clusterName: 'c', nodegroupName }))).nodegroup;

const updateConfig = (nodegroupName: string, over: Partial<UpdateNodegroupConfigCommandInput>) =>
  h.eks.send(new UpdateNodegroupConfigCommand({ clusterName: 'c', nodegroupName, ...over }));

const completeConfigUpdate = (s: SimClients) => s.admin.advance(DEFAULT_DURATIONS.nodegroupConfigUpdate);

const taints = (n: number, prefix = 't'): Taint[] =>
  Array.from({ length: n }, (_, i) => ({ key: `${prefix}${i}`, value: 'v', effect: 'NO_SCHEDULE' }));

const POOLS: CreateNodegroupCommandInput[] = [
  nodegroupInput({
    nodegroupName: 'system',
    labels: { role: 'system' },
    taints: [{ key: 'CriticalAddonsOnly', effect: 'NO_EXECUTE' }],
  }),
  nodegroupInput({
    nodegroupName: 'gpu',
    amiType: 'AL2023_x86_64_NVIDIA',
    instanceTypes: ['g5.xlarge', 'g5.2xlarge'],
    diskSize: 100,
    labels: { role: 'gpu', 'nvidia.com/gpu.present': 'true' },
    taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NO_SCHEDULE' }],
    updateConfig: { maxUnavailablePercentage: 25 },
  }),
  nodegroupInput({
    nodegroupName: 'spot',
    capacityType: 'SPOT',
    instanceTypes: ['m5.large', 'm5a.large', 'm6i.large'],
    labels: { role: 'batch', lifecycle: 'spot' },
    taints: [{ key: 'spot', value: 'true', effect: 'PREFER_NO_SCHEDULE' }],
    updateConfig: { maxUnavailable: 2 },
  }),
];

describe('several node groups per cluster', () => {
  beforeEach(async () => {
    await activeCluster(h);
    for (const p of POOLS) await h.eks.send(new CreateNodegroupCommand(p));
    await h.admin.advance(DEFAULT_DURATIONS.nodegroupCreate);
  });

  it('each node group keeps its own labels, taints, updateConfig, AMI, capacity, instance types and disk', async () => {
    expect(await describeNg('system')).toMatchObject({
      status: 'ACTIVE',
      labels: { role: 'system' },
      taints: [{ key: 'CriticalAddonsOnly', effect: 'NO_EXECUTE' }],
      updateConfig: { maxUnavailable: 1 },
      amiType: 'AL2023_x86_64_STANDARD',
      capacityType: 'ON_DEMAND',
      instanceTypes: ['t3.medium'],
      diskSize: 20,
    });
    expect(await describeNg('gpu')).toMatchObject({
      labels: { role: 'gpu', 'nvidia.com/gpu.present': 'true' },
      taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NO_SCHEDULE' }],
      updateConfig: { maxUnavailablePercentage: 25 },
      amiType: 'AL2023_x86_64_NVIDIA',
      instanceTypes: ['g5.xlarge', 'g5.2xlarge'],
      diskSize: 100,
    });
    const spot = await describeNg('spot');
    expect(spot).toMatchObject({
      capacityType: 'SPOT',
      instanceTypes: ['m5.large', 'm5a.large', 'm6i.large'],
      updateConfig: { maxUnavailable: 2 },
    });
    expect(spot?.updateConfig).not.toHaveProperty('maxUnavailablePercentage');
  });

  it('a node group without taints has no taints member (EKS omits empty lists)', async () => {
    await h.eks.send(new CreateNodegroupCommand(nodegroupInput({ nodegroupName: 'plain' })));
    const r = await raw(h, 'GET', '/clusters/c/node-groups/plain');
    expect(r.body.nodegroup).not.toHaveProperty('taints');
  });

  it('lists all of them, in pages, and deletes each independently', async () => {
    const all = await h.eks.send(new ListNodegroupsCommand({ clusterName: 'c' }));
    expect(all.nodegroups).toEqual(['system', 'gpu', 'spot']);
    const first = await h.eks.send(new ListNodegroupsCommand({ clusterName: 'c', maxResults: 2 }));
    expect(first.nodegroups).toEqual(['system', 'gpu']);
    const second = await h.eks.send(
      new ListNodegroupsCommand({ clusterName: 'c', maxResults: 2, nextToken: first.nextToken }),
    );
    expect(second.nodegroups).toEqual(['spot']);

    await h.eks.send(new DeleteNodegroupCommand({ clusterName: 'c', nodegroupName: 'gpu' }));
    expect((await describeNg('gpu'))?.status).toBe('DELETING');
    expect((await describeNg('spot'))?.status).toBe('ACTIVE');
    await h.admin.advance(DEFAULT_DURATIONS.nodegroupDelete);
    await expectEksError(describeNg('gpu'), 404, 'ResourceNotFoundException');
    const after = await h.eks.send(new ListNodegroupsCommand({ clusterName: 'c' }));
    expect(after.nodegroups).toEqual(['system', 'spot']);
    expect(await describeNg('system')).toMatchObject({ status: 'ACTIVE', labels: { role: 'system' } });
  });

  it('two node groups of one cluster update at the same time; a second update of one of them is a 409', async () => {
    const gpu = await updateConfig('gpu', {
      taints: { removeTaints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NO_SCHEDULE' }] },
    });
    const spot = await updateConfig('spot', { updateConfig: { maxUnavailablePercentage: 50 } });
    expect(gpu.update?.status).toBe('InProgress');
    expect(spot.update?.status).toBe('InProgress');
    // Still ACTIVE (the status lags), but the update is in progress.
    expect((await describeNg('gpu'))?.status).toBe('ACTIVE');
    await expectEksError(
      updateConfig('gpu', { labels: { addOrUpdateLabels: { tier: 'x' } } }),
      409,
      'ResourceInUseException',
      `Cannot ConfigUpdate because nodegroup gpu currently has update ${gpu.update?.id} in progress`,
    );
    await h.admin.advance(DEFAULT_DURATIONS.statusLag);
    expect((await describeNg('gpu'))?.status).toBe('UPDATING');
    expect((await describeNg('spot'))?.status).toBe('UPDATING');
    expect((await describeNg('system'))?.status).toBe('ACTIVE');

    await completeConfigUpdate(h);
    expect(await describeNg('gpu')).not.toHaveProperty('taints');
    expect((await describeNg('spot'))?.updateConfig).toEqual({ maxUnavailablePercentage: 50 });
    const next = await updateConfig('gpu', { labels: { addOrUpdateLabels: { tier: 'x' } } });
    expect(next.update?.status).toBe('InProgress');
  });
});

describe('taints and updateConfig updates', () => {
  beforeEach(async () => {
    await activeCluster(h);
    await activeNodegroup(h, {
      taints: [
        { key: 'dedicated', value: 'gpu', effect: 'NO_SCHEDULE' },
        { key: 'spot', value: 'true', effect: 'PREFER_NO_SCHEDULE' },
      ],
    });
  });

  it('TaintsToAdd and TaintsToRemove are reported, and applied only when the update completes', async () => {
    const { update } = await updateConfig('ng', {
      taints: {
        addOrUpdateTaints: [{ key: 'team', value: 'ml', effect: 'NO_EXECUTE' }],
        removeTaints: [{ key: 'spot', value: 'true', effect: 'PREFER_NO_SCHEDULE' }],
      },
    });
    expect(update).toMatchObject({ type: 'ConfigUpdate', status: 'InProgress' });
    expect(update?.params).toEqual([
      { type: 'TaintsToAdd', value: JSON.stringify([{ key: 'team', value: 'ml', effect: 'NO_EXECUTE' }]) },
      {
        type: 'TaintsToRemove',
        value: JSON.stringify([{ key: 'spot', value: 'true', effect: 'PREFER_NO_SCHEDULE' }]),
      },
    ]);
    expect((await describeNg('ng'))?.taints).toHaveLength(2);

    await completeConfigUpdate(h);
    const done = await h.eks.send(
      new DescribeUpdateCommand({ name: 'c', nodegroupName: 'ng', updateId: update?.id }),
    );
    expect(done.update?.status).toBe('Successful');
    expect((await describeNg('ng'))?.taints).toEqual([
      { key: 'dedicated', value: 'gpu', effect: 'NO_SCHEDULE' },
      { key: 'team', value: 'ml', effect: 'NO_EXECUTE' },
    ]);
  });

  it('a taint is identified by key and effect: same pair replaces its value, another effect adds one', async () => {
    await updateConfig('ng', {
      taints: {
        addOrUpdateTaints: [
          { key: 'dedicated', value: 'cpu', effect: 'NO_SCHEDULE' },
          { key: 'dedicated', value: 'gpu', effect: 'NO_EXECUTE' },
        ],
      },
    });
    await completeConfigUpdate(h);
    expect((await describeNg('ng'))?.taints).toEqual([
      { key: 'spot', value: 'true', effect: 'PREFER_NO_SCHEDULE' },
      { key: 'dedicated', value: 'cpu', effect: 'NO_SCHEDULE' },
      { key: 'dedicated', value: 'gpu', effect: 'NO_EXECUTE' },
    ]);
  });

  it.each([
    ['maxUnavailable', { maxUnavailable: 2 }, 'MaxUnavailable', '2'],
    ['maxUnavailablePercentage', { maxUnavailablePercentage: 33 }, 'MaxUnavailablePercentage', '33'],
  ])('updateConfig %s is reported as %s and replaces the previous one', async (_, uc, type, value) => {
    expect((await describeNg('ng'))?.updateConfig).toEqual({ maxUnavailable: 1 });
    const { update } = await updateConfig('ng', { updateConfig: uc });
    expect(update?.params).toEqual([{ type, value }]);
    expect((await describeNg('ng'))?.updateConfig).toEqual({ maxUnavailable: 1 });
    await completeConfigUpdate(h);
    expect((await describeNg('ng'))?.updateConfig).toEqual(uc);
  });

  it('a failed update leaves taints and updateConfig as they were', async () => {
    await h.admin.failNextUpdate('c', 'NodeCreationFailure', 'ng');
    await updateConfig('ng', {
      taints: { addOrUpdateTaints: [{ key: 'x', effect: 'NO_SCHEDULE' }] },
      updateConfig: { maxUnavailable: 3 },
    });
    await completeConfigUpdate(h);
    const ng = await describeNg('ng');
    expect(ng?.taints).toHaveLength(2);
    expect(ng?.updateConfig).toEqual({ maxUnavailable: 1 });
  });

  it.each([
    [
      'a taint effect outside the enum',
      { taints: { addOrUpdateTaints: [{ key: 'a', effect: 'NoSchedule' }] } },
      'Invalid taint effect: NoSchedule, must be one of these [NO_SCHEDULE, NO_EXECUTE, PREFER_NO_SCHEDULE]',
    ],
    [
      'a taint both added and removed',
      {
        taints: {
          addOrUpdateTaints: [{ key: 'a', effect: 'NO_SCHEDULE' }],
          removeTaints: [{ key: 'a', effect: 'NO_SCHEDULE' }],
        },
      },
      /both added and removed/,
    ],
    [
      'a 51st taint',
      { taints: { addOrUpdateTaints: taints(49) } },
      'A node group can have at most 50 taints, got 51',
    ],
    [
      'removing a taint it does not have (a no-op)',
      { taints: { removeTaints: [{ key: 'dedicated', value: 'gpu', effect: 'NO_EXECUTE' }] } },
      /No changes needed/,
    ],
    ['the current updateConfig (a no-op)', { updateConfig: { maxUnavailable: 1 } }, /No changes needed/],
    [
      'maxUnavailable above maxSize',
      { updateConfig: { maxUnavailable: 4 } },
      'max-unavailable must be within the range 1 and max size of the node group',
    ],
    [
      'maxUnavailable and maxUnavailablePercentage together',
      { updateConfig: { maxUnavailable: 1, maxUnavailablePercentage: 10 } },
      /Exactly one of maxUnavailable and maxUnavailablePercentage/,
    ],
    ['an empty updateConfig', { updateConfig: {} }, /Exactly one of/],
    [
      'maxUnavailablePercentage above 100',
      { updateConfig: { maxUnavailablePercentage: 101 } },
      'max-unavailable-percentage must be within the range 1 and 100',
    ],
    [
      'an updateStrategy',
      { updateConfig: { maxUnavailable: 2, updateStrategy: 'MINIMAL' } },
      'The simulator does not implement updateStrategy',
    ],
  ])('UpdateNodegroupConfig with %s: 400 InvalidParameterException', async (_, body, message) => {
    const r = await raw(h, 'POST', '/clusters/c/node-groups/ng/update-config', body);
    expect(r.status).toBe(400);
    expect(r.type).toBe('InvalidParameterException');
    expect(r.body.message).toMatch(message);
    expect(r.body).toMatchObject({ clusterName: 'c', nodegroupName: 'ng' });
  });

  it('maxUnavailable is checked against the maxSize the same update sets', async () => {
    const { update } = await updateConfig('ng', {
      scalingConfig: { maxSize: 10 },
      updateConfig: { maxUnavailable: 5 },
    });
    expect(update?.params).toEqual([
      { type: 'MaxSize', value: '10' },
      { type: 'MaxUnavailable', value: '5' },
    ]);
  });
});

describe('create validation of a node group configuration', () => {
  beforeEach(async () => {
    await activeCluster(h);
  });

  const long = (n: number) => 'a'.repeat(n);

  it.each<[string, Partial<CreateNodegroupCommandInput>, string | RegExp]>([
    ['51 taints', { taints: taints(51) }, 'A node group can have at most 50 taints, got 51'],
    [
      'a taint effect outside the enum',
      { taints: [{ key: 'a', effect: 'NoExecute' as Taint['effect'] }] },
      'Invalid taint effect: NoExecute, must be one of these [NO_SCHEDULE, NO_EXECUTE, PREFER_NO_SCHEDULE]',
    ],
    ['a taint without a key', { taints: [{ effect: 'NO_SCHEDULE' }] }, 'Taint key is required'],
    [
      'a taint key of 64 characters',
      { taints: [{ key: long(64), effect: 'NO_SCHEDULE' }] },
      /Invalid taint key/,
    ],
    [
      'a taint key starting with a period',
      { taints: [{ key: '.x', effect: 'NO_SCHEDULE' }] },
      /Invalid taint key/,
    ],
    [
      'a taint value of 64 characters',
      { taints: [{ key: 'a', value: long(64), effect: 'NO_SCHEDULE' }] },
      /Invalid taint value/,
    ],
    [
      'the same taint twice',
      {
        taints: [
          { key: 'a', value: '1', effect: 'NO_SCHEDULE' },
          { key: 'a', value: '2', effect: 'NO_SCHEDULE' },
        ],
      },
      /listed more than once/,
    ],
    ['a label key of 64 characters', { labels: { [long(64)]: 'v' } }, /Label key .* must be 1-63 characters/],
    ['an empty label value', { labels: { a: '' } }, 'Label value for a must be 1-63 characters'],
    [
      'a label key with a reserved prefix',
      { labels: { 'node-role.kubernetes.io/worker': 'true' } },
      'Label cannot contain reserved prefixes [kubernetes.io/, k8s.io/, eks.amazonaws.com/]',
    ],
    ['a label value of 64 characters', { labels: { a: long(64) } }, /must be 1-63 characters/],
    [
      'maxUnavailable 0',
      { updateConfig: { maxUnavailable: 0 } },
      'max-unavailable must be within the range 1 and max size of the node group',
    ],
    [
      'maxUnavailable above maxSize',
      { updateConfig: { maxUnavailable: 4 } },
      'max-unavailable must be within the range 1 and max size of the node group',
    ],
    [
      'maxUnavailablePercentage 0',
      { updateConfig: { maxUnavailablePercentage: 0 } },
      'max-unavailable-percentage must be within the range 1 and 100',
    ],
    [
      'both updateConfig members',
      { updateConfig: { maxUnavailable: 1, maxUnavailablePercentage: 5 } },
      /Exactly one/,
    ],
    [
      'an amiType outside the enum',
      { amiType: 'UBUNTU' as CreateNodegroupCommandInput['amiType'] },
      'Invalid amiType: UBUNTU',
    ],
    [
      'amiType CUSTOM (needs a launch template)',
      { amiType: 'CUSTOM' },
      /does not implement launch templates/,
    ],
    [
      'a capacityType outside the enum',
      { capacityType: 'RESERVED' as CreateNodegroupCommandInput['capacityType'] },
      'Invalid capacityType: RESERVED',
    ],
    ['a diskSize of 0', { diskSize: 0 }, /diskSize must be a positive number/],
    ['21 instance types', { instanceTypes: Array.from({ length: 21 }, (_, i) => `m${i}.large`) }, /1 to 20/],
    [
      'a release version of another Kubernetes version',
      { releaseVersion: '1.29.0-20260101' },
      'Requested release version 1.29.0-20260101 is not valid for kubernetes version 1.30.',
    ],
    [
      'a launch template',
      { launchTemplate: { name: 'lt' } },
      'The simulator does not implement launchTemplate',
    ],
    ['remote access', { remoteAccess: { ec2SshKey: 'k' } }, 'The simulator does not implement remoteAccess'],
    [
      'a node repair configuration',
      { nodeRepairConfig: { enabled: true } },
      'The simulator does not implement nodeRepairConfig',
    ],
    [
      'more than 450 nodes',
      { scalingConfig: { minSize: 1, maxSize: 451, desiredSize: 1 } },
      'maxSize 451 exceeds the limit of 450 nodes per managed node group',
    ],
  ])('CreateNodegroup with %s: 400 InvalidParameterException', async (_, over, message) => {
    const e = await expectEksError(
      h.eks.send(new CreateNodegroupCommand(nodegroupInput(over))),
      400,
      'InvalidParameterException',
      message,
    );
    expect(e).toMatchObject({ clusterName: 'c', nodegroupName: 'ng' });
  });

  it('accepts the limits themselves: 50 taints, 63-character labels and taint parts, 450 nodes, a prefixed taint key', async () => {
    // 253 characters: a DNS subdomain prefix of 189, '/', a name of 63.
    const prefixed = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(61)}/${'k'.repeat(63)}`;
    const { nodegroup } = await h.eks.send(
      new CreateNodegroupCommand(
        nodegroupInput({
          taints: [...taints(49), { key: prefixed, value: 'v'.repeat(63), effect: 'NO_EXECUTE' }],
          labels: { [long(63)]: 'b'.repeat(63) },
          scalingConfig: { minSize: 0, maxSize: 450, desiredSize: 0 },
          updateConfig: { maxUnavailable: 100 },
        }),
      ),
    );
    expect(nodegroup?.taints).toHaveLength(50);
    expect(nodegroup?.updateConfig).toEqual({ maxUnavailable: 100 });
  });

  it('a release version of the cluster version is accepted', async () => {
    const { nodegroup } = await h.eks.send(
      new CreateNodegroupCommand(nodegroupInput({ releaseVersion: '1.30.0-20260101' })),
    );
    expect(nodegroup?.releaseVersion).toBe('1.30.0-20260101');
  });

  it('a Windows node group defaults to a 50 GiB disk, any other to 20 GiB', async () => {
    const win = await h.eks.send(
      new CreateNodegroupCommand(
        nodegroupInput({ nodegroupName: 'win', amiType: 'WINDOWS_CORE_2022_x86_64' }),
      ),
    );
    expect(win.nodegroup?.diskSize).toBe(50);
    const br = await h.eks.send(
      new CreateNodegroupCommand(nodegroupInput({ nodegroupName: 'br', amiType: 'BOTTLEROCKET_ARM_64' })),
    );
    expect(br.nodegroup?.diskSize).toBe(20);
  });

  it('the 31st node group is refused with the quota error; after one is gone, another fits', async () => {
    for (let i = 0; i < 30; i++) {
      await h.eks.send(
        new CreateNodegroupCommand(
          nodegroupInput({ nodegroupName: `ng${i}`, labels: { pool: `p${i}` }, taints: taints(1, `k${i}-`) }),
        ),
      );
    }
    await expectEksError(
      h.eks.send(new CreateNodegroupCommand(nodegroupInput({ nodegroupName: 'ng30' }))),
      400,
      'ResourceLimitExceededException',
      'Managed node groups per cluster limit exceeded',
    );
    await h.admin.advance(DEFAULT_DURATIONS.nodegroupCreate);
    await h.eks.send(new DeleteNodegroupCommand({ clusterName: 'c', nodegroupName: 'ng0' }));
    // [sim] a DELETING node group still counts against the quota.
    await expectEksError(
      h.eks.send(new CreateNodegroupCommand(nodegroupInput({ nodegroupName: 'ng30' }))),
      400,
      'ResourceLimitExceededException',
    );
    await h.admin.advance(DEFAULT_DURATIONS.nodegroupDelete);
    const { nodegroup } = await h.eks.send(
      new CreateNodegroupCommand(nodegroupInput({ nodegroupName: 'ng30' })),
    );
    expect(nodegroup?.status).toBe('CREATING');
  });
});
