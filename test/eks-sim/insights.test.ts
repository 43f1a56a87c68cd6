/**
 * Upgrade insights through the real SDK against the simulator: the standard checks reported PASSING about
 * the next minor, others set through the module's hook (the admin API's), listed with EKS's filter,
 * described with recommendation and deprecation details.
 */
import {
  DescribeInsightCommand,
  type InsightsFilter,
  ListInsightsCommand,
  UpdateClusterVersionCommand,
} from '@aws-sdk/client-eks';
import { describe, expect, it } from 'vitest';
import { clearInsights, setInsight } from '../../local/eks-sim/insights.js';
import { DEFAULT_DURATIONS } from '../../local/eks-sim/model.js';
import { standardInsightNames } from './support/standard-insights.js';
import { activeCluster, expectEksError, REGION, useSimulator } from './support.js';

const h = useSimulator();

const list = async (filter?: InsightsFilter, clusterName = 'c') =>
  (await h.eks.send(new ListInsightsCommand({ clusterName, filter }))).insights ?? [];

const DEPRECATED = {
  usage: '/apis/flowcontrol.apiserver.k8s.io/v1beta3/flowschemas',
  replacedWith: '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas',
  stopServingVersion: '1.32',
  clientStats: [{ userAgent: 'kubectl', numberOfRequestsLast30Days: 12, lastRequestTime: 1_767_225_600_000 }],
};

describe('ListInsights and DescribeInsight', () => {
  it('lists the standard checks PASSING for the next minor, adds what the hook sets, and filters as EKS does', async () => {
    await activeCluster(h); // 1.30: insights default to the next minor, 1.31.
    const fresh = await list();
    expect(fresh.map((i) => i.name)).toEqual(standardInsightNames('1.31'));
    for (const i of fresh) {
      expect(i).toMatchObject({
        category: 'UPGRADE_READINESS',
        kubernetesVersion: '1.31',
        insightStatus: { status: 'PASSING' },
      });
    }
    const kubelet = fresh.find((i) => i.name === 'Kubelet version skew');
    const err = setInsight(h.sim.state, REGION, 'c', {
      name: 'Deprecated APIs removed in Kubernetes v1.32',
      status: 'ERROR',
      reason: 'Deprecated API usage detected within last 30 days.',
      kubernetesVersion: '1.32',
    });
    const skew = setInsight(h.sim.state, REGION, 'c', {
      name: 'Kubelet version skew',
      status: 'WARNING',
      reason: 'Node kubelet is two minors behind',
    });
    expect(skew.id).toBe(kubelet?.id);
    setInsight(h.sim.state, REGION, 'c', {
      name: 'Misconfigured',
      status: 'WARNING',
      category: 'MISCONFIGURATION',
    });

    const all = await list();
    expect(all.map((i) => i.name)).toEqual([
      'Amazon EKS add-on version compatibility',
      'Cluster health issues',
      'Deprecated APIs removed in Kubernetes v1.31',
      'Deprecated APIs removed in Kubernetes v1.32',
      'kube-proxy version skew',
      'Kubelet version skew',
      'Misconfigured',
    ]);
    expect(all[3]).toMatchObject({
      id: err.id,
      category: 'UPGRADE_READINESS',
      kubernetesVersion: '1.32',
      insightStatus: { status: 'ERROR', reason: 'Deprecated API usage detected within last 30 days.' },
    });
    expect(all[3]?.lastRefreshTime).toBeInstanceOf(Date);
    expect(all[5]).toMatchObject({ kubernetesVersion: '1.31', insightStatus: { status: 'WARNING' } });

    const names = async (filter: InsightsFilter) => (await list(filter)).map((i) => i.name);
    expect(await names({ categories: ['UPGRADE_READINESS'] })).toHaveLength(6);
    expect(await names({ statuses: ['ERROR', 'WARNING'] })).toEqual([
      'Deprecated APIs removed in Kubernetes v1.32',
      'Kubelet version skew',
      'Misconfigured',
    ]);
    expect(await names({ kubernetesVersions: ['1.32'], categories: ['UPGRADE_READINESS'] })).toEqual([
      'Deprecated APIs removed in Kubernetes v1.32',
    ]);
    expect(await names({ kubernetesVersions: ['1.31'], statuses: ['PASSING'] })).toEqual(
      standardInsightNames('1.31').filter((n) => n !== 'Kubelet version skew'),
    );
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

  it('replaces an insight of the same name and version, keeps its id, and clears back to the standard set', async () => {
    await activeCluster(h);
    const a = setInsight(h.sim.state, REGION, 'c', { name: 'Deprecated APIs', status: 'ERROR' });
    const b = setInsight(h.sim.state, REGION, 'c', { name: 'Deprecated APIs', status: 'PASSING' });
    expect(b.id).toBe(a.id);
    const other = setInsight(h.sim.state, REGION, 'c', {
      name: 'Deprecated APIs',
      status: 'WARNING',
      kubernetesVersion: '1.32',
    });
    expect(other.id).not.toBe(a.id);
    const health = (await list()).find((i) => i.name === 'Cluster health issues');
    const failing = setInsight(h.sim.state, REGION, 'c', { name: 'Cluster health issues', status: 'ERROR' });
    expect(failing.id).toBe(health?.id);
    expect((await list()).map((i) => [i.name, i.kubernetesVersion, i.insightStatus?.status])).toEqual([
      ['Amazon EKS add-on version compatibility', '1.31', 'PASSING'],
      ['Cluster health issues', '1.31', 'ERROR'],
      ['Deprecated APIs', '1.31', 'PASSING'],
      ['Deprecated APIs', '1.32', 'WARNING'],
      ['Deprecated APIs removed in Kubernetes v1.31', '1.31', 'PASSING'],
      ['kube-proxy version skew', '1.31', 'PASSING'],
      ['Kubelet version skew', '1.31', 'PASSING'],
    ]);

    clearInsights(h.sim.state, REGION, 'c');
    const back = await list();
    expect(back.map((i) => i.name)).toEqual(standardInsightNames('1.31'));
    expect(new Set(back.map((i) => i.insightStatus?.status))).toEqual(new Set(['PASSING']));
  });

  it('reports the standard set for the new next minor once an upgrade completes, and none at the newest minor', async () => {
    await activeCluster(h);
    expect((await list()).map((i) => i.kubernetesVersion)).toEqual(Array(5).fill('1.31'));
    await h.eks.send(new UpdateClusterVersionCommand({ name: 'c', version: '1.31' }));
    await h.admin.advance(DEFAULT_DURATIONS.clusterVersionUpdate);
    const next = await list({ kubernetesVersions: ['1.32'] });
    expect(next.map((i) => i.name)).toEqual(standardInsightNames('1.32'));
    expect(new Set(next.map((i) => i.insightStatus?.status))).toEqual(new Set(['PASSING']));
    const described = await h.eks.send(new DescribeInsightCommand({ clusterName: 'c', id: next[0]?.id }));
    expect(described.insight).toMatchObject({
      kubernetesVersion: '1.32',
      insightStatus: { status: 'PASSING' },
    });

    const newest = h.sim.state.config.supportedVersions.at(-1) as string;
    await activeCluster(h, { name: 'newest', version: newest });
    expect(await list(undefined, 'newest')).toEqual([]);
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
