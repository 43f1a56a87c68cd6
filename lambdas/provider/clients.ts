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
export const HTTP_TIMEOUTS = { connectionTimeout: 3_000, requestTimeout: 15_000 } as const;

/** Session length for assumed roles; the SDK refreshes before expiry. */
const ASSUME_ROLE_SECONDS = 3600;

/** The role CloudOrch assumes in a target account: one name per function side, in every account. */
export function targetRoleArn(accountId: string, roleName: string): string {
  return `arn:aws:iam::${accountId}:role/${roleName}`;
}

export interface EksClientOptions {
  /** Explicit endpoint (e.g. the simulator). Default: `process.env.CLOUDORCH_EKS_ENDPOINT`, else AWS. */
  readonly endpoint?: string;
  /** Base credentials. Default: the SDK's standard provider chain. */
  readonly credentials?: EKSClientConfig['credentials'];
  /** Overrides of the retry budget (tests shorten the delays; production uses the defaults). */
  readonly retry?: Partial<RetryBudget>;
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Told about each throttled EKS attempt, with its region (for the EksThrottled metric). */
  readonly onThrottle?: (region: string) => void;
  /** Sent as ExternalId on every AssumeRole (the target roles' trust policy requires it). */
  readonly externalId?: string;
  /**
   * Awaited before every HTTP attempt, retries included (a client-side rate limit per region):
   * EKS's control-plane API throttles long before anything else in the pipeline does.
   */
  readonly beforeAttempt?: (region: string) => Promise<void>;
}

export class EksClients {
  private readonly cache = new Map<string, EKSClient>();
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
      client = new EKSClient({
        region,
        ...(this.endpoint ? { endpoint: this.endpoint } : {}),
        ...this.credentialsFor(region, roleArn),
        maxAttempts: this.budget.maxAttempts,
        retryStrategy: budgetedRetryStrategy(this.budget, Math.random, () => this.opts.onThrottle?.(region)),
        requestHandler: HTTP_TIMEOUTS,
      });
      const wait = this.opts.beforeAttempt;
      if (wait) {
        // The deserialize step runs once per attempt, inside the retry loop of finalizeRequest.
        client.middlewareStack.add(
          (next) => async (args) => {
            await wait(region);
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
  }

  private credentialsFor(region: string, roleArn: string | undefined): Pick<EKSClientConfig, 'credentials'> {
    const base = this.opts.credentials;
    if (!roleArn) return base === undefined ? {} : { credentials: base };
    return {
      credentials: fromTemporaryCredentials({
        params: {
          RoleArn: roleArn,
          RoleSessionName: 'cloudorch-reconciler',
          DurationSeconds: ASSUME_ROLE_SECONDS,
          ...(this.opts.externalId ? { ExternalId: this.opts.externalId } : {}),
        },
        ...(typeof base === 'object' || typeof base === 'function' ? { masterCredentials: base } : {}),
        // Only explicit configuration points STS elsewhere: locally the simulator answers AssumeRole.
        clientConfig: { region, ...(this.endpoint ? { endpoint: this.endpoint } : {}) },
      }),
    };
  }
}
