/** The admin API: fault injection per operation, call counts, drift behind the reconciler's back, reset. */
import {
  CreateClusterCommand,
  DescribeClusterCommand,
  DescribeNodegroupCommand,
  ListClustersCommand,
} from '@aws-sdk/client-eks';
import { describe, expect, it } from 'vitest';
import { activeCluster, activeNodegroup, clusterInput, expectEksError, useSimulator } from './support.js';

const h = useSimulator();

const describeC = () => h.eks.send(new DescribeClusterCommand({ name: 'c' }));

describe('faults', () => {
  it('throttles one operation with the configured code and leaves the others alone', async () => {
    await activeCluster(h);
    await h.admin.setFaults({
      DescribeCluster: { throttleFraction: 1, throttleCode: 'TooManyRequestsException' },
    });
    await expectEksError(describeC(), 429, 'TooManyRequestsException');
    expect((await h.eks.send(new ListClustersCommand({}))).clusters).toEqual(['c']);
  });

  it('injects 5xx with the configured code; `*` applies to every operation', async () => {
    await h.admin.setFaults({ '*': { errorFraction: 1, errorCode: 'ServiceUnavailableException' } });
    await expectEksError(h.eks.send(new ListClustersCommand({})), 503, 'ServiceUnavailableException');
    await h.admin.setFaults({ '*': { errorFraction: 1 } });
    await expectEksError(describeC(), 500, 'ServerException');
    await h.admin.clearFaults();
    await expectEksError(describeC(), 404, 'ResourceNotFoundException');
  });

  it('a fraction is drawn from the seeded PRNG: the same seed throttles the same requests', async () => {
    const pattern = async () => {
      await h.admin.reset(9);
      await h.admin.setFaults({ ListClusters: { throttleFraction: 0.5 } });
      const out: boolean[] = [];
      for (let i = 0; i < 24; i++)
        out.push(
          await h.eks.send(new ListClustersCommand({})).then(
            () => true,
            () => false,
          ),
        );
      return out;
    };
    const a = await pattern();
    expect(await pattern()).toEqual(a);
    expect(a.filter(Boolean).length).toBeGreaterThan(4);
    expect(a.filter((x) => !x).length).toBeGreaterThan(4);
  });

  it('refuses fractions that do not add up', async () => {
    await expect(h.admin.setFaults({ '*': { throttleFraction: 0.7, errorFraction: 0.5 } })).rejects.toThrow(
      /400/,
    );
  });

  it('adds latency and still answers', async () => {
    await h.admin.setFaults({ ListClusters: { latencyMs: 5 } });
    expect((await h.eks.send(new ListClustersCommand({}))).clusters).toEqual([]);
    expect((await h.admin.calls()).ListClusters).toMatchObject({ requests: 1, succeeded: 1 });
  });
});

describe('call counts', () => {
  it('counts requests per operation by outcome, and resets', async () => {
    await h.eks.send(new CreateClusterCommand(clusterInput()));
    await expectEksError(h.eks.send(new CreateClusterCommand(clusterInput())), 409, 'ResourceInUseException');
    await h.admin.setFaults({ DescribeCluster: { throttleFraction: 1 } });
    await expectEksError(describeC(), 429, 'ThrottlingException');
    expect(await h.admin.calls()).toEqual({
      CreateCluster: { requests: 2, throttled: 0, serverErrors: 0, succeeded: 1, rejected: 1 },
      DescribeCluster: { requests: 1, throttled: 1, serverErrors: 0, succeeded: 0, rejected: 0 },
    });
    await h.admin.resetCalls();
    expect(await h.admin.calls()).toEqual({});
  });
});

describe('drift', () => {
  it('changes a cluster and a node group behind the reconciler back', async () => {
    await activeCluster(h);
    await activeNodegroup(h);
    await h.admin.driftCluster('c', { version: '1.31', tags: { intruder: 'yes' } });
    await h.admin.driftNodegroup('c', 'ng', {
      scaling: { desiredSize: 3 },
      instanceTypes: ['c5.large'],
      healthIssues: [{ code: 'AsgInstanceLaunchFailures', message: 'no capacity' }],
    });
    expect((await describeC()).cluster).toMatchObject({ version: '1.31', tags: { intruder: 'yes' } });
    const ng = (await h.eks.send(new DescribeNodegroupCommand({ clusterName: 'c', nodegroupName: 'ng' })))
      .nodegroup;
    expect(ng).toMatchObject({
      status: 'DEGRADED',
      instanceTypes: ['c5.large'],
      scalingConfig: { minSize: 1, maxSize: 3, desiredSize: 3 },
      health: { issues: [{ code: 'AsgInstanceLaunchFailures', message: 'no capacity' }] },
    });
  });

  it('changes a node group taints and updateConfig behind the reconciler back, with EKS rules', async () => {
    await activeCluster(h);
    await activeNodegroup(h, { taints: [{ key: 'a', effect: 'NO_SCHEDULE' }] });
    await h.admin.driftNodegroup('c', 'ng', {
      taints: [{ key: 'b', value: 'x', effect: 'NO_EXECUTE' }],
      updateConfig: { maxUnavailablePercentage: 40 },
    });
    const ng = (await h.eks.send(new DescribeNodegroupCommand({ clusterName: 'c', nodegroupName: 'ng' })))
      .nodegroup;
    expect(ng?.taints).toEqual([{ key: 'b', value: 'x', effect: 'NO_EXECUTE' }]);
    expect(ng?.updateConfig).toEqual({ maxUnavailablePercentage: 40 });
    await expect(
      h.admin.driftNodegroup('c', 'ng', { taints: [{ key: 'b', effect: 'NoExecute' as 'NO_EXECUTE' }] }),
    ).rejects.toThrow(/400.*Invalid taint effect/s);
  });

  it('deletes a cluster out of band', async () => {
    await activeCluster(h);
    await h.admin.vanishCluster('c');
    await expectEksError(describeC(), 404, 'ResourceNotFoundException');
  });

  it('reports unknown targets and routes as admin errors, not as EKS errors', async () => {
    await expect(h.admin.driftCluster('none', { version: '1.31' })).rejects.toThrow(/404/);
    const res = await fetch(`${h.sim.url}/_sim/nope`);
    expect(res.status).toBe(404);
    expect(res.headers.get('x-amzn-errortype')).toBeNull();
  });
});

describe('reset', () => {
  it('clears clusters, faults and counts', async () => {
    await activeCluster(h);
    await h.admin.setFaults({ ListClusters: { throttleFraction: 1 } });
    await h.admin.reset();
    expect((await h.eks.send(new ListClustersCommand({}))).clusters).toEqual([]);
    expect(await h.admin.calls()).toEqual({
      ListClusters: { requests: 1, throttled: 0, serverErrors: 0, succeeded: 1, rejected: 0 },
    });
  });
});
