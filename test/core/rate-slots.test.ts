/**
 * The slot arithmetic of the shared EKS budget, and the property it exists for: however many
 * claimants claim however many slots at whatever times, and however late they wake up, no half-open
 * 1-second window holds more than R uses.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  budgetKey,
  claimedSlots,
  claimSettings,
  effectiveRate,
  forfeited,
  idleNextMs,
  slotSpacingMs,
  USE_WINDOW_MS,
  withinWindow,
} from '../../lambdas/core/rate-slots.js';

/** The most uses in any window [t, t + 1000) (a maximum starts at a use). */
function maxPerSecond(uses: readonly number[]): number {
  const sorted = [...uses].sort((a, b) => a - b);
  let max = 0;
  let j = 0;
  for (let i = 0; i < sorted.length; i++) {
    while (j < sorted.length && (sorted[j] as number) < (sorted[i] as number) + 1000) j++;
    max = Math.max(max, j - i);
  }
  return max;
}

describe('slot arithmetic', () => {
  it('spaces slots so that R*d - U >= 1000 ms', () => {
    expect(slotSpacingMs(5)).toBe(220);
    expect(effectiveRate(5)).toBeCloseTo(4.545, 2);
    for (const r of [1, 2, 3, 5, 7, 10, 40, 100])
      expect(r * slotSpacingMs(r) - USE_WINDOW_MS).toBeGreaterThanOrEqual(1000);
    expect(() => slotSpacingMs(0)).toThrow(RangeError);
  });

  it('gives a claim the k slots before the new nextMs, in time order', () => {
    expect(idleNextMs(1000, 3, 220)).toBe(1660);
    expect(claimedSlots(1660, 3, 220)).toEqual([1000, 1220, 1440]);
  });

  it('uses a slot only within [slot, slot + U)', () => {
    expect(withinWindow(1000, 999)).toBe(false);
    expect(withinWindow(1000, 1000)).toBe(true);
    expect(withinWindow(1000, 1099)).toBe(true);
    expect(withinWindow(1000, 1100)).toBe(false);
    expect(forfeited(1000, 1099)).toBe(false);
    expect(forfeited(1000, 1100)).toBe(true);
  });

  it('claims 4R slots with a short horizon for sweeps, a few with a long one for the rest', () => {
    expect(claimSettings('sweep', 5)).toEqual({ claimSize: 20, horizonMs: 2000 });
    expect(claimSettings('sweepShard', 5)).toEqual({ claimSize: 20, horizonMs: 2000 });
    for (const k of ['observe', 'apply', 'driftEvent', undefined]) {
      const s = claimSettings(k, 5);
      expect(s.claimSize).toBeGreaterThanOrEqual(2);
      expect(s.claimSize).toBeLessThanOrEqual(4);
      expect(s.horizonMs).toBe(30_000);
    }
    expect(budgetKey('123456789012', 'eu-west-1')).toBe('budget#123456789012#eu-west-1');
  });
});

/** One DynamoDB item, as the two conditional writes change it (applied atomically, in order). */
function claimOn(item: { next?: number }, now: number, k: number, d: number, horizonMs: number) {
  if (item.next === undefined || item.next < now) item.next = idleNextMs(now, k, d);
  else if (item.next < now + horizonMs) item.next += k * d;
  else return undefined;
  return claimedSlots(item.next, k, d);
}

describe('many claimants sharing one budget', () => {
  it('never put more than R uses in any 1-second window', () => {
    const claimArb = fc.record({
      at: fc.integer({ min: 0, max: 20_000 }),
      k: fc.integer({ min: 1, max: 12 }),
      horizonMs: fc.constantFrom(2_000, 30_000),
      // Per slot: how late the claimant wakes (beyond U: the slot is forfeited).
      delays: fc.array(fc.integer({ min: 0, max: 2 * USE_WINDOW_MS }), { minLength: 12, maxLength: 12 }),
      // The claimant stops early and leaves its later slots unused.
      uses: fc.integer({ min: 0, max: 12 }),
    });
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.array(claimArb, { minLength: 1, maxLength: 200 }),
        (r, claims) => {
          const d = slotSpacingMs(r);
          const item: { next?: number } = {};
          const uses: number[] = [];
          for (const c of [...claims].sort((a, b) => a.at - b.at)) {
            const slots = claimOn(item, c.at, c.k, d, c.horizonMs);
            if (!slots) continue;
            slots.slice(0, c.uses).forEach((slot, i) => {
              // A claimant never sends before its slot (it sleeps until then) nor before its claim.
              const t = Math.max(slot, c.at) + (c.delays[i] ?? 0);
              if (withinWindow(slot, t)) uses.push(t);
            });
          }
          expect(maxPerSecond(uses)).toBeLessThanOrEqual(r);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('would break the bound if late slots were used instead of forfeited', () => {
    const d = slotSpacingMs(5);
    const item: { next?: number } = {};
    const uses: number[] = [];
    for (let now = 0; now < 5_000; now += 50) {
      // Every other slot used 2U late: what the forfeit rule forbids.
      const slots = claimOn(item, now, 2, d, 30_000) ?? [];
      uses.push(...slots.map((slot, i) => slot + (i === 0 ? 2 * USE_WINDOW_MS : 0)));
    }
    expect(maxPerSecond(uses)).toBeGreaterThan(5);
  });

  it('reaches the effective rate when the budget is busy', () => {
    const d = slotSpacingMs(5);
    const item: { next?: number } = {};
    const uses: number[] = [];
    for (let now = 0; now < 10_000; now += 100) {
      const slots = claimOn(item, now, 4, d, 30_000);
      if (slots) uses.push(...slots.filter((s) => s < 10_000));
    }
    expect(maxPerSecond(uses)).toBe(5);
    expect(uses.length).toBeGreaterThanOrEqual(Math.floor(10 * effectiveRate(5)));
  });
});
