/**
 * One canonical health vocabulary. Providers map their status strings here; nothing downstream
 * compares raw EKS status strings.
 */
export const Health = {
  Healthy: 'Healthy',
  Progressing: 'Progressing',
  Degraded: 'Degraded',
  Failed: 'Failed',
  Deleting: 'Deleting',
  Unknown: 'Unknown',
} as const;
export type Health = (typeof Health)[keyof typeof Health];

/** EKS `ClusterStatus` (model enum). PENDING is undocumented; it is treated as non-terminal. */
export const CLUSTER_STATUS_HEALTH = {
  CREATING: Health.Progressing,
  ACTIVE: Health.Healthy,
  UPDATING: Health.Progressing,
  DELETING: Health.Deleting,
  FAILED: Health.Failed,
  PENDING: Health.Progressing,
} as const satisfies Record<string, Health>;

/** EKS `NodegroupStatus` (model enum). */
export const NODEGROUP_STATUS_HEALTH = {
  CREATING: Health.Progressing,
  ACTIVE: Health.Healthy,
  UPDATING: Health.Progressing,
  DELETING: Health.Deleting,
  CREATE_FAILED: Health.Failed,
  DELETE_FAILED: Health.Failed,
  DEGRADED: Health.Degraded,
} as const satisfies Record<string, Health>;

/** EKS `UpdateStatus` (model enum). A cancelled update did not do what was asked: Degraded. */
/** EKS `AddonStatus`. */
export const ADDON_STATUS_HEALTH = {
  CREATING: Health.Progressing,
  ACTIVE: Health.Healthy,
  UPDATING: Health.Progressing,
  DELETING: Health.Deleting,
  CREATE_FAILED: Health.Failed,
  UPDATE_FAILED: Health.Failed,
  DELETE_FAILED: Health.Failed,
  DEGRADED: Health.Degraded,
} as const satisfies Record<string, Health>;

export const UPDATE_STATUS_HEALTH = {
  InProgress: Health.Progressing,
  Successful: Health.Healthy,
  Failed: Health.Failed,
  Cancelled: Health.Degraded,
} as const satisfies Record<string, Health>;

function lookup(table: Record<string, Health>, status: string | undefined): Health {
  return status !== undefined && Object.hasOwn(table, status) ? (table[status] as Health) : Health.Unknown;
}

/** An ACTIVE resource that reports health issues is Degraded, never Healthy. */
function withIssues(h: Health, issueCount: number): Health {
  return h === Health.Healthy && issueCount > 0 ? Health.Degraded : h;
}

export function clusterHealth(status: string | undefined, issueCount = 0): Health {
  return withIssues(lookup(CLUSTER_STATUS_HEALTH, status), issueCount);
}

export function nodegroupHealth(status: string | undefined, issueCount = 0): Health {
  return withIssues(lookup(NODEGROUP_STATUS_HEALTH, status), issueCount);
}

export function updateHealth(status: string | undefined): Health {
  return lookup(UPDATE_STATUS_HEALTH, status);
}

/** True while EKS is still working on the resource: the planner waits instead of calling again. */
export function isTransitional(h: Health): boolean {
  return h === Health.Progressing || h === Health.Deleting;
}

/** An add-on's health: its status, Degraded when ACTIVE with health issues. */
export function addonHealth(status: string | undefined, issueCount = 0): Health {
  return withIssues(lookup(ADDON_STATUS_HEALTH, status), issueCount);
}
