/** Fault injection per operation and call counts per operation: what the admin API sets and reads. */
import { Prng, SimError } from './model.js';

/** Faults for one operation (or `*` for all). Fractions are drawn from the seeded fault PRNG. */
export interface FaultSpec {
  readonly throttleFraction?: number;
  readonly errorFraction?: number;
  readonly latencyMs?: number;
  readonly throttleCode?: 'ThrottlingException' | 'TooManyRequestsException';
  readonly errorCode?: 'ServerException' | 'ServiceUnavailableException';
}

export interface CallCount {
  /** Every request received for the operation. */
  requests: number;
  throttled: number;
  serverErrors: number;
  /** Answered 200. */
  succeeded: number;
  /** Answered with an EKS 4xx error by the operation itself (not an injected fault). */
  rejected: number;
}

export type CallCounts = Record<string, CallCount>;

export class Faults {
  private specs: Record<string, FaultSpec> = {};
  private rng: Prng;

  constructor(private readonly seed: number) {
    this.rng = new Prng(seed ^ 0x5bd1e995);
  }

  set(specs: Record<string, FaultSpec>): void {
    for (const [op, s] of Object.entries(specs)) {
      const t = s.throttleFraction ?? 0;
      const e = s.errorFraction ?? 0;
      if (!(t >= 0 && e >= 0 && t + e <= 1))
        throw new RangeError(`fault fractions for ${op} must be >= 0 and sum to <= 1`);
    }
    this.specs = { ...specs };
  }

  get(): Record<string, FaultSpec> {
    return { ...this.specs };
  }

  reset(seed = this.seed): void {
    this.specs = {};
    this.rng = new Prng(seed ^ 0x5bd1e995);
  }

  /** One PRNG draw per request keeps the fault sequence reproducible under the seed. */
  decide(op: string): { latencyMs: number; error?: SimError } {
    const s = this.specs[op] ?? this.specs['*'];
    if (!s) return { latencyMs: 0 };
    const x = this.rng.next();
    const latencyMs = s.latencyMs ?? 0;
    const t = s.throttleFraction ?? 0;
    if (x < t) {
      // [real] EKS throttles with 429; TooManyRequestsException is what DescribeCluster returns at fleet scale.
      return {
        latencyMs,
        error: new SimError(429, s.throttleCode ?? 'ThrottlingException', 'Rate exceeded'),
      };
    }
    if (x < t + (s.errorFraction ?? 0)) {
      const code = s.errorCode ?? 'ServerException';
      return {
        latencyMs,
        error: new SimError(code === 'ServerException' ? 500 : 503, code, 'Injected server fault'),
      };
    }
    return { latencyMs };
  }
}

export class Counters {
  private counts: CallCounts = {};
  record(op: string, outcome: 'throttled' | 'serverErrors' | 'succeeded' | 'rejected'): void {
    const c = this.counts[op] ?? { requests: 0, throttled: 0, serverErrors: 0, succeeded: 0, rejected: 0 };
    c.requests++;
    c[outcome]++;
    this.counts[op] = c;
  }
  snapshot(): CallCounts {
    return structuredClone(this.counts);
  }
  reset(): void {
    this.counts = {};
  }
}
