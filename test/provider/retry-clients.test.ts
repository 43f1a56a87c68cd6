/** The retry budget's arithmetic and the client cache's keys (region, assumed role, explicit endpoint). */
import { describe, expect, it } from 'vitest';
import { EksClients } from '../../lambdas/provider/clients.js';
import {
  budgetedRetryStrategy,
  EKS_RETRY_BUDGET,
  type RetryBudget,
  worstCaseBackoffMs,
} from '../../lambdas/provider/retry.js';

type Strategy = ReturnType<typeof budgetedRetryStrategy>;
type ErrorInfo = Parameters<Strategy['refreshRetryTokenForRetry']>[1];
const info = (errorType: ErrorInfo['errorType']): ErrorInfo =>
  ({ errorType, error: new Error(errorType) }) as ErrorInfo;

/** Retries one call until the strategy refuses; returns the delays it granted. */
async function retryUntilRefused(s: Strategy, errorType: ErrorInfo['errorType']): Promise<number[]> {
  let token = await s.acquireInitialRetryToken('');
  const delays: number[] = [];
  for (;;) {
    try {
      token = await s.refreshRetryTokenForRetry(token, info(errorType));
      delays.push(token.getRetryDelay());
    } catch {
      return delays;
    }
  }
}

describe('retry budget', () => {
  it('grants maxAttempts - 1 retries, with full-jitter exponential backoff capped at maxDelay', async () => {
    const delays = await retryUntilRefused(
      budgetedRetryStrategy(EKS_RETRY_BUDGET, () => 0.999999),
      'THROTTLING',
    );
    expect(delays).toEqual([499, 999, 1999, 3999, 7999, 9999, 9999, 9999, 9999]);
    expect(delays.length).toBe(EKS_RETRY_BUDGET.maxAttempts - 1);
    const low = await retryUntilRefused(
      budgetedRetryStrategy(EKS_RETRY_BUDGET, () => 0),
      'TRANSIENT',
    );
    expect(low).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('states the worst-case backoff of one call', () => {
    expect(worstCaseBackoffMs()).toBe(500 + 1000 + 2000 + 4000 + 8000 + 4 * 10_000);
  });

  it.each(['CLIENT_ERROR', 'SERVER_ERROR'] as const)('never retries %s', async (t) => {
    expect(await retryUntilRefused(budgetedRetryStrategy(), t)).toEqual([]);
  });

  it('a failing call drains the quota; a call that succeeds after retries refunds it', async () => {
    const budget: RetryBudget = { ...EKS_RETRY_BUDGET, quota: 20, throttlingRetryCost: 5 };
    const s = budgetedRetryStrategy(budget, () => 0);
    let t = await s.acquireInitialRetryToken('');
    t = await s.refreshRetryTokenForRetry(t, info('THROTTLING'));
    t = await s.refreshRetryTokenForRetry(t, info('THROTTLING'));
    expect(s.capacity()).toBe(10);
    s.recordSuccess(t);
    expect(s.capacity()).toBe(20);
    // Calls that never succeed spend the quota until retries stop altogether (the circuit opens).
    expect(await retryUntilRefused(s, 'THROTTLING')).toHaveLength(4);
    expect(await retryUntilRefused(s, 'THROTTLING')).toHaveLength(0);
  });
});

describe('client cache', () => {
  const credentials = { accessKeyId: 'a', secretAccessKey: 'b' };

  it('keeps one client per region and per assumed role', () => {
    const clients = new EksClients({ credentials, env: {} });
    const a = clients.forRegion('eu-west-1');
    expect(clients.forRegion('eu-west-1')).toBe(a);
    expect(clients.forRegion('us-east-1')).not.toBe(a);
    const assumed = clients.forRegion('eu-west-1', 'arn:aws:iam::111111111111:role/cloudorch-target');
    expect(assumed).not.toBe(a);
    expect(clients.forRegion('eu-west-1', 'arn:aws:iam::111111111111:role/cloudorch-target')).toBe(assumed);
    expect(clients.size).toBe(3);
    clients.destroy();
    expect(clients.size).toBe(0);
  });

  it('overrides the endpoint only when configured explicitly', async () => {
    expect(new EksClients({ env: {} }).endpoint).toBeUndefined();
    expect(new EksClients({ env: { CLOUDORCH_EKS_ENDPOINT: '' } }).endpoint).toBeUndefined();
    const fromEnv = new EksClients({ env: { CLOUDORCH_EKS_ENDPOINT: 'http://127.0.0.1:1' }, credentials });
    expect(fromEnv.endpoint).toBe('http://127.0.0.1:1');
    const endpoint = await fromEnv.forRegion('eu-west-1').config.endpoint?.();
    expect(endpoint).toMatchObject({ hostname: '127.0.0.1', port: 1 });
    expect(
      new EksClients({
        endpoint: 'http://127.0.0.1:2',
        env: { CLOUDORCH_EKS_ENDPOINT: 'http://127.0.0.1:1' },
      }).endpoint,
    ).toBe('http://127.0.0.1:2');
    fromEnv.destroy();
  });

  it('configures the SDK with the budget: maxAttempts and the budgeted strategy', async () => {
    const clients = new EksClients({ credentials, env: {}, retry: { maxAttempts: 4 } });
    const client = clients.forRegion('eu-west-1');
    expect(await client.config.maxAttempts()).toBe(4);
    const strategy = await client.config.retryStrategy();
    expect('capacity' in strategy).toBe(true);
    clients.destroy();
  });
});
