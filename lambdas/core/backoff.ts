/**
 * When the sweep may run a failing cluster again. A denied, impossible or failing cluster needs a
 * change (spec, policy, EKS) before another run can help, so runs back off exponentially:
 * the n-th consecutive failure of a generation waits between half and all of
 * min(CAP, BASE * 2^(n-1)). The random half spreads a fleet's retries (jitter) and the fixed half
 * guarantees the wait really grows; the sweep re-decides every period, so a wait that could be drawn
 * as zero would retry at once. With these numbers a cluster failing for 24 hours is run at most
 * 12 times. A new generation starts again from zero. The two shapes (the exponential ceiling, the
 * half-jitter draw) are also those of the signed requests' retries (lambdas/aws/signed-http.ts).
 */
export const FAILURE_BACKOFF = {
  baseMs: 5 * 60_000,
  capMs: 8 * 3_600_000,
} as const;

export interface FailureCount {
  readonly generation: number;
  readonly count: number;
  readonly lastAt: string;
  readonly retryAt: string;
}

/** The ceiling of the n-th wait (n >= 1) of an exponential backoff: `base * 2^(n-1)`, at most `cap`. */
export function exponentialCeilingMs(n: number, baseMs: number, capMs: number): number {
  return Math.min(capMs, baseMs * 2 ** Math.min(n - 1, 30));
}

/**
 * A wait between half its ceiling and all of it: the random half spreads retries (jitter), the fixed
 * half makes the wait really grow with the ceiling. `random` is in [0, 1).
 */
export function halfJitterMs(ceilingMs: number, random: () => number = Math.random): number {
  return ceilingMs / 2 + random() * (ceilingMs / 2);
}

/** The ceiling of the n-th wait (n >= 1). */
export function backoffCeilingMs(n: number): number {
  return exponentialCeilingMs(n, FAILURE_BACKOFF.baseMs, FAILURE_BACKOFF.capMs);
}

/** The failure count after one more failed run; `random` in [0, 1) is injectable for tests. */
export function nextFailures(
  prev: FailureCount | undefined,
  generation: number,
  now: Date,
  random: () => number = Math.random,
): FailureCount {
  const count = prev && prev.generation === generation ? prev.count + 1 : 1;
  const wait = halfJitterMs(backoffCeilingMs(count), random);
  return {
    generation,
    count,
    lastAt: now.toISOString(),
    retryAt: new Date(now.getTime() + Math.round(wait)).toISOString(),
  };
}

/** Whether the sweep should hold off on this generation at `now`. */
export function backingOff(f: FailureCount | undefined, generation: number, now: Date): boolean {
  return f !== undefined && f.generation === generation && Date.parse(f.retryAt) > now.getTime();
}
