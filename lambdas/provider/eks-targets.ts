/**
 * What the EKS reader and writer share: the client of a target (its region, and the role in its
 * account when that is not the stack's), and the error naming a target role STS refused.
 */
import type { EKSClient } from '@aws-sdk/client-eks';
import { ENV } from '../config.js';
import { PermanentError } from '../core/errors.js';
import { UNREACHABLE_TARGET } from '../core/target.js';
import { type EksClientOptions, EksClients, targetRoleArn } from './clients.js';

/** No deployment defaults here: the planner resolves them into the operations it plans. */
export interface EksProviderOptions extends EksClientOptions {
  /** The role to assume for targets in the stack's own account (tests; the stack uses none). */
  readonly assumeRoleArn?: string;
  /**
   * The role name this function assumes in another target account (`spec.accountId`), as
   * `arn:aws:iam::<account>:role/<name>`. Absent: targets in other accounts are refused.
   */
  readonly targetRoleName?: string;
  /** The stack's own account: a target naming it explicitly is refused (leave accountId out). */
  readonly ownAccountId?: string;
  /** A shared client cache (one per process); by default the provider owns one. */
  readonly clients?: EksClients;
}

export class EksTargets {
  readonly clients: EksClients;
  private readonly roleArn: string | undefined;

  private readonly targetRoleName: string | undefined;
  private readonly ownAccountId: string | undefined;

  constructor(opts: EksProviderOptions = {}) {
    this.clients = opts.clients ?? new EksClients(opts);
    this.roleArn = opts.assumeRoleArn;
    this.targetRoleName = opts.targetRoleName;
    this.ownAccountId = opts.ownAccountId;
  }

  /** The client for a target: its region, and the role in its account when that is not the stack's. */
  protected client(region: string, accountId?: string): EKSClient {
    return this.clients.forRegion(
      region,
      accountId === undefined ? this.roleArn : this.targetRole(accountId, region),
    );
  }

  private targetRole(accountId: string, region: string): string {
    if (accountId === this.ownAccountId)
      throw new PermanentError(`spec.accountId ${accountId} is the stack's own account`, {
        code: UNREACHABLE_TARGET.ownAccount,
        remediation:
          "Leave spec.accountId out for clusters in CloudOrch's own account: one cluster has one target, and a record naming the account would be a second one.",
      });
    if (!this.targetRoleName)
      throw new PermanentError(`cluster in account ${accountId}: this deployment manages no other account`, {
        code: UNREACHABLE_TARGET.noTargetAccounts,
        remediation: `This deployment reaches no other account: its functions have no target role name (${ENV.targetRoleName}). Leave spec.accountId out to manage the cluster in CloudOrch's own account.`,
      });
    return targetRoleArn(accountId, this.targetRoleName, region);
  }

  /** STS refusing the target account's role: a permanent error naming the role to create or allow. */
  protected explainAssumeDenied(accountId: string | undefined, region: string, e: unknown): unknown {
    if (accountId === undefined || !(e instanceof PermanentError) || e.code !== 'AccessDenied') return e;
    const role = targetRoleArn(accountId, this.targetRoleName ?? '', region);
    return new PermanentError(`cannot assume ${role} in account ${accountId}: ${e.message}`, {
      code: UNREACHABLE_TARGET.roleDenied,
      cause: e,
      remediation: `Create ${role} in account ${accountId}, trusting CloudOrch's function role, and let that function assume it (sts:AssumeRole).`,
    });
  }
}
