/** The per-process slot pool: one claim in flight per key, shared by its waiters; late slots forfeited. */
import { describe, expect, it } from 'vitest';
import { slotPools } from '../../lambdas/handlers/slot-pool.js';

describe('slotPools', () => {
  it('shares one claim among concurrent waiters and hands out slots in time order', async () => {
    const claims: string[] = [];
    let slots: number[] = [];
    const take = slotPools({
      claimSize: 3,
      horizonMs: 30_000,
      claim: async (account, region, k) => {
        claims.push(`${account}/${region}`);
        const base = Date.now() + 30;
        slots = Array.from({ length: k }, (_, i) => base + i * 40);
        return slots;
      },
    });
    const times: number[] = [];
    await Promise.all(
      Array.from({ length: 3 }, () => take('eu-west-1', '111111111111').then(() => times.push(Date.now()))),
    );
    expect(claims).toEqual(['111111111111/eu-west-1']);
    // Each waiter slept until its own slot and went out within its use window.
    times.forEach((t, i) => {
      expect(t).toBeGreaterThanOrEqual(slots[i] as number);
      expect(t).toBeLessThan((slots[i] as number) + 100);
    });
    await take('eu-west-1', '222222222222');
    expect(claims).toEqual(['111111111111/eu-west-1', '222222222222/eu-west-1']);
  });

  it('forfeits slots whose use window passed and claims again', async () => {
    let t = 0;
    let claimed = 0;
    const waited: number[] = [];
    const take = slotPools({
      claimSize: 2,
      horizonMs: 30_000,
      clock: () => t,
      // Every sleep oversleeps by 150 ms: past the 100 ms use window.
      sleep: async (ms) => {
        t += ms + (claimed < 3 ? 150 : 0);
      },
      claim: async (_a, _r, k) => {
        claimed++;
        return Array.from({ length: k }, (_, i) => t + 10 + i * 220);
      },
      onWait: (_a, _r, s) => waited.push(s),
    });
    await take('us-east-1', 'own');
    // Two claims' slots were missed by oversleeping, the third claim's first slot was used.
    expect(claimed).toBe(3);
    await take('us-east-1', 'own');
    await take('us-east-1', 'own');
    expect(waited.length).toBeGreaterThan(0);
  });

  it('never goes out before its slot, even when the timer wakes early', async () => {
    let t = 0;
    const take = slotPools({
      claimSize: 2,
      horizonMs: 30_000,
      clock: () => t,
      // A timer that fires a millisecond early (as setTimeout can, measured by Date.now()).
      sleep: async (ms) => {
        t += ms > 1 ? ms - 1 : ms;
      },
      claim: async (_a, _r, k) => Array.from({ length: k }, (_, i) => t + 50 + i * 220),
    });
    await take('us-east-1', 'own');
    expect(t).toBe(50);
    await take('us-east-1', 'own');
    expect(t).toBe(270);
  });

  it('remembers a refusal for a while instead of claiming again', async () => {
    let t = 0;
    let claims = 0;
    class Refused extends Error {}
    const take = slotPools({
      claimSize: 2,
      horizonMs: 2000,
      clock: () => t,
      claim: async () => {
        claims++;
        throw new Refused('queue too long');
      },
      isRefusal: (e) => e instanceof Refused,
    });
    await expect(take('r', 'a')).rejects.toBeInstanceOf(Refused);
    t = 499;
    await expect(take('r', 'a')).rejects.toBeInstanceOf(Refused);
    expect(claims).toBe(1);
    t = 500;
    await expect(take('r', 'a')).rejects.toBeInstanceOf(Refused);
    expect(claims).toBe(2);
  });

  it('passes a refused claim to every waiter sharing it', async () => {
    const take = slotPools({
      claimSize: 2,
      horizonMs: 1,
      claim: async () => {
        throw new Error('refused');
      },
    });
    const results = await Promise.allSettled([take('r', 'a'), take('r', 'a')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });
});
