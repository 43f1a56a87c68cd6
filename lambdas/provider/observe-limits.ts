/** The limits that keep one observation's EKS calls bounded, and the bound they give. */

export const OBSERVE_LIMITS = {
  /** ListNodegroups pages (100 names each; EKS allows 30 managed node groups per cluster). */
  maxNodegroupPages: 2,
  /** ListUpdates page size when discovering an untracked update of an UPDATING resource. */
  listUpdatesPageSize: 20,
  /** DescribeUpdate calls per UPDATING resource when looking for its untracked update. */
  maxUntrackedDescribes: 2,
  /** ListAddons pages (100 names each; EKS offers a few dozen add-ons in all). */
  maxAddonPages: 2,
  /** DescribeAddonVersions pages per add-on (100 add-on infos each; one add-on's is a single info). */
  maxAddonVersionPages: 2,
  /** ListAccessEntries pages (100 each). */
  maxAccessEntryPages: 2,
  /** ListAssociatedAccessPolicies pages per entry (100 each; EKS has fewer access policies than that). */
  maxAccessPolicyPages: 2,
  /** ListInsights pages (100 each). */
  maxInsightPages: 2,
  /** DescribeInsight calls (for insights in ERROR, to read their recommendation). */
  maxInsightDescribes: 10,
} as const;

/** Page size of every paged list call of an observation. */
export const PAGE_SIZE = 100;

/** What an observation read beyond the cluster and its node groups (absent: not read, or none). */
export interface ObservedParts {
  /** The node groups were described by name (`nodegroupNames`), not listed: no ListNodegroups page. */
  readonly nodegroupsByName?: boolean;
  /** Add-ons ListAddons named; absent: add-ons were not read. */
  readonly addons?: number;
  /** Pod identity associations of those add-ons, in all. */
  readonly podIdentities?: number;
  /** Add-ons whose versions were read (`addonVersionsOf`). */
  readonly addonVersionsOf?: number;
  /** Access entries listed; absent: access was not read. */
  readonly accessEntries?: number;
  /** Whether upgrade insights were read. */
  readonly insights?: boolean;
}

/**
 * Upper bound of logical EKS calls (before SDK retries) of one observation with `nodegroups` node
 * groups and `tracked` tracked updates (of the control plane, node groups and add-ons):
 *
 *   1 DescribeCluster + maxNodegroupPages (none when described by name) + one DescribeNodegroup each
 *   + one DescribeUpdate per tracked update
 *   + when add-ons are read: maxAddonPages + one DescribeAddon each + one DescribePodIdentityAssociation per association
 *   + maxAddonVersionPages per add-on of `addonVersionsOf`
 *   + when access is read: maxAccessEntryPages + per entry one DescribeAccessEntry and maxAccessPolicyPages
 *   + when insights are read: maxInsightPages + maxInsightDescribes
 *   + for each resource (control plane, node group, add-on) UPDATING without a tracked update in
 *     progress: one ListUpdates plus up to maxUntrackedDescribes DescribeUpdate.
 *
 * With retries, multiply by `maxAttempts`.
 */
export function observeCallBound(nodegroups: number, tracked: number, parts: ObservedParts = {}): number {
  const L = OBSERVE_LIMITS;
  const addons = parts.addons ?? 0;
  const core = 1 + (parts.nodegroupsByName ? 0 : L.maxNodegroupPages) + nodegroups + tracked;
  // Add-ons are read only when asked for (the spec has `addons`).
  const addonReads = parts.addons === undefined ? 0 : L.maxAddonPages + addons + (parts.podIdentities ?? 0);
  const versions = (parts.addonVersionsOf ?? 0) * L.maxAddonVersionPages;
  const access =
    parts.accessEntries === undefined
      ? 0
      : L.maxAccessEntryPages + parts.accessEntries * (1 + L.maxAccessPolicyPages);
  const insights = parts.insights ? L.maxInsightPages + L.maxInsightDescribes : 0;
  const discovery = (1 + nodegroups + addons) * (1 + L.maxUntrackedDescribes);
  return core + addonReads + versions + access + insights + discovery;
}
