/**
 * Bounded retries with exponential backoff and full jitter: every retried call has a last attempt,
 * and concurrent retriers spread out instead of hammering the API server or DynamoDB in step.
 */
import { describeError } from './api-errors.js';

export interface BackoffOptions {
  /** Attempts in total, the first included. */
  readonly attempts: number;
  readonly baseMs: number;
  readonly capMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { attempts: 6, baseMs: 100, capMs: 5_000 };

/** Full jitter: a uniform delay in [0, min(cap, base * 2^attempt)). */
export function backoffDelay(
  attempt: number,
  opts: BackoffOptions,
  random: () => number = Math.random,
): number {
  return Math.floor(random() * Math.min(opts.capMs, opts.baseMs * 2 ** attempt));
}

export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/** The last error, after `attempts` tries; `cause` carries it for callers that log. */
export class RetriesExhaustedError extends Error {
  override readonly name = 'RetriesExhaustedError';
  constructor(
    readonly what: string,
    readonly attempts: number,
    override readonly cause: unknown,
  ) {
    super(`${what}: gave up after ${attempts} attempts: ${describeError(cause)}`);
  }
}

/**
 * Runs `fn` until it succeeds, an error is not retryable (rethrown as is), or attempts run out.
 *
 * @example
 * await withRetry('patch finalizer', () => kube.patch(...), { retryable: isConflictOrTransient });
 */
export async function withRetry<T>(
  what: string,
  fn: (attempt: number) => Promise<T>,
  opts: { retryable: (err: unknown) => boolean; backoff?: BackoffOptions; signal?: AbortSignal },
): Promise<T> {
  const backoff = opts.backoff ?? DEFAULT_BACKOFF;
  let last: unknown;
  for (let attempt = 0; attempt < backoff.attempts; attempt++) {
    if (attempt > 0) await sleep(backoffDelay(attempt, backoff), opts.signal);
    try {
      return await fn(attempt);
    } catch (err) {
      if (!opts.retryable(err)) throw err;
      last = err;
    }
  }
  throw new RetriesExhaustedError(what, backoff.attempts, last);
}
