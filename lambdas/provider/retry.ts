/**
 * The provider's retry budget, stated once. Retries happen inside the SDK client (its retry
 * middleware classifies each error as THROTTLING / TRANSIENT / SERVER_ERROR / CLIENT_ERROR exactly as
 * in standard mode); this strategy decides how many and how long:
 *
 * - Only THROTTLING (429, `ThrottlingException`, `TooManyRequestsException`, ...) and TRANSIENT
 *   (500/502/503/504, timeouts, connection resets) are retried, as in the SDK's standard mode. 4xx
 *   such as `ResourceInUseException` are never retried here: the reconciler owns those.
 * - At most `maxAttempts` HTTP requests per SDK call, the first included.
 * - Exponential backoff with full jitter: the k-th retry sleeps `random() * min(maxDelay, base * 2^k)`,
 *   with a larger base for throttling, so a throttled fleet spreads out instead of retrying in step.
 * - A retry quota per client (a circuit breaker): each retry spends tokens, a call that finally
 *   succeeds refunds what it spent, so only calls that fail for good drain it. An EKS outage therefore
 *   stops retries after `quota / cost` failed retries instead of multiplying the load.
 *
 * @example
 * new EKSClient({ region, maxAttempts: EKS_RETRY_BUDGET.maxAttempts, retryStrategy: budgetedRetryStrategy() });
 */
import type { EKSClientConfig } from '@aws-sdk/client-eks';
import { domainError } from '../core/errors.js';

type RetryStrategyV2 = Extract<
  NonNullable<EKSClientConfig['retryStrategy']>,
  { acquireInitialRetryToken: unknown }
>;
type RetryToken = Awaited<ReturnType<RetryStrategyV2['acquireInitialRetryToken']>>;

export interface RetryBudget {
  /** HTTP requests per SDK call, the first included. */
  readonly maxAttempts: number;
  /** Backoff base for transient errors (5xx, timeouts). */
  readonly baseDelayMs: number;
  /** Backoff base for throttling errors. */
  readonly throttlingBaseDelayMs: number;
  /** Cap of a single backoff sleep. */
  readonly maxDelayMs: number;
  /** Retry tokens per client. */
  readonly quota: number;
  readonly retryCost: number;
  readonly throttlingRetryCost: number;
}

/**
 * Production budget. At 50% throttling a call exhausts its 10 attempts with probability 2^-10 (about
 * 0.1%; the reconcile step's own retry of TransientError covers that rest). The worst-case backoff of
 * one call is {@link worstCaseBackoffMs} = 55.5 s (full jitter: half of that on average), which fits a
 * reconcile step's Lambda timeout.
 */
export const EKS_RETRY_BUDGET: RetryBudget = {
  maxAttempts: 10,
  baseDelayMs: 100,
  throttlingBaseDelayMs: 500,
  maxDelayMs: 10_000,
  quota: 500,
  retryCost: 10,
  throttlingRetryCost: 5,
};

/** The longest one call can sleep between its attempts (throttling every time, jitter at its maximum). */
export function worstCaseBackoffMs(b: RetryBudget = EKS_RETRY_BUDGET): number {
  let total = 0;
  for (let k = 0; k < b.maxAttempts - 1; k++)
    total += Math.min(b.maxDelayMs, b.throttlingBaseDelayMs * 2 ** k);
  return total;
}

class BudgetToken implements RetryToken {
  constructor(
    private readonly count: number,
    private readonly delay: number,
    /** Tokens spent by this call so far, refunded when it succeeds. */
    readonly spent: number,
  ) {}
  getRetryCount(): number {
    return this.count;
  }
  getRetryDelay(): number {
    return this.delay;
  }
}

/** Tells the SDK's retry middleware to stop; it rethrows the call's own error, so this never escapes. */
export class RetryBudgetExhausted extends domainError(
  'RetryBudgetExhausted',
  'Transient',
  "EKS kept failing within one call's retry budget; CloudOrch retries the step with backoff.",
) {}

/** A standard-mode retry strategy with the budget above; `random` is injectable for tests. */
export function budgetedRetryStrategy(
  budget: RetryBudget = EKS_RETRY_BUDGET,
  random: () => number = Math.random,
  /** Told about every throttled attempt (the EksThrottled metric). */
  onThrottle?: () => void,
): RetryStrategyV2 & { capacity(): number } {
  let capacity = budget.quota;
  return {
    capacity: () => capacity,
    acquireInitialRetryToken: async () => new BudgetToken(0, 0, 0),
    refreshRetryTokenForRetry: async (token, info) => {
      const throttled = info.errorType === 'THROTTLING';
      if (throttled) onThrottle?.();
      const cost = throttled ? budget.throttlingRetryCost : budget.retryCost;
      const spent = token instanceof BudgetToken ? token.spent : 0;
      const retries = token.getRetryCount();
      // The middleware rethrows the call's own error when this throws; the message is for debugging only.
      if (!throttled && info.errorType !== 'TRANSIENT') throw new RetryBudgetExhausted('not retryable');
      if (retries + 1 >= budget.maxAttempts) throw new RetryBudgetExhausted('attempts exhausted');
      if (capacity < cost) throw new RetryBudgetExhausted('retry quota exhausted');
      capacity -= cost;
      const base = throttled ? budget.throttlingBaseDelayMs : budget.baseDelayMs;
      const delay = Math.floor(random() * Math.min(budget.maxDelayMs, base * 2 ** retries));
      return new BudgetToken(retries + 1, delay, spent + cost);
    },
    recordSuccess: (token) => {
      if (token instanceof BudgetToken) capacity = Math.min(budget.quota, capacity + token.spent);
    },
  };
}
