/**
 * Add-on records per cluster, kept beside the shared state (a WeakMap on the cluster record, so a deleted
 * or reset cluster takes its add-ons with it), their lazy transitions on the simulator's clock, their
 * AddonUpdate records, and the fault hooks the admin API calls (DEGRADED with EKS's issue codes).
 */
import type { ClusterRec, Transition } from './model.js';
import { SimError } from './model.js';
import type { SimState } from './state.js';

/** Durations at speed 1 (milliseconds), the add-on counterpart of model.ts's node group durations. */
export const ADDON_DURATIONS = {
  create: 60_000,
  update: 60_000,
  delete: 30_000,
} as const;

/** EKS's AddonIssueCode enum (the API model's values): the codes a DEGRADED add-on's health can carry. */
export const ADDON_ISSUE_CODES = [
  'AccessDenied',
  'InternalFailure',
  'ClusterUnreachable',
  'InsufficientNumberOfReplicas',
  'ConfigurationConflict',
  'AdmissionRequestDenied',
  'UnsupportedAddonModification',
  'K8sResourceNotFound',
  'AddonSubscriptionNeeded',
  'AddonPermissionFailure',
] as const;
export type AddonIssueCode = (typeof ADDON_ISSUE_CODES)[number];

export interface AddonIssue {
  readonly code: string;
  readonly message: string;
  readonly resourceIds: readonly string[];
}

export interface AddonUpdateRec {
  readonly id: string;
  status: 'InProgress' | 'Successful' | 'Failed';
  readonly params: readonly { type: string; value: string }[];
  readonly createdAt: number;
  readonly doneAt: number;
  readonly effect: () => void;
  /** Set by the admin API's fail-next-update: the update ends Failed with this error, nothing applied. */
  readonly failure?: string | undefined;
}

export interface AddonRec {
  readonly name: string;
  readonly arn: string;
  readonly clusterName: string;
  version: string;
  status: string;
  transition?: Transition | undefined;
  serviceAccountRoleArn?: string | undefined;
  configurationValues?: string | undefined;
  podIdentityAssociations: string[];
  tags: Record<string, string>;
  readonly createdAt: number;
  modifiedAt: number;
  issues: AddonIssue[];
  readonly updates: AddonUpdateRec[];
  /** The last DeleteAddon's `preserve`: whether EKS would have left the add-on's Kubernetes resources. */
  preserved?: boolean;
}

const store = new WeakMap<ClusterRec, Map<string, AddonRec>>();

/** A cluster's add-ons with every due transition applied (state.tick does not know them). */
export function addonsOf(state: SimState, c: ClusterRec): Map<string, AddonRec> {
  let m = store.get(c);
  if (!m) {
    m = new Map();
    store.set(c, m);
  }
  settle(state.now(), m);
  return m;
}

/** Settled status: ACTIVE unless health issues make it DEGRADED. */
const restingStatus = (a: AddonRec) => (a.issues.length > 0 ? 'DEGRADED' : 'ACTIVE');

function settle(now: number, m: Map<string, AddonRec>): void {
  for (const a of [...m.values()]) {
    for (const u of a.updates) {
      if (u.status !== 'InProgress' || u.doneAt > now) continue;
      a.modifiedAt = u.doneAt;
      if (u.failure) {
        // [sim] EKS reports a failed add-on update as UPDATE_FAILED until a later update succeeds.
        u.status = 'Failed';
        a.status = 'UPDATE_FAILED';
        continue;
      }
      u.status = 'Successful';
      u.effect();
      a.status = restingStatus(a);
    }
    if (a.transition && a.transition.at <= now) {
      if (a.transition.to === null) m.delete(a.name);
      else a.status = a.transition.to === 'ACTIVE' ? restingStatus(a) : a.transition.to;
      a.transition = undefined;
    }
  }
}

export const addonNotFound = (clusterName: string, addonName: string) => {
  const extra: SimError['extra'] & { addonName?: string } = { clusterName, addonName };
  // [real] the message EKS gives DescribeAddon for a missing add-on.
  return new SimError(
    404,
    'ResourceNotFoundException',
    `No addon: ${addonName} found in cluster: ${clusterName}`,
    extra,
  );
};

export function addonOf(state: SimState, c: ClusterRec, name: string): AddonRec {
  const a = addonsOf(state, c).get(name);
  if (!a) throw addonNotFound(c.name, name);
  return a;
}

/** The add-on update still running, if any: one at a time per add-on. */
export const addonUpdateInProgress = (a: AddonRec) => a.updates.find((u) => u.status === 'InProgress');

/**
 * Marks an add-on DEGRADED with an EKS issue code (AddonIssueCode, e.g. `InsufficientNumberOfReplicas`),
 * for the admin API and fault tests; an add-on still creating or updating turns DEGRADED when it settles.
 */
export function markAddonDegraded(
  state: SimState,
  region: string,
  clusterName: string,
  addonName: string,
  issue: { code: string; message?: string; resourceIds?: readonly string[] },
  account?: string,
): AddonRec {
  const a = addonOf(state, state.cluster(region, clusterName, account), addonName);
  a.issues.push({
    code: issue.code,
    message: issue.message ?? `Add-on ${addonName} is degraded: ${issue.code}`,
    resourceIds: issue.resourceIds ?? [],
  });
  if (a.status === 'ACTIVE') a.status = 'DEGRADED';
  return a;
}

/** Clears an add-on's health issues; a DEGRADED add-on returns to ACTIVE. */
export function clearAddonHealth(
  state: SimState,
  region: string,
  clusterName: string,
  addonName: string,
  account?: string,
): AddonRec {
  const a = addonOf(state, state.cluster(region, clusterName, account), addonName);
  a.issues = [];
  if (a.status === 'DEGRADED') a.status = 'ACTIVE';
  return a;
}

/** An add-on's updates, oldest first: what ListUpdates/DescribeUpdate with `addonName` see. */
export function addonUpdates(state: SimState, c: ClusterRec, addonName: string): readonly AddonUpdateRec[] {
  return addonOf(state, c, addonName).updates;
}

const seconds = (ms: number) => ms / 1000;

export function addonJson(a: AddonRec): Record<string, unknown> {
  return {
    addonName: a.name,
    clusterName: a.clusterName,
    status: a.status,
    addonVersion: a.version,
    // EKS answers `issues: []` for a healthy add-on.
    health: { issues: a.issues.map((i) => ({ ...i, resourceIds: [...i.resourceIds] })) },
    addonArn: a.arn,
    createdAt: seconds(a.createdAt),
    modifiedAt: seconds(a.modifiedAt),
    ...(a.serviceAccountRoleArn ? { serviceAccountRoleArn: a.serviceAccountRoleArn } : {}),
    tags: a.tags,
    publisher: 'eks',
    owner: 'aws',
    ...(a.configurationValues !== undefined ? { configurationValues: a.configurationValues } : {}),
    ...(a.podIdentityAssociations.length > 0 ? { podIdentityAssociations: a.podIdentityAssociations } : {}),
  };
}

export function addonUpdateJson(u: AddonUpdateRec): Record<string, unknown> {
  return {
    id: u.id,
    status: u.status,
    type: 'AddonUpdate',
    params: u.params,
    createdAt: seconds(u.createdAt),
    errors:
      u.failure && u.status === 'Failed'
        ? [{ errorCode: u.failure, errorMessage: `[sim] ${u.failure}`, resourceIds: [] }]
        : [],
  };
}
