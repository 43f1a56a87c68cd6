/**
 * Cluster insights (ListInsights, DescribeInsight). EKS computes them from the cluster's audit logs and
 * keeps a standard set of upgrade-readiness checks about the next minor. The simulator has no
 * workloads: it reports that standard set as PASSING for the cluster's next minor [sim], and anything
 * else only when set through {@link setInsight} (the admin API's hook), which also replaces a standard
 * insight of the same name and version. Kept per cluster record beside the shared state.
 */
import type { ClusterRec } from './model.js';
import { SimError } from './model.js';
import { type Handler, page, param } from './request.js';
import { invalidParameter } from './rules.js';
import type { SimState } from './state.js';

export const INSIGHT_CATEGORIES = ['UPGRADE_READINESS', 'MISCONFIGURATION', 'ROLLBACK_READINESS'] as const;
export const INSIGHT_STATUSES = ['PASSING', 'WARNING', 'ERROR', 'UNKNOWN'] as const;

export interface DeprecationDetail {
  readonly usage: string;
  readonly replacedWith?: string;
  readonly stopServingVersion?: string;
  readonly startServingReplacementVersion?: string;
  readonly clientStats?: readonly {
    userAgent: string;
    numberOfRequestsLast30Days: number;
    lastRequestTime: number;
  }[];
}

/** What the admin API sets; omitted members get EKS-like defaults. */
export interface InsightInput {
  /** Replaces the insight with this id, or (without one) the insight with the same name and version. */
  readonly id?: string;
  readonly name: string;
  readonly status: (typeof INSIGHT_STATUSES)[number];
  readonly reason?: string;
  readonly category?: (typeof INSIGHT_CATEGORIES)[number];
  /** The minor the insight is about; default the cluster's next minor (the upgrade target). */
  readonly kubernetesVersion?: string;
  readonly description?: string;
  readonly recommendation?: string;
  readonly additionalInfo?: Readonly<Record<string, string>>;
  readonly resources?: readonly {
    kubernetesResourceUri?: string;
    arn?: string;
    status?: string;
    reason?: string;
  }[];
  readonly deprecationDetails?: readonly DeprecationDetail[];
}

interface InsightRec extends InsightInput {
  readonly id: string;
  readonly category: (typeof INSIGHT_CATEGORIES)[number];
  readonly kubernetesVersion: string;
  readonly lastRefreshTime: number;
  readonly lastTransitionTime: number;
}

const store = new WeakMap<ClusterRec, Map<string, InsightRec>>();

function insightsOf(c: ClusterRec): Map<string, InsightRec> {
  let m = store.get(c);
  if (!m) {
    m = new Map();
    store.set(c, m);
  }
  return m;
}

function nextMinor(state: SimState, version: string): string {
  const all = state.config.supportedVersions;
  return all[all.indexOf(version) + 1] ?? version;
}

/** EKS's standard upgrade-readiness checks, by the minor they are about (names as EKS shows them). */
const STANDARD_INSIGHTS = (minor: string) => [
  `Deprecated APIs removed in Kubernetes v${minor}`,
  'Kubelet version skew',
  'kube-proxy version skew',
  'Amazon EKS add-on version compatibility',
  'Cluster health issues',
];

/**
 * The standard checks about the cluster's next minor, PASSING [sim] (the simulator sees no workload
 * that could fail them), added once per minor unless an insight of that name is already there.
 */
function ensureStandard(state: SimState, c: ClusterRec): void {
  const minor = nextMinor(state, c.version);
  if (minor === c.version) return;
  const m = insightsOf(c);
  const now = state.now();
  for (const name of STANDARD_INSIGHTS(minor)) {
    if ([...m.values()].some((i) => i.name === name && i.kubernetesVersion === minor)) continue;
    const id = state.rng.uuid();
    m.set(id, {
      id,
      name,
      status: 'PASSING',
      reason: 'No issue detected.',
      category: 'UPGRADE_READINESS',
      kubernetesVersion: minor,
      description: `Checks ${name.toLowerCase()} before an upgrade to Kubernetes ${minor}.`,
      recommendation: 'No action needed.',
      lastRefreshTime: now,
      lastTransitionTime: now,
    });
  }
}

/** Sets (adds or replaces) an insight on a cluster; the transition time moves only when the status does. */
export function setInsight(
  state: SimState,
  region: string,
  clusterName: string,
  input: InsightInput,
  account?: string,
): InsightRec {
  if (!INSIGHT_STATUSES.includes(input.status))
    throw invalidParameter(`unknown insight status ${input.status}`); // [sim]
  const c = state.cluster(region, clusterName, account);
  ensureStandard(state, c);
  const m = insightsOf(c);
  const version = input.kubernetesVersion ?? nextMinor(state, c.version);
  const prev =
    input.id !== undefined
      ? m.get(input.id)
      : [...m.values()].find((i) => i.name === input.name && i.kubernetesVersion === version);
  const now = state.now();
  const rec: InsightRec = {
    ...input,
    id: prev?.id ?? input.id ?? state.rng.uuid(),
    category: input.category ?? 'UPGRADE_READINESS',
    kubernetesVersion: version,
    lastRefreshTime: now,
    lastTransitionTime: prev && prev.status === input.status ? prev.lastTransitionTime : now,
  };
  m.set(rec.id, rec);
  return rec;
}

/**
 * Removes one insight (by id) or, without an id, all of a cluster's insights; the standard checks come
 * back PASSING on the next read, as EKS's refresh would report them once the cause is gone.
 */
export function clearInsights(
  state: SimState,
  region: string,
  clusterName: string,
  id?: string,
  account?: string,
): void {
  const m = insightsOf(state.cluster(region, clusterName, account));
  if (id === undefined) m.clear();
  else m.delete(id);
}

const seconds = (ms: number) => ms / 1000;

function summaryJson(i: InsightRec): Record<string, unknown> {
  return {
    id: i.id,
    name: i.name,
    category: i.category,
    kubernetesVersion: i.kubernetesVersion,
    lastRefreshTime: seconds(i.lastRefreshTime),
    lastTransitionTime: seconds(i.lastTransitionTime),
    description: i.description ?? i.name,
    insightStatus: { status: i.status, reason: i.reason ?? '' },
  };
}

function insightJson(i: InsightRec): Record<string, unknown> {
  return {
    ...summaryJson(i),
    recommendation: i.recommendation ?? '',
    additionalInfo: { ...i.additionalInfo },
    resources: (i.resources ?? []).map((r) => ({
      insightStatus: { status: r.status ?? i.status, reason: r.reason ?? '' },
      ...(r.kubernetesResourceUri ? { kubernetesResourceUri: r.kubernetesResourceUri } : {}),
      ...(r.arn ? { arn: r.arn } : {}),
    })),
    categorySpecificSummary: {
      deprecationDetails: (i.deprecationDetails ?? []).map((d) => ({
        ...d,
        clientStats: (d.clientStats ?? []).map((s) => ({
          ...s,
          lastRequestTime: seconds(s.lastRequestTime),
        })),
      })),
    },
  };
}

/** A filter member: absent, or a list of allowed values. */
function filterList(
  filter: Record<string, unknown>,
  key: string,
  allowed?: readonly string[],
): string[] | undefined {
  const v = filter[key];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string' || (allowed && !allowed.includes(s)))) {
    throw invalidParameter(`filter.${key} must list values of ${allowed?.join(', ') ?? 'strings'}`); // [sim]
  }
  return v as string[];
}

export const listInsights: Handler = (r) => {
  const c = r.state.cluster(r.region, param(r, 'name'), r.caller.account);
  ensureStandard(r.state, c);
  const raw = r.body.filter ?? {};
  if (typeof raw !== 'object' || raw === null) throw invalidParameter('filter must be an object'); // [sim]
  const f = raw as Record<string, unknown>;
  const categories = filterList(f, 'categories', INSIGHT_CATEGORIES);
  const versions = filterList(f, 'kubernetesVersions');
  const statuses = filterList(f, 'statuses', INSIGHT_STATUSES);
  const matching = [...insightsOf(c).values()]
    .filter(
      (i) =>
        (!categories || categories.includes(i.category)) &&
        (!versions || versions.includes(i.kubernetesVersion)) &&
        (!statuses || statuses.includes(i.status)),
    )
    .sort((a, b) => a.name.localeCompare(b.name));
  // ListInsights pages through body members, not the query string.
  const q = new URLSearchParams();
  if (r.body.maxResults !== undefined) q.set('maxResults', String(r.body.maxResults));
  if (typeof r.body.nextToken === 'string') q.set('nextToken', r.body.nextToken);
  const { items, nextToken } = page(matching, q);
  return { insights: items.map(summaryJson), ...(nextToken ? { nextToken } : {}) };
};

export const describeInsight: Handler = (r) => {
  const c = r.state.cluster(r.region, param(r, 'name'), r.caller.account);
  ensureStandard(r.state, c);
  const id = param(r, 'id');
  const i = insightsOf(c).get(id);
  // [sim] EKS's wording for a missing insight is not documented.
  if (!i)
    throw new SimError(404, 'ResourceNotFoundException', `No insight found for id: ${id}`, {
      clusterName: c.name,
    });
  return { insight: insightJson(i) };
};
