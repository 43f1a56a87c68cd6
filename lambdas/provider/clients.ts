/**
 * EKS clients, created once and reused across Lambda invocations: one per (region, assumed role).
 * Credentials come from the SDK's standard provider chain unless given; a role to assume per target
 * account is optional. The endpoint is only overridden by explicit configuration (the constructor
 * option, or `CLOUDORCH_EKS_ENDPOINT`), which is how local mode points the same code at the simulator.
 */
import { EKSClient, type EKSClientConfig } from '@aws-sdk/client-eks';
import { fromTemporaryCredentials } from '@aws-sdk/credential-providers';
import { ENV } from '../config.js';
import { budgetedRetryStrategy, EKS_RETRY_BUDGET, type RetryBudget } from './retry.js';

/**
 * Per-request deadlines, so a hung connection becomes a retryable `TimeoutError` and a reconcile step
 * always keeps time to write status.
 */
export const HTTP_TIMEOUTS = {
  connectionTimeout: 3_000,
  requestTimeout: 15_000,
  // Without it the SDK only logs a warning when requestTimeout passes and the call hangs on.
  throwOnRequestTimeout: true,
} as const;

/** Session length for assumed roles; the SDK refreshes before expiry. */
const ASSUME_ROLE_SECONDS = 3600;

/** The AWS partition of a region: China and GovCloud regions have their own. */
export function partitionOf(region: string): string {
  if (region.startsWith('cn-')) return 'aws-cn';
  if (region.startsWith('us-gov-')) return 'aws-us-gov';
  return 'aws';
}

/** The account whose EKS API a client calls: the assumed role's, else the own account (`own` if unknown). */
export function accountOf(roleArn: string | undefined, ownAccountId: string | undefined): string {
  const fromRole = roleArn?.split(':')[4];
  if (fromRole && /^\d{12}$/.test(fromRole)) return fromRole;
  return ownAccountId || 'own';
}

/** The role CloudOrch assumes in a target account: one name per function side, in every account. */
export function targetRoleArn(accountId: string, roleName: string, region = 'us-east-1'): string {
  return `arn:${partitionOf(region)}:iam::${accountId}:role/${roleName}`;
}

export interface EksClientOptions {
  /** Explicit endpoint (e.g. the simulator). Default: `process.env.CLOUDORCH_EKS_ENDPOINT`, else AWS. */
  readonly endpoint?: string;
  /** Base credentials. Default: the SDK's standard provider chain. */
  readonly credentials?: EKSClientConfig['credentials'];
  /** Overrides of the retry budget (tests shorten the delays; production uses the defaults). */
  readonly retry?: Partial<RetryBudget>;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Told about each throttled EKS attempt, with its region and account (the EksThrottled metric). */
  readonly onThrottle?: (region: string, account: string) => void;
  /** The stack's own account id (CLOUDORCH_ACCOUNT_ID): the account of clients without a role. */
  readonly ownAccountId?: string;
  /** Sent as ExternalId on every AssumeRole (the target roles' trust policy requires it). */
  readonly externalId?: string;
  /**
   * Awaited before every HTTP attempt, retries included (the EKS budget of the region and account):
   * EKS's control-plane API throttles long before anything else in the pipeline does.
   */
  readonly beforeAttempt?: (region: string, account: string) => Promise<void>;
}

export class EksClients {
  private readonly cache = new Map<string, EKSClient>();
  /** Assumed-role credentials by role ARN, shared by that account's clients in every region. */
  private readonly sessions = new Map<string, AwsCredentialIdentityProvider>();
  readonly endpoint: string | undefined;
  readonly budget: RetryBudget;

  constructor(private readonly opts: EksClientOptions = {}) {
    const env = opts.env ?? process.env;
    this.endpoint = opts.endpoint ?? (env[ENV.eksEndpoint] || undefined);
    this.budget = { ...EKS_RETRY_BUDGET, ...opts.retry };
  }

  /** The client for a region, assuming `roleArn` (the target account's role) when given. */
  forRegion(region: string, roleArn?: string): EKSClient {
    const key = `${region}|${roleArn ?? ''}`;
    let client = this.cache.get(key);
    if (!client) {
      const account = accountOf(roleArn, this.opts.ownAccountId);
      client = new EKSClient({
        region,
        ...(this.endpoint ? { endpoint: this.endpoint } : {}),
        ...this.credentialsFor(region, roleArn),
        maxAttempts: this.budget.maxAttempts,
        retryStrategy: budgetedRetryStrategy(this.budget, Math.random, () =>
          this.opts.onThrottle?.(region, account),
        ),
        requestHandler: HTTP_TIMEOUTS,
      });
      const wait = this.opts.beforeAttempt;
      if (wait) {
        // The deserialize step runs once per attempt, inside the retry loop of finalizeRequest.
        client.middlewareStack.add(
          (next) => async (args) => {
            await wait(region, account);
            return next(args);
          },
          { step: 'deserialize', name: 'cloudorchRateLimit' },
        );
      }
      this.cache.set(key, client);
    }
    return client;
  }

  get size(): number {
    return this.cache.size;
  }

  /** Closes every cached client's sockets (tests; Lambda reuses them for the container's life). */
  destroy(): void {
    for (const c of this.cache.values()) c.destroy();
    this.cache.clear();
    this.sessions.clear();
  }

  private credentialsFor(region: string, roleArn: string | undefined): Pick<EKSClientConfig, 'credentials'> {
    const base = this.opts.credentials;
    if (!roleArn) return base === undefined ? {} : { credentials: base };
    // One session per role, whatever the region: every client of an account shares its credentials.
    let shared = this.sessions.get(roleArn);
    if (!shared) {
      shared = refreshing(
        fromTemporaryCredentials({
          params: {
            RoleArn: roleArn,
            RoleSessionName: 'cloudorch-reconciler',
            DurationSeconds: ASSUME_ROLE_SECONDS,
            ...(this.opts.externalId ? { ExternalId: this.opts.externalId } : {}),
          },
          ...(typeof base === 'object' || typeof base === 'function' ? { masterCredentials: base } : {}),
          // Only explicit configuration points STS elsewhere: locally the simulator answers AssumeRole.
          clientConfig: {
            region,
            ...(this.endpoint ? { endpoint: this.endpoint } : {}),
            requestHandler: HTTP_TIMEOUTS,
            maxAttempts: 3,
          },
        }),
      );
      this.sessions.set(roleArn, shared);
    }
    return { credentials: shared };
  }
}

/** What an assumed role yields, typed from the SDK's own provider (no extra package). */
type AwsCredentialIdentity = Awaited<ReturnType<ReturnType<typeof fromTemporaryCredentials>>>;
type AwsCredentialIdentityProvider = () => Promise<AwsCredentialIdentity>;

/** Refreshes this long before the session expires, so no call starts with credentials about to lapse. */
export const REFRESH_MARGIN_MS = 5 * 60_000;

/**
 * A credentials provider that asks its source once and again only near expiry (or after a failure,
 * which is never cached: a role created later is found on the next call).
 */
export function refreshing(
  source: AwsCredentialIdentityProvider,
  now: () => number = Date.now,
): AwsCredentialIdentityProvider {
  let current: Promise<AwsCredentialIdentity> | undefined;
  const fresh = (c: AwsCredentialIdentity | undefined): c is AwsCredentialIdentity =>
    c !== undefined && (c.expiration === undefined || c.expiration.getTime() - now() > REFRESH_MARGIN_MS);
  return async () => {
    const seen = current;
    const held = seen ? await seen.catch(() => undefined) : undefined;
    if (fresh(held)) return held;
    // Callers that waited on the same stale or failed session share one new request.
    if (current === seen || current === undefined) {
      const next = source();
      current = next;
      next.catch(() => {
        if (current === next) current = undefined;
      });
    }
    return current;
  };
}
