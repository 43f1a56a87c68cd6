/**
 * Observation: the pure response mapping, and against the simulator the rules for update tracking:
 * DescribeUpdate for tracked ids, ListUpdates only for an UPDATING resource nobody tracks, and the
 * number of calls per observation within the documented bound. The simulator runs at speed 1 and
 * the tests move its clock explicitly, so every state is reached deterministically.
 */
import { UpdateNodegroupConfigCommand } from '@aws-sdk/client-eks';
import { beforeEach, describe, expect, it } from 'vitest';
import { observeCallBound } from '../../lambdas/provider/eks-provider.js';
import {
  MalformedResponseError,
  selectUpdate,
  toObservedCluster,
  toObservedNodegroup,
} from '../../lambdas/provider/to-observation.js';
import { DEFAULT_DURATIONS } from '../../local/eks-sim/model.js';
import { clusterVersionOp, createClusterOp, createNodegroupOp, NODEGROUP, ref } from './support/fixtures.js';
import { useSimProvider } from './support/servers.js';

const cluster = {
  name: 'c',
  arn: 'arn:aws:eks:eu-west-1:111111111111:cluster/c',
  version: '1.31',
  status: 'ACTIVE' as const,
  roleArn: 'arn:aws:iam::111111111111:role/r',
  resourcesVpcConfig: { subnetIds: ['s1', 's2'] },
  createdAt: new Date(1_700_000_000_000),
};
const nodegroup = {
  nodegroupName: 'ng',
  nodegroupArn: 'arn:aws:eks:eu-west-1:111111111111:nodegroup/c/ng/u',
  version: '1.31',
  status: 'ACTIVE' as const,
  capacityType: 'ON_DEMAND' as const,
  scalingConfig: { minSize: 1, maxSize: 3, desiredSize: 2 },
  instanceTypes: ['m5.large'],
  nodeRole: 'arn:aws:iam::111111111111:role/n',
};

describe('response -> observation (pure)', () => {
  it('maps a cluster; the region comes from its ARN; absent lists and maps are empty', () => {
    expect(toObservedCluster(cluster)).toEqual({
      name: 'c',
      arn: cluster.arn,
      region: 'eu-west-1',
      version: '1.31',
      status: 'ACTIVE',
      health: 'Healthy',
      roleArn: cluster.roleArn,
      subnetIds: ['s1', 's2'],
      securityGroupIds: [],
      tags: {},
      createdAt: '2023-11-14T22:13:20.000Z',
    });
  });

  it('maps a node group; absent labels and taints are none, absent AMI type, disk size and updateConfig stay absent', () => {
    expect(toObservedNodegroup(nodegroup)).toEqual({
      name: 'ng',
      arn: nodegroup.nodegroupArn,
      version: '1.31',
      status: 'ACTIVE',
      health: 'Healthy',
      instanceTypes: ['m5.large'],
      capacityType: 'ON_DEMAND',
      scaling: { minSize: 1, maxSize: 3, desiredSize: 2 },
      nodeRole: nodegroup.nodeRole,
      subnets: [],
      tags: {},
      labels: {},
      taints: [],
    });
  });

  it('maps labels, taints (a value only when EKS sends one), AMI type, disk size and the two update budgets', () => {
    const ng = toObservedNodegroup({
      ...nodegroup,
      instanceTypes: ['m5.large', 'm5a.large'],
      labels: { role: 'web' },
      taints: [
        { key: 'a', value: 'b', effect: 'NO_SCHEDULE' },
        { key: 'c', effect: 'PREFER_NO_SCHEDULE' },
      ],
      amiType: 'AL2023_ARM_64_STANDARD',
      diskSize: 50,
      updateConfig: { maxUnavailablePercentage: 30 },
    });
    expect(ng).toMatchObject({
      instanceTypes: ['m5.large', 'm5a.large'],
      labels: { role: 'web' },
      taints: [
        { key: 'a', value: 'b', effect: 'NO_SCHEDULE' },
        { key: 'c', effect: 'PREFER_NO_SCHEDULE' },
      ],
      amiType: 'AL2023_ARM_64_STANDARD',
      diskSize: 50,
      updateConfig: { maxUnavailablePercentage: 30 },
    });
    expect(ng.taints[1]).not.toHaveProperty('value');
    expect(toObservedNodegroup({ ...nodegroup, updateConfig: { maxUnavailable: 2 } }).updateConfig).toEqual({
      maxUnavailable: 2,
    });
    expect(toObservedNodegroup({ ...nodegroup, updateConfig: {} })).not.toHaveProperty('updateConfig');
  });

  it('an ACTIVE resource with health issues is Degraded', () => {
    const issues = { issues: [{ code: 'Ec2SubnetNotFound' as const, message: 'gone' }] };
    expect(toObservedCluster({ ...cluster, health: issues }).health).toBe('Degraded');
    expect(toObservedNodegroup({ ...nodegroup, health: issues }).health).toBe('Degraded');
  });

  it.each([
    ['cluster.version', () => toObservedCluster({ ...cluster, version: undefined })],
    ['cluster.arn', () => toObservedCluster({ ...cluster, arn: undefined })],
    ['cluster.status', () => toObservedCluster({ ...cluster, status: undefined })],
    ['nodegroup.capacityType', () => toObservedNodegroup({ ...nodegroup, capacityType: undefined })],
    ['a known capacityType', () => toObservedNodegroup({ ...nodegroup, capacityType: 'WHATEVER' as 'SPOT' })],
    ['nodegroup.taints[].effect', () => toObservedNodegroup({ ...nodegroup, taints: [{ key: 'a' }] })],
    [
      'nodegroup.taints[].key',
      () => toObservedNodegroup({ ...nodegroup, taints: [{ effect: 'NO_EXECUTE' }] }),
    ],
    [
      'nodegroup.scalingConfig.desiredSize',
      () => toObservedNodegroup({ ...nodegroup, scalingConfig: { minSize: 1, maxSize: 2 } }),
    ],
  ])('a response without %s is MalformedResponseError, not a default', (what, fn) => {
    expect(fn).toThrow(MalformedResponseError);
    expect(fn).toThrow(what);
  });

  it('reports the newest update in progress, else the newest failed one; a successful one is done', () => {
    const at = (s: number) => new Date(s * 1000);
    const u = (id: string, status: 'InProgress' | 'Failed' | 'Successful', t: number) => ({
      id,
      status,
      type: 'VersionUpdate' as const,
      createdAt: at(t),
      errors: status === 'Failed' ? [{ errorCode: 'NodeCreationFailure' as const }] : [],
    });
    expect(selectUpdate([u('a', 'Failed', 3), u('b', 'InProgress', 2)])?.id).toBe('b');
    expect(selectUpdate([u('a', 'Failed', 1), u('b', 'Failed', 2), u('c', 'Successful', 3)])).toMatchObject({
      id: 'b',
      health: 'Failed',
      errorCodes: ['NodeCreationFailure'],
    });
    expect(selectUpdate([u('c', 'Successful', 3)])).toBeUndefined();
  });
});

describe('observe against the simulator', () => {
  const h = useSimProvider({ seed: 3, speed: 1 });
  const account = '000000000000';

  /** An ACTIVE cluster with one ACTIVE node group, reached by moving the clock (after the reset). */
  beforeEach(async () => {
    await h.provider.apply(createClusterOp(account));
    await h.admin.advance(DEFAULT_DURATIONS.clusterCreate);
    await h.provider.apply(createNodegroupOp(account));
    await h.admin.advance(DEFAULT_DURATIONS.nodegroupCreate);
    await h.admin.resetCalls();
  });

  const calls = async () => {
    const c = await h.admin.calls();
    return Object.fromEntries(Object.entries(c).map(([op, n]) => [op, n.requests]));
  };

  it('a quiet cluster costs DescribeCluster, ListNodegroups, one DescribeNodegroup: no update or add-on calls', async () => {
    const o = await h.provider.observe(ref);
    expect(o.cluster?.status).toBe('ACTIVE');
    expect(o.nodegroups.map((n) => n.status)).toEqual(['ACTIVE']);
    // Not asked for add-ons (the spec has none): not read, and said so by their absence.
    expect(o.addons).toBeUndefined();
    expect(await calls()).toEqual({ DescribeCluster: 1, ListNodegroups: 1, DescribeNodegroup: 1 });
    await h.admin.resetCalls();
    expect((await h.provider.observe(ref, { addons: true })).addons).toEqual([]);
    expect(await calls()).toEqual({
      DescribeCluster: 1,
      ListNodegroups: 1,
      DescribeNodegroup: 1,
      ListAddons: 1,
    });
  });

  it('right after an update the status still reads ACTIVE; only the tracked update shows the truth', async () => {
    await h.admin.driftNodegroup(ref.clusterName, NODEGROUP, { version: '1.31' });
    await h.admin.driftCluster(ref.clusterName, { version: '1.31' });
    const r = await h.provider.apply(clusterVersionOp('1.31', '1.32'));
    const untracked = await h.provider.observe(ref);
    expect(untracked.cluster).toMatchObject({ status: 'ACTIVE', health: 'Healthy' });
    expect(untracked.cluster?.update).toBeUndefined();
    const tracked = await h.provider.observe(ref, { trackedUpdates: [{ id: r.updateId ?? '' }] });
    expect(tracked.cluster?.update).toMatchObject({
      id: r.updateId,
      status: 'InProgress',
      health: 'Progressing',
    });
  });

  it('an UPDATING node group nobody tracks: one ListUpdates finds the update, within the bound', async () => {
    const out = await h.eks.send(
      new UpdateNodegroupConfigCommand({
        clusterName: ref.clusterName,
        nodegroupName: NODEGROUP,
        scalingConfig: { desiredSize: 3 },
      }),
    );
    await h.admin.advance(DEFAULT_DURATIONS.statusLag);
    await h.admin.resetCalls();
    const o = await h.provider.observe(ref);
    expect(o.nodegroups[0]).toMatchObject({
      status: 'UPDATING',
      update: { id: out.update?.id, status: 'InProgress' },
    });
    const c = await calls();
    expect(c).toEqual({
      DescribeCluster: 1,
      ListNodegroups: 1,
      DescribeNodegroup: 1,
      ListUpdates: 1,
      DescribeUpdate: 1,
    });
    const total = Object.values(c).reduce((a, b) => a + b, 0);
    expect(total).toBeLessThanOrEqual(observeCallBound(1, 0));
  });

  it('a tracked update that failed is reported with its error codes; the cluster is ACTIVE on the old version', async () => {
    await h.admin.driftNodegroup(ref.clusterName, NODEGROUP, { version: '1.31' });
    await h.admin.driftCluster(ref.clusterName, { version: '1.31' });
    await h.admin.failNextUpdate(ref.clusterName, 'InsufficientFreeAddresses');
    const r = await h.provider.apply(clusterVersionOp('1.31', '1.32'));
    await h.admin.advance(DEFAULT_DURATIONS.clusterVersionUpdate);
    const o = await h.provider.observe(ref, { trackedUpdates: [{ id: r.updateId ?? '' }] });
    expect(o.cluster).toMatchObject({ status: 'ACTIVE', version: '1.31' });
    expect(o.cluster?.update).toMatchObject({
      status: 'Failed',
      health: 'Failed',
      errorCodes: ['InsufficientFreeAddresses'],
    });
  });

  it('tracked updates EKS no longer knows, or of node groups that are gone, are left out', async () => {
    const o = await h.provider.observe(ref, {
      trackedUpdates: [{ id: 'no-such-update' }, { id: 'another', nodegroupName: 'deleted-group' }],
    });
    expect(o.cluster?.update).toBeUndefined();
    const c = await calls();
    expect(c.DescribeUpdate).toBe(1);
  });

  it('a cluster deleted behind our back is observed as null', async () => {
    await h.admin.vanishCluster(ref.clusterName);
    expect(await h.provider.observe(ref)).toMatchObject({ cluster: null, nodegroups: [] });
  });
});
