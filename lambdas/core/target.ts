/**
 * A cluster target: (account, region, clusterName) names one EKS cluster, and belongs to exactly one
 * record. Targets without an account live in the stack's own account.
 */
export const DEFAULT_ACCOUNT = 'default';

export interface Target {
  /** `spec.accountId`; absent: the stack's own account. */
  readonly accountId?: string | undefined;
  readonly region: string;
  readonly clusterName: string;
}

/** `account/region/clusterName`: how a target is named in messages and compared. */
export function describeTarget(t: Target): string {
  return `${t.accountId ?? DEFAULT_ACCOUNT}/${t.region}/${t.clusterName}`;
}
