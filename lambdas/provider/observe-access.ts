/**
 * The access reads of an observation: in an API authentication mode, ListAccessEntries (paged), then
 * DescribeAccessEntry and ListAssociatedAccessPolicies (paged) per entry. Under CONFIG_MAP (or no
 * mode reported, which EKS means the same way) a cluster has no access entries: nothing is called.
 * An entry that vanishes between two calls is left out.
 */
import {
  type AssociatedAccessPolicy,
  DescribeAccessEntryCommand,
  type EKSClient,
  ListAccessEntriesCommand,
  ListAssociatedAccessPoliciesCommand,
} from '@aws-sdk/client-eks';
import type { ObservedAccessEntry } from '../core/observation.js';
import { unlessGone } from './eks-calls.js';
import { OBSERVE_LIMITS, PAGE_SIZE } from './observe-limits.js';
import { allPages, TooManyPagesError, tokenParam } from './paging.js';
import { required } from './to-observation.js';
import { toObservedAccessEntry } from './to-observed-parts.js';

/** Whether a cluster in this authentication mode can have access entries. */
export const hasAccessEntries = (mode: string | undefined): boolean =>
  mode !== undefined && mode !== 'CONFIG_MAP';

function listEntries(client: EKSClient, clusterName: string): Promise<string[]> {
  return allPages(
    OBSERVE_LIMITS.maxAccessEntryPages,
    async (nextToken) => {
      const out = await client.send(
        new ListAccessEntriesCommand({ clusterName, maxResults: PAGE_SIZE, ...tokenParam(nextToken) }),
      );
      return { items: out.accessEntries ?? [], nextToken: out.nextToken };
    },
    () =>
      new TooManyPagesError(
        `cluster ${clusterName}'s access entry list`,
        OBSERVE_LIMITS.maxAccessEntryPages,
        'TooManyAccessEntries',
        `CloudOrch reads at most ${OBSERVE_LIMITS.maxAccessEntryPages * PAGE_SIZE} access entries per cluster; remove unused entries or leave spec.access out.`,
      ),
  );
}

function listPolicies(
  client: EKSClient,
  clusterName: string,
  principalArn: string,
): Promise<AssociatedAccessPolicy[]> {
  return allPages(
    OBSERVE_LIMITS.maxAccessPolicyPages,
    async (nextToken) => {
      const out = await client.send(
        new ListAssociatedAccessPoliciesCommand({
          clusterName,
          principalArn,
          maxResults: PAGE_SIZE,
          ...tokenParam(nextToken),
        }),
      );
      return { items: out.associatedAccessPolicies ?? [], nextToken: out.nextToken };
    },
    () =>
      new TooManyPagesError(
        `the access policies of ${principalArn} on ${clusterName}`,
        OBSERVE_LIMITS.maxAccessPolicyPages,
        'TooManyAccessPolicies',
        'EKS answered more pages than there are access policies; check the configured EKS endpoint.',
      ),
  );
}

/** The cluster's access entries with their policies; `[]` without a call when the mode has none. */
export async function readAccessEntries(
  client: EKSClient,
  clusterName: string,
  mode: string | undefined,
): Promise<ObservedAccessEntry[]> {
  if (!hasAccessEntries(mode)) return [];
  const entries: ObservedAccessEntry[] = [];
  for (const principalArn of await listEntries(client, clusterName)) {
    const described = await unlessGone(() =>
      client.send(new DescribeAccessEntryCommand({ clusterName, principalArn })),
    );
    if (!described) continue;
    const policies = await unlessGone(() => listPolicies(client, clusterName, principalArn));
    if (!policies) continue;
    entries.push(toObservedAccessEntry(required(described.accessEntry, 'accessEntry'), policies));
  }
  return entries;
}
