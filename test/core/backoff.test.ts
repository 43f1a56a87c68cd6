/** The sweep's backoff for failing clusters: it really grows, it is jittered, it is bounded. */
import { describe, expect, it } from 'vitest';
import { backingOff, backoffCeilingMs, FAILURE_BACKOFF, nextFailures } from '../../lambdas/core/backoff.js';

const t0 = new Date('2026-11-30T00:00:00Z');

/** Runs in `hours` when every run fails and each starts the moment its wait is over. */
function runsWithin(hours: number, random: () => number): number {
  let at = t0.getTime();
  let f: ReturnType<typeof nextFailures> | undefined;
  let runs = 0;
  while (at <= t0.getTime() + hours * 3_600_000) {
    runs += 1;
    f = nextFailures(f, 1, new Date(at), random);
    at = Date.parse(f.retryAt);
  }
  return runs;
}

describe('failure backoff', () => {
  it('doubles its ceiling up to the cap', () => {
    const ceilings = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(backoffCeilingMs);
    for (let i = 1; i < ceilings.length; i++) expect(ceilings[i]).toBeGreaterThanOrEqual(ceilings[i - 1]!);
    expect(ceilings[0]).toBe(FAILURE_BACKOFF.baseMs);
    expect(ceilings[1]).toBe(2 * FAILURE_BACKOFF.baseMs);
    expect(ceilings.at(-1)).toBe(FAILURE_BACKOFF.capMs);
    expect(backoffCeilingMs(1000)).toBe(FAILURE_BACKOFF.capMs);
  });

  it('waits between half and all of the ceiling, so every wait really grows', () => {
    let f: ReturnType<typeof nextFailures> | undefined;
    let prevWait = 0;
    for (let n = 1; n <= 8; n++) {
      f = nextFailures(f, 1, t0, () => 0);
      const low = Date.parse(f.retryAt) - t0.getTime();
      expect(low).toBe(backoffCeilingMs(n) / 2);
      expect(low).toBeGreaterThan(prevWait);
      prevWait = low;
      const high =
        Date.parse(nextFailures({ ...f, count: n - 1 }, 1, t0, () => 0.999999).retryAt) - t0.getTime();
      expect(high).toBeLessThanOrEqual(backoffCeilingMs(n));
      expect(high).toBeGreaterThan(backoffCeilingMs(n) * 0.99);
    }
  });

  it('runs a cluster that keeps failing at most 12 times in 24 hours, whatever the draws', () => {
    expect(runsWithin(24, () => 0)).toBeLessThanOrEqual(12);
    expect(runsWithin(24, () => 0.5)).toBeLessThanOrEqual(12);
    expect(runsWithin(24, Math.random)).toBeLessThanOrEqual(12);
  });

  it('starts again from one for a new generation, and only holds off its own generation', () => {
    const f = nextFailures(nextFailures(undefined, 1, t0), 1, t0);
    expect(f.count).toBe(2);
    expect(nextFailures(f, 2, t0).count).toBe(1);
    expect(backingOff(f, 1, t0)).toBe(true);
    expect(backingOff(f, 2, t0)).toBe(false);
    expect(backingOff(f, 1, new Date(Date.parse(f.retryAt) + 1))).toBe(false);
  });
});
