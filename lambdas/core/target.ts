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

/**
 * Why a target cannot be reached at all (the error codes the provider gives): the spec names the
 * stack's own account, the deployment reaches no other account, or STS refused the role there.
 */
export const UNREACHABLE_TARGET = {
  ownAccount: 'OwnAccountNamed',
  noTargetAccounts: 'NoTargetAccounts',
  roleDenied: 'AssumeRoleDenied',
} as const;

export const isUnreachableCode = (code: string | undefined): boolean =>
  code !== undefined && (Object.values(UNREACHABLE_TARGET) as string[]).includes(code);
