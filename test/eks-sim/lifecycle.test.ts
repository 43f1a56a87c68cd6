/**
 * Asynchronous lifecycles (CREATING -> ACTIVE, UPDATING, DELETING -> gone; updates InProgress ->
 * Successful | Failed), the speed factor, the wire format the SDK parses, regions from the SigV4
 * scope, and determinism under a seed. Time moves only through an injected clock or the admin API.
 */
import {
  CreateClusterCommand,
  CreateNodegroupCommand,
  DeleteClusterCommand,
  DeleteNodegroupCommand,
  DescribeClusterCommand,
  DescribeNodegroupCommand,
  DescribeUpdateCommand,
  ListClustersCommand,
  ListUpdatesCommand,
  UpdateClusterVersionCommand,
  UpdateNodegroupConfigCommand,
} from '@aws-sdk/client-eks';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_DURATIONS } from '../../local/eks-sim/model.js';
import {
  activeCluster,
  activeNodegroup,
  clusterInput,
  expectEksError,
  type Harness,
  harness,
  nodegroupInput,
  raw,
  useSimulator,
} from './support.js';

describe('lifecycles at speed 1, moved by the admin clock', () => {
  const h = useSimulator();

  const status = async () => (await h.eks.send(new DescribeClusterCommand({ name: 'c' }))).cluster?.status;

  it('a cluster is CREATING, without endpoint, until its create duration has passed', async () => {
    const created = await h.eks.send(new CreateClusterCommand(clusterInput()));
    expect(created.cluster).toMatchObject({ status: 'CREATING', version: '1.30' });
    expect(created.cluster?.endpoint).toBeUndefined();
    await h.admin.advance(DEFAULT_DURATIONS.clusterCreate - 1_000);
    expect(await status()).toBe('CREATING');
    await h.admin.advance(1_000);
    const d = await h.eks.send(new DescribeClusterCommand({ name: 'c' }));
    expect(d.cluster?.status).toBe('ACTIVE');
    expect(d.cluster?.endpoint).toMatch(/^https:\/\/[0-9A-F]{32}\.gr7\.us-east-1\.eks\.amazonaws\.com$/);
  });

  it('a version update: InProgress, ACTIVE during the lag, then UPDATING, then Successful and ACTIVE on the new version', async () => {
    await activeCluster(h);
    const u = await h.eks.send(new UpdateClusterVersionCommand({ name: 'c', version: '1.31' }));
    expect(u.update).toMatchObject({
      status: 'InProgress',
      type: 'VersionUpdate',
      params: [
        { type: 'Version', value: '1.31' },
        { type: 'PlatformVersion', value: 'eks.1' },
      ],
    });
    expect(await status()).toBe('ACTIVE');
    await h.admin.advance(DEFAULT_DURATIONS.statusLag);
    expect(await status()).toBe('UPDATING');
    await h.admin.advance(DEFAULT_DURATIONS.clusterVersionUpdate);
    const d = await h.eks.send(new DescribeUpdateCommand({ name: 'c', updateId: u.update?.id }));
    expect(d.update).toMatchObject({ status: 'Successful', errors: [] });
    const c = await h.eks.send(new DescribeClusterCommand({ name: 'c' }));
    expect(c.cluster).toMatchObject({ status: 'ACTIVE', version: '1.31' });
  });

  it('a failed update leaves the resource ACTIVE on its old version; the failure is only in DescribeUpdate', async () => {
    await activeCluster(h);
    await activeNodegroup(h);
    await h.admin.failNextUpdate('c', 'NodeCreationFailure', 'ng');
    const u = await h.eks.send(
      new UpdateNodegroupConfigCommand({
        clusterName: 'c',
        nodegroupName: 'ng',
        scalingConfig: { desiredSize: 3 },
      }),
    );
    await h.admin.advance(DEFAULT_DURATIONS.nodegroupConfigUpdate);
    const d = await h.eks.send(
      new DescribeUpdateCommand({ name: 'c', updateId: u.update?.id, nodegroupName: 'ng' }),
    );
    expect(d.update).toMatchObject({
      status: 'Failed',
      errors: [{ errorCode: 'NodeCreationFailure', resourceIds: ['ng'] }],
    });
    const ng = await h.eks.send(new DescribeNodegroupCommand({ clusterName: 'c', nodegroupName: 'ng' }));
    expect(ng.nodegroup).toMatchObject({ status: 'ACTIVE', scalingConfig: { desiredSize: 2 } });
    // A node group update is looked up with its nodegroupName; cluster-scoped it does not exist.
    await expectEksError(
      h.eks.send(new DescribeUpdateCommand({ name: 'c', updateId: u.update?.id })),
      404,
      'ResourceNotFoundException',
    );
  });

  it('deletes: the node group is DELETING then gone, then the cluster', async () => {
    await activeCluster(h);
    await activeNodegroup(h);
    const ng = await h.eks.send(new DeleteNodegroupCommand({ clusterName: 'c', nodegroupName: 'ng' }));
    expect(ng.nodegroup?.status).toBe('DELETING');
    await h.admin.advance(DEFAULT_DURATIONS.nodegroupDelete);
    await expectEksError(
      h.eks.send(new DescribeNodegroupCommand({ clusterName: 'c', nodegroupName: 'ng' })),
      404,
      'ResourceNotFoundException',
    );
    const c = await h.eks.send(new DeleteClusterCommand({ name: 'c' }));
    expect(c.cluster?.status).toBe('DELETING');
    await h.admin.advance(DEFAULT_DURATIONS.clusterDelete);
    await expectEksError(
      h.eks.send(new DescribeClusterCommand({ name: 'c' })),
      404,
      'ResourceNotFoundException',
    );
  });

  it('ListUpdates pages with maxResults/nextToken and is scoped by nodegroupName', async () => {
    await activeCluster(h);
    await activeNodegroup(h);
    const ids: string[] = [];
    for (const desiredSize of [3, 2, 3]) {
      const u = await h.eks.send(
        new UpdateNodegroupConfigCommand({
          clusterName: 'c',
          nodegroupName: 'ng',
          scalingConfig: { desiredSize },
        }),
      );
      ids.push(u.update?.id ?? '');
      await h.admin.advance(DEFAULT_DURATIONS.nodegroupConfigUpdate);
    }
    const p1 = await h.eks.send(new ListUpdatesCommand({ name: 'c', nodegroupName: 'ng', maxResults: 2 }));
    expect(p1.updateIds).toEqual(ids.slice(0, 2));
    const p2 = await h.eks.send(
      new ListUpdatesCommand({ name: 'c', nodegroupName: 'ng', maxResults: 2, nextToken: p1.nextToken }),
    );
    expect(p2).toMatchObject({ updateIds: ids.slice(2) });
    expect(p2.nextToken).toBeUndefined();
    expect((await h.eks.send(new ListUpdatesCommand({ name: 'c' }))).updateIds).toEqual([]);
  });

  it('speaks the wire format: wrapper objects, epoch-second timestamps, x-amzn-ErrorType errors', async () => {
    await h.eks.send(new CreateClusterCommand(clusterInput()));
    const ok = await raw(h, 'GET', '/clusters/c');
    expect(ok.status).toBe(200);
    const createdAt = (ok.body.cluster as { createdAt: unknown }).createdAt;
    expect(typeof createdAt).toBe('number');
    expect(Math.abs((createdAt as number) - Date.now() / 1000)).toBeLessThan(3600);
    const err = await raw(h, 'GET', '/clusters/none');
    expect(err).toEqual({
      status: 404,
      type: 'ResourceNotFoundException',
      body: { message: 'No cluster found for name: none.', clusterName: 'none' },
    });
    const unknown = await raw(h, 'POST', '/clusters/c/fargate-profiles', {});
    expect([unknown.status, unknown.type]).toEqual([404, 'UnknownOperationException']);
  });

  it('takes the region from the SigV4 credential scope', async () => {
    const eu = await harness({}, 'eu-west-1');
    try {
      await eu.eks.send(new CreateClusterCommand(clusterInput()));
      expect((await eu.eks.send(new DescribeClusterCommand({ name: 'c' }))).cluster?.arn).toBe(
        'arn:aws:eks:eu-west-1:000000000000:cluster/c',
      );
      expect((await eu.eks.send(new ListClustersCommand({}))).clusters).toEqual(['c']);
    } finally {
      await eu.close();
    }
    expect((await h.eks.send(new ListClustersCommand({}))).clusters).toEqual([]);
  });
});

describe('speed factor and injected clock', () => {
  let now = 1_000_000;
  let h: Harness;
  afterEach(async () => {
    await h.close();
  });

  it('divides every duration by the speed', async () => {
    h = await harness({ speed: 1000, clock: () => now });
    await h.eks.send(new CreateClusterCommand(clusterInput()));
    now += DEFAULT_DURATIONS.clusterCreate / 1000 - 1;
    expect((await h.eks.send(new DescribeClusterCommand({ name: 'c' }))).cluster?.status).toBe('CREATING');
    now += 1;
    expect((await h.eks.send(new DescribeClusterCommand({ name: 'c' }))).cluster?.status).toBe('ACTIVE');
    await h.eks.send(new CreateNodegroupCommand(nodegroupInput()));
    now += DEFAULT_DURATIONS.nodegroupCreate / 1000;
    expect(
      (await h.eks.send(new DescribeNodegroupCommand({ clusterName: 'c', nodegroupName: 'ng' }))).nodegroup
        ?.status,
    ).toBe('ACTIVE');
  });
});

describe('determinism under a seed', () => {
  async function run(seed: number) {
    const h = await harness({ seed });
    try {
      const c = await h.eks.send(new CreateClusterCommand(clusterInput()));
      await h.admin.advance(DEFAULT_DURATIONS.clusterCreate);
      const ng = await h.eks.send(new CreateNodegroupCommand(nodegroupInput()));
      await h.admin.advance(DEFAULT_DURATIONS.nodegroupCreate);
      const u = await h.eks.send(
        new UpdateNodegroupConfigCommand({
          clusterName: 'c',
          nodegroupName: 'ng',
          scalingConfig: { desiredSize: 3 },
        }),
      );
      const d = await h.eks.send(new DescribeClusterCommand({ name: 'c' }));
      return [
        d.cluster?.endpoint,
        d.cluster?.resourcesVpcConfig?.vpcId,
        ng.nodegroup?.nodegroupArn,
        u.update?.id,
        c.cluster?.arn,
      ];
    } finally {
      await h.close();
    }
  }

  it('the same seed gives the same ids; another seed gives others', async () => {
    const a = await run(42);
    expect(await run(42)).toEqual(a);
    const b = await run(43);
    expect(b[0]).not.toBe(a[0]);
    expect(b[3]).not.toBe(a[3]);
  });
});
