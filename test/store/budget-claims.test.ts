/**
 * The shared EKS budget on dynalite: the two conditional writes of a claim, the retryable refusal
 * past the horizon, and two independent budgets (two Lambda instances) sharing one table that stay
 * within R requests in every sliding 1-second window, at a few writes per claim, never one per request.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimSettings, slotSpacingMs } from '../../lambdas/core/rate-slots.js';
import { toStepError } from '../../lambdas/handlers/envelope.js';
import { slotPools } from '../../lambdas/handlers/slot-pool.js';
import { BudgetClaims } from '../../lambdas/store/budget-claims.js';
import { EksBudgetExhaustedError } from '../../lambdas/store/errors.js';
import { createTable } from '../../local/store/table.js';
import { type DynamoServer, dynamoClient, startDynalite } from './servers.js';

const TABLE = 'coordination';
let server: DynamoServer;
let client: DynamoDBClient;

beforeAll(async () => {
  server = await startDynalite();
  client = dynamoClient(server);
  await createTable(client, TABLE, { stream: false });
});
afterAll(async () => {
  client.destroy();
  await server.stop();
});

function maxPerSecond(uses: readonly number[]): number {
  const sorted = [...uses].sort((a, b) => a - b);
  let max = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (j < sorted.length && (sorted[j] as number) < (sorted[i] as number) + 1000) j++;
    max = Math.max(max, j - i);
  }
  return max;
}

describe('BudgetClaims', () => {
  it('starts an idle budget now, queues a busy one, and refuses past the horizon', async () => {
    let now = 1_000_000;
    const claims = new BudgetClaims({ client, tableName: TABLE, spacingMs: 220, clock: () => now });
    expect(await claims.claim('111111111111', 'eu-west-1', 3, 2000)).toEqual([
      1_000_000, 1_000_220, 1_000_440,
    ]);
    expect(claims.writes).toBe(1);
    // Busy, and this instance knows it (its last claim ends ahead): one write queues behind it.
    expect(await claims.claim('111111111111', 'eu-west-1', 10, 2000)).toEqual(
      Array.from({ length: 10 }, (_, i) => 1_000_660 + i * 220),
    );
    expect(claims.writes).toBe(2);
    // Busy for another instance, which does not know it: its idle write is refused, then it queues.
    const other = new BudgetClaims({ client, tableName: TABLE, spacingMs: 220, clock: () => now });
    expect(await other.claim('111111111111', 'eu-west-1', 1, 5000)).toEqual([1_002_860]);
    expect(other.writes).toBe(2);
    // The queue now ends 3080 ms ahead: a 2-second horizon refuses, retryably, after two writes.
    const refused = await claims.claim('111111111111', 'eu-west-1', 1, 2000).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(EksBudgetExhaustedError);
    expect((refused as EksBudgetExhaustedError).kind).toBe('Transient');
    expect(toStepError(refused).name).toBe('TransientError');
    expect(claims.writes).toBe(4);
    // Another region of the same account, and the same region of another account, are other budgets.
    expect(await claims.claim('111111111111', 'us-east-1', 1, 2000)).toEqual([1_000_000]);
    expect(await claims.claim('222222222222', 'eu-west-1', 1, 2000)).toEqual([1_000_000]);
    // Once the queue lies in the past the budget is idle again: slots start now.
    now = 1_010_000;
    expect(await claims.claim('111111111111', 'eu-west-1', 2, 2000)).toEqual([1_010_000, 1_010_220]);
  });

  it('keeps two instances sharing one table within R per sliding second', async () => {
    const rate = 5;
    const spacingMs = slotSpacingMs(rate);
    const instances = [claimSettings('observe', rate), claimSettings('sweep', rate)].map((settings) => {
      const claims = new BudgetClaims({ client, tableName: TABLE, spacingMs });
      const take = slotPools({
        ...settings,
        claim: (a, r, k, h) => claims.claim(a, r, k, h),
        isRefusal: (e) => e instanceof EksBudgetExhaustedError,
      });
      return { claims, take, settings, uses: 0, refused: 0 };
    });
    const uses: number[] = [];
    const end = Date.now() + 3000;
    const worker = async (i: (typeof instances)[number]) => {
      while (Date.now() < end) {
        try {
          await i.take('eu-central-1', '333333333333');
          uses.push(Date.now());
          i.uses++;
        } catch (err) {
          if (!(err instanceof EksBudgetExhaustedError)) throw err;
          i.refused++;
          await new Promise((r) => setTimeout(r, 200));
        }
      }
    };
    // Each instance runs eight concurrent callers, as a Lambda running several lookups would.
    await Promise.all(instances.flatMap((i) => Array.from({ length: 8 }, () => worker(i))));
    const max = maxPerSecond(uses);
    const writes = instances.reduce((n, i) => n + i.claims.writes, 0);
    console.log(
      `budget R=${rate}/s: ${uses.length} requests, max ${max} in any 1-s window, ` +
        `${writes} writes (${(writes / uses.length).toFixed(2)} per request), ` +
        instances
          .map(
            (i) =>
              `k=${i.settings.claimSize}: ${i.uses} used, ${i.claims.writes} writes, ${i.refused} refused`,
          )
          .join('; '),
    );
    expect(max).toBeLessThanOrEqual(rate);
    expect(uses.length).toBeGreaterThanOrEqual(12);
    // Two writes per claim at most, and at most one claim per k requests plus the last claims' leftovers.
    const bound = instances.reduce((n, i) => n + 2 * (Math.ceil(i.uses / i.settings.claimSize) + 2), 0);
    expect(writes).toBeLessThanOrEqual(bound + 2 * instances.reduce((n, i) => n + i.refused, 0));
  });
});
