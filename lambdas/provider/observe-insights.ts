/**
 * The upgrade-readiness reads of an observation: ListInsights for category UPGRADE_READINESS
 * (paged), and DescribeInsight for the ones in ERROR, which are what can block a step, to read their
 * recommendation. At most `maxInsightDescribes` are described; further ERROR insights are still
 * reported, without a recommendation. An insight that vanishes before it is described keeps none.
 */
import {
  DescribeInsightCommand,
  type EKSClient,
  type InsightSummary,
  ListInsightsCommand,
} from '@aws-sdk/client-eks';
import type { ObservedInsight } from '../core/observation.js';
import { unlessGone } from './eks-calls.js';
import { OBSERVE_LIMITS, PAGE_SIZE } from './observe-limits.js';
import { allPages, TooManyPagesError, tokenParam } from './paging.js';
import { toObservedInsight } from './to-observed-parts.js';

function listInsights(client: EKSClient, clusterName: string): Promise<InsightSummary[]> {
  return allPages(
    OBSERVE_LIMITS.maxInsightPages,
    async (nextToken) => {
      const out = await client.send(
        new ListInsightsCommand({
          clusterName,
          filter: { categories: ['UPGRADE_READINESS'] },
          maxResults: PAGE_SIZE,
          ...tokenParam(nextToken),
        }),
      );
      return { items: out.insights ?? [], nextToken: out.nextToken };
    },
    () =>
      new TooManyPagesError(
        `cluster ${clusterName}'s upgrade insights`,
        OBSERVE_LIMITS.maxInsightPages,
        'TooManyInsights',
        'EKS answered more upgrade-readiness insights than it has checks; check the configured EKS endpoint, or set spec.upgrade.readiness to ignore.',
      ),
  );
}

export async function readInsights(client: EKSClient, clusterName: string): Promise<ObservedInsight[]> {
  const summaries = await listInsights(client, clusterName);
  let describes = 0;
  const out: ObservedInsight[] = [];
  for (const s of summaries) {
    let recommendation: string | undefined;
    if (s.insightStatus?.status === 'ERROR' && s.id && describes < OBSERVE_LIMITS.maxInsightDescribes) {
      describes++;
      const id = s.id;
      const read = await unlessGone(() => client.send(new DescribeInsightCommand({ clusterName, id })));
      recommendation = read?.insight?.recommendation;
    }
    out.push(toObservedInsight(s, recommendation));
  }
  return out;
}
