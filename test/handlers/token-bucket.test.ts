/** The token bucket behind the EKS rate limit. */
import { describe, expect, it } from 'vitest';
import { InternalError } from '../../lambdas/core/errors.js';
import { TokenBucket } from '../../lambdas/handlers/token-bucket.js';

describe('token bucket', () => {
  it('never lets more than rate x time + burst tokens through', async () => {
    let t = 0;
    const bucket = new TokenBucket(
      10,
      3,
      () => t,
      async (ms) => {
        t += ms;
      },
    );
    for (let i = 0; i < 53; i++) await bucket.take(1);
    // 53 tokens: 3 from the burst, 50 at 10 per second.
    expect(t).toBe(5000);
  });

  it('refuses a request larger than the bucket', async () => {
    await expect(new TokenBucket(1, 2).take(3)).rejects.toThrow(InternalError);
  });
});
