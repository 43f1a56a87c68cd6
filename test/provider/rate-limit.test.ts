/**
 * The client-side EKS rate limit: awaited before every HTTP attempt, retries included, per region;
 * and a limiter that never admits more than its rate into any one-second window.
 */
import { describe, expect, it } from 'vitest';
import { PermanentError } from '../../lambdas/core/errors.js';
import { perSecondLimiter } from '../../lambdas/handlers/token-bucket.js';
import { accountOf } from '../../lambdas/provider/clients.js';
import { EksProvider } from '../../lambdas/provider/eks-provider.js';
import { useSimulator } from '../eks-sim/support.js';

describe('rate limit before every EKS attempt', () => {
  const h = useSimulator({ seed: 5 }, { reset: false });

  it('is asked once per HTTP attempt, throttled retries included, with the region and account', async () => {
    await h.admin.setFaults({ '*': { throttleFraction: 0.5 } });
    const asked: string[] = [];
    const provider = new EksProvider({
      endpoint: h.sim.url,
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
      retry: { baseDelayMs: 1, throttlingBaseDelayMs: 1, maxDelayMs: 5 },
      ownAccountId: '555555555555',
      beforeAttempt: async (region, account) => {
        asked.push(`${account}/${region}`);
      },
    });
    for (let i = 0; i < 10; i++) await provider.observe({ clusterName: `none-${i}`, region: 'eu-west-1' });
    const calls = await h.admin.calls();
    const requests = Object.values(calls).reduce((n, c) => n + c.requests, 0);
    const throttled = Object.values(calls).reduce((n, c) => n + c.throttled, 0);
    expect(throttled).toBeGreaterThan(0);
    expect(asked).toHaveLength(requests);
    expect(new Set(asked)).toEqual(new Set(['555555555555/eu-west-1']));
    provider.clients.destroy();
  });
});

describe('accountOf', () => {
  it("is the assumed role's account, else the own account, else `own`", () => {
    expect(accountOf('arn:aws:iam::123456789012:role/cloudorch-target-read', '999999999999')).toBe(
      '123456789012',
    );
    expect(accountOf('arn:aws-cn:iam::210987654321:role/r', undefined)).toBe('210987654321');
    expect(accountOf(undefined, '999999999999')).toBe('999999999999');
    expect(accountOf(undefined, undefined)).toBe('own');
  });
});

describe('perSecondLimiter', () => {
  it.each([1, 2, 5, 40])('admits at most %i calls per key in any one-second window', async (rate) => {
    let t = 0;
    const times: number[] = [];
    const limit = perSecondLimiter(
      rate,
      () => t,
      async (ms) => {
        t += ms;
      },
    );
    for (let i = 0; i < rate * 5 + 3; i++) {
      await limit('us-east-1');
      times.push(t);
    }
    for (const start of times)
      expect(times.filter((x) => x >= start && x < start + 1000).length).toBeLessThanOrEqual(rate);
    // Another key has its own budget: it is not slowed by the first.
    const before = t;
    await limit('eu-west-1');
    expect(t).toBe(before);
  });

  it('refuses a rate below one call per second', () => {
    expect(() => perSecondLimiter(0.5)).toThrow(PermanentError);
  });
});
