/**
 * A token bucket per key (the region): EKS's control-plane API throttles long before DynamoDB or
 * Lambda do, so the sweep never exceeds a configured EKS call rate.
 */
import { ENV } from '../config.js';
import { InternalError, PermanentError } from '../core/errors.js';

export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number,
    private readonly clock: () => number = () => Date.now(),
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {
    if (ratePerSecond <= 0 || burst < 1)
      throw new InternalError('rate must be positive and burst at least 1');
    this.tokens = burst;
    this.last = clock();
  }

  private refill(): void {
    const now = this.clock();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.ratePerSecond);
    this.last = now;
  }

  /** Waits until `n` tokens are available, then takes them. */
  async take(n = 1): Promise<void> {
    if (n > this.burst) throw new InternalError(`cannot take ${n} tokens from a bucket of ${this.burst}`);
    for (;;) {
      this.refill();
      if (this.tokens >= n) {
        this.tokens -= n;
        return;
      }
      await this.sleep(Math.ceil(((n - this.tokens) / this.ratePerSecond) * 1000));
    }
  }
}

/**
 * A limiter that never lets more than `perSecond` calls per key into any one-second window: a token
 * bucket admits at most `burst + rate x t` in any window of length t, so burst 1 and rate
 * `perSecond - 1` give exactly `perSecond`.
 */
export function perSecondLimiter(
  perSecond: number,
  clock?: () => number,
  sleep?: (ms: number) => Promise<void>,
): (key: string) => Promise<void> {
  if (!(perSecond >= 1))
    throw new PermanentError(`a rate limit needs at least 1 call per second, got ${perSecond}`, {
      remediation: `Set ${ENV.eksCallsPerSecond} (the stack's EKS call rate) to 1 or more.`,
    });
  const rate = perSecond >= 2 ? perSecond - 1 : perSecond / 2;
  const buckets = new BucketsByKey(() => new TokenBucket(rate, 1, clock, sleep));
  return (key) => buckets.for(key).take(1);
}

export class BucketsByKey {
  private readonly buckets = new Map<string, TokenBucket>();
  constructor(private readonly make: () => TokenBucket) {}
  for(key: string): TokenBucket {
    let b = this.buckets.get(key);
    if (!b) {
      b = this.make();
      this.buckets.set(key, b);
    }
    return b;
  }
}
