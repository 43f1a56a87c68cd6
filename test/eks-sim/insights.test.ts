/**
 * Upgrade insights through the real SDK against the simulator: set through the module's hook (the admin
 * API's), listed with EKS's filter, described with recommendation and deprecation details.
 */
import { DescribeInsightCommand, type InsightsFilter, ListInsightsCommand } from '@aws-sdk/client-eks';
import { describe, expect, it } from 'vitest';
import { clearInsights, setInsight } from '../../local/eks-sim/insights.js';
import { activeCluster, expectEksError, REGION, useSimulator } from './support.js';

const h = useSimulator();

const list = async (filter?: InsightsFilter) =>
  (await h.eks.send(new ListInsightsCommand({ clusterName: 'c', filter }))).insights ?? [];

const DEPRECATED = {
  usage: '/apis/flowcontrol.apiserver.k8s.io/v1beta3/flowschemas',
  replacedWith: '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas',
  stopServingVersion: '1.32',
  clientStats: [{ userAgent: 'kubectl', numberOfRequestsLast30Days: 12, lastRequestTime: 1_767_225_600_000 }],
};

describe('ListInsights and DescribeInsight', () => {
  it('lists nothing until the admin hook sets insights, then filters them as EKS does', async () => {
    await activeCluster(h); // 1.30: insights default to the next minor, 1.31.
    expect(await list()).toEqual([]);
    const err = setInsight(h.sim.state, REGION, 'c', {
      name: 'Deprecated APIs removed in Kubernetes v1.32',
      status: 'ERROR',
      reason: 'Deprecated API usage detected within last 30 days.',
      kubernetesVersion: '1.32',
    });
    setInsight(h.sim.state, REGION, 'c', {
      name: 'Kubelet version skew',
      status: 'PASSING',
      reason: 'No issues',
    });
    setInsight(h.sim.state, REGION, 'c', {
      name: 'Misconfigured',
      status: 'WARNING',
      category: 'MISCONFIGURATION',
    });

    const all = await list();
    expect(all.map((i) => i.name)).toEqual([
      'Deprecated APIs removed in Kubernetes v1.32',
      'Kubelet version skew',
      'Misconfigured',
    ]);
    expect(all[0]).toMatchObject({
      id: err.id,
      category: 'UPGRADE_READINESS',
      kubernetesVersion: '1.32',
      insightStatus: { status: 'ERROR', reason: 'Deprecated API usage detected within last 30 days.' },
    });
    expect(all[0]?.lastRefreshTime).toBeInstanceOf(Date);
    expect(all[1]?.kubernetesVersion).toBe('1.31');

    const names = async (filter: InsightsFilter) => (await list(filter)).map((i) => i.name);
    expect(await names({ categories: ['UPGRADE_READINESS'] })).toHaveLength(2);
    expect(await names({ statuses: ['ERROR', 'WARNING'] })).toEqual([
      'Deprecated APIs removed in Kubernetes v1.32',
      'Misconfigured',
    ]);
    expect(await names({ kubernetesVersions: ['1.32'], categories: ['UPGRADE_READINESS'] })).toEqual([
      'Deprecated APIs removed in Kubernetes v1.32',
    ]);
  });

  it('describes an insight with its recommendation and deprecation details', async () => {
    await activeCluster(h);
    const i = setInsight(h.sim.state, REGION, 'c', {
      name: 'Deprecated APIs removed in Kubernetes v1.32',
      status: 'ERROR',
      reason: 'Deprecated API usage detected',
      recommendation:
        'Update manifests and API clients to use newer Kubernetes APIs if applicable before upgrading.',
      additionalInfo: {
        EksDocumentation: 'https://docs.aws.amazon.com/eks/latest/userguide/cluster-insights.html',
      },
      resources: [{ kubernetesResourceUri: '/apis/flowcontrol.apiserver.k8s.io/v1beta3/flowschemas' }],
      deprecationDetails: [DEPRECATED],
    });
    const out = (await h.eks.send(new DescribeInsightCommand({ clusterName: 'c', id: i.id }))).insight;
    expect(out).toMatchObject({
      id: i.id,
      recommendation: expect.stringMatching(/^Update manifests/),
      additionalInfo: { EksDocumentation: expect.any(String) },
      resources: [
        {
          insightStatus: { status: 'ERROR' },
          kubernetesResourceUri: '/apis/flowcontrol.apiserver.k8s.io/v1beta3/flowschemas',
        },
      ],
    });
    const d = out?.categorySpecificSummary?.deprecationDetails?.[0];
    expect(d).toMatchObject({ usage: DEPRECATED.usage, stopServingVersion: '1.32' });
    expect(d?.clientStats?.[0]?.lastRequestTime?.getTime()).toBe(1_767_225_600_000);
  });

  it('replaces an insight by name, keeps its id, and clears it', async () => {
    await activeCluster(h);
    const a = setInsight(h.sim.state, REGION, 'c', { name: 'Deprecated APIs', status: 'ERROR' });
    const b = setInsight(h.sim.state, REGION, 'c', { name: 'Deprecated APIs', status: 'PASSING' });
    expect(b.id).toBe(a.id);
    expect((await list()).map((i) => i.insightStatus?.status)).toEqual(['PASSING']);
    clearInsights(h.sim.state, REGION, 'c');
    expect(await list()).toEqual([]);
  });

  it('answers 404 for a missing insight or cluster and 400 for an unknown status filter', async () => {
    await activeCluster(h);
    await expectEksError(
      h.eks.send(new DescribeInsightCommand({ clusterName: 'c', id: 'nope' })),
      404,
      'ResourceNotFoundException',
    );
    await expectEksError(
      h.eks.send(new ListInsightsCommand({ clusterName: 'x' })),
      404,
      'ResourceNotFoundException',
    );
    await expectEksError(
      h.eks.send(new ListInsightsCommand({ clusterName: 'c', filter: { statuses: ['BAD' as 'ERROR'] } })),
      400,
      'InvalidParameterException',
    );
  });
});
