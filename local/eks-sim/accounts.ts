/**
 * The simulator's accounts: roles created through the admin API, the temporary credentials its STS
 * issued (each names the account and role it grants), and per-account cluster quotas. Every request
 * is attributed to one account by its SigV4 access key id: an issued key means its account, any other
 * key the default account, so callers that never assume a role see the single-account simulator.
 */
import type { Prng } from './model.js';

const ACCOUNT = /^\d{12}$/;
/** IAM role names: 1-64 of `[\w+=,.@-]` (IAM's rule). */
const ROLE_NAME = /^[\w+=,.@-]{1,64}$/;

export interface RoleRec {
  readonly account: string;
  readonly name: string;
  readonly arn: string;
  /** The `sts:ExternalId` AssumeRole must present, if the role's trust policy requires one. */
  readonly externalId?: string;
  /** IAM's `AROA...` unique id, the first half of an assumed role's `AssumedRoleId`. */
  readonly roleId: string;
}

/** Who a request comes from: its account and the IAM principal behind it. */
export interface Caller {
  readonly account: string;
  /** The IAM role (or, for the default caller, the simulator's fixed role) that signs the request. */
  readonly principalArn: string;
  /** What STS and IAM errors name as the caller: the assumed-role session ARN. */
  readonly arn: string;
  /** GetCallerIdentity's `UserId`. */
  readonly userId: string;
}

export interface IssuedCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken: string;
  readonly expiration: number;
  readonly caller: Caller;
}

/** An invalid account id or role name given to the admin API. */
export class AccountInputError extends Error {
  override readonly name = 'AccountInputError';
}

export const roleArn = (account: string, name: string) => `arn:aws:iam::${account}:role/${name}`;

/** `arn:aws:iam::ACCOUNT:role/[path/]NAME` -> account and name. */
export function parseRoleArn(arn: string): { account: string; name: string } | undefined {
  const m = /^arn:aws:iam::(\d{12}):role\/(?:[^/]+\/)*([^/]+)$/.exec(arn);
  return m ? { account: m[1] as string, name: m[2] as string } : undefined;
}

export function checkAccount(account: string): string {
  if (!ACCOUNT.test(account)) throw new AccountInputError(`account must be 12 digits, got ${account}`);
  return account;
}

export class Accounts {
  private roles = new Map<string, RoleRec>();
  private issued = new Map<string, IssuedCredentials>();
  private quotas = new Map<string, number>();

  constructor(
    /** The account of every request not signed with credentials this simulator issued. */
    readonly defaultAccount: string,
    private readonly defaultCaller: Caller,
  ) {}

  reset(): void {
    this.roles.clear();
    this.issued.clear();
    this.quotas.clear();
  }

  putRole(account: string, name: string, externalId: string | undefined, rng: Prng): RoleRec {
    checkAccount(account);
    if (!ROLE_NAME.test(name)) throw new AccountInputError(`invalid role name ${name}`);
    const arn = roleArn(account, name);
    const rec: RoleRec = {
      account,
      name,
      arn,
      roleId: `AROA${rng.hex(16).toUpperCase()}`,
      ...(externalId === undefined ? {} : { externalId }),
    };
    this.roles.set(arn, rec);
    return rec;
  }

  /** Removes a role; credentials already issued for it stay valid until they expire, as in IAM. */
  deleteRole(account: string, name: string): boolean {
    return this.roles.delete(roleArn(checkAccount(account), name));
  }

  role(arn: string): RoleRec | undefined {
    const p = parseRoleArn(arn);
    return p ? this.roles.get(roleArn(p.account, p.name)) : undefined;
  }

  /** Records credentials for an assumed role; their access key id alone identifies them later. */
  issue(role: RoleRec, sessionName: string, expiration: number, rng: Prng): IssuedCredentials {
    const creds: IssuedCredentials = {
      accessKeyId: `ASIA${rng.hex(16).toUpperCase()}`,
      secretAccessKey: rng.hex(40),
      sessionToken: Buffer.from(`eks-sim-session-${rng.hex(32)}`).toString('base64'),
      expiration,
      caller: {
        account: role.account,
        principalArn: role.arn,
        arn: `arn:aws:sts::${role.account}:assumed-role/${role.name}/${sessionName}`,
        userId: `${role.roleId}:${sessionName}`,
      },
    };
    this.issued.set(creds.accessKeyId, creds);
    return creds;
  }

  /** The caller behind an access key id: an issued key's role session, else the default caller. */
  caller(accessKeyId: string | undefined): Caller {
    return (
      (accessKeyId === undefined ? undefined : this.issued.get(accessKeyId)?.caller) ?? this.defaultCaller
    );
  }

  setQuota(account: string, clustersPerRegion: number): void {
    if (!(Number.isInteger(clustersPerRegion) && clustersPerRegion >= 0)) {
      throw new AccountInputError('clustersPerRegion must be a non-negative integer');
    }
    this.quotas.set(checkAccount(account), clustersPerRegion);
  }

  quota(account: string, fallback: number): number {
    return this.quotas.get(account) ?? fallback;
  }

  /** Every account the simulator knows of besides the default: those with roles or a quota. */
  known(): string[] {
    const all = new Set([this.defaultAccount, ...this.quotas.keys()]);
    for (const r of this.roles.values()) all.add(r.account);
    return [...all].sort();
  }

  rolesOf(account: string): RoleRec[] {
    return [...this.roles.values()].filter((r) => r.account === account);
  }
}
