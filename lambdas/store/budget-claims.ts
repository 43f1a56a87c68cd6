/**
 * Claims of EKS request slots in the coordination table: item `budget#<account>#<region>` holds
 * `nextMs`, the first instant no claim has taken yet. A claim of k slots is one conditional
 * UpdateItem, two when the budget is busy (core/rate-slots.ts has the arithmetic and its proof):
 * 1. idle budget (no item, or `nextMs` in the past): `SET nextMs = now + k*d`, slots start now;
 * 2. else `ADD nextMs k*d` if `nextMs < now + horizon`; the new value says which slots are ours;
 * 3. else the queue is longer than the caller waits: EksBudgetExhaustedError (retryable).
 * A claimant whose own last claim still ends in the future knows the budget is busy (`nextMs` only
 * grows) and tries step 2 first: one write per claim while it keeps claiming, as a sweep does.
 */
import {
  ConditionalCheckFailedException,
  type DynamoDBClient,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { InternalError } from '../core/errors.js';
import { budgetKey, claimedSlots, idleNextMs } from '../core/rate-slots.js';
import { EksBudgetExhaustedError } from './errors.js';

/** Items live a day past their last claim: an idle budget leaves nothing behind. */
const TTL_SECONDS = 86_400;

export interface BudgetClaimsOptions {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  /** Milliseconds between slots (slotSpacingMs of the rate). */
  readonly spacingMs: number;
  readonly clock?: () => number;
}

/**
 * Writes by every BudgetClaims of this process, failed ones included: how the benchmarks measure
 * what the limiter costs in DynamoDB (a Lambda's instances each count their own).
 */
export const CLAIM_WRITES = { total: 0 };

export class BudgetClaims {
  /** Conditional writes sent, failed ones included (each is billed as a write). */
  writes = 0;
  private readonly clock: () => number;
  /** The `nextMs` each key had after this instance's last claim: busy until then at least. */
  private readonly lastNext = new Map<string, number>();

  constructor(private readonly o: BudgetClaimsOptions) {
    this.clock = o.clock ?? Date.now;
  }

  /** The k slots claimed for (account, region), in time order. */
  async claim(account: string, region: string, k: number, horizonMs: number): Promise<number[]> {
    const d = this.o.spacingMs;
    const now = this.clock();
    const key = { id: { S: budgetKey(account, region) } };
    const expiresAt = { N: String(Math.floor(now / 1000) + TTL_SECONDS) };
    const idle = () =>
      this.update({
        Key: key,
        UpdateExpression: 'SET nextMs = :next, expiresAt = :exp',
        ConditionExpression: 'attribute_not_exists(nextMs) OR nextMs < :now',
        ExpressionAttributeValues: {
          ':next': { N: String(idleNextMs(now, k, d)) },
          ':now': { N: String(now) },
          ':exp': expiresAt,
        },
      });
    const queued = () =>
      this.update({
        Key: key,
        UpdateExpression: 'ADD nextMs :add SET expiresAt = :exp',
        ConditionExpression: 'nextMs < :limit',
        ExpressionAttributeValues: {
          ':add': { N: String(k * d) },
          ':limit': { N: String(now + horizonMs) },
          ':exp': expiresAt,
        },
      });
    const id = key.id.S;
    // Busy since our last claim (nextMs never decreases): queue first, one write. Else idle first.
    const busy = (this.lastNext.get(id) ?? 0) > now;
    const next = busy ? ((await queued()) ?? (await idle())) : ((await idle()) ?? (await queued()));
    if (next !== undefined) {
      this.lastNext.set(id, next);
      return claimedSlots(next, k, d);
    }
    throw new EksBudgetExhaustedError(
      `the EKS budget of ${account}/${region} is claimed more than ${horizonMs} ms ahead`,
    );
  }

  /** The new `nextMs`, or undefined when the condition refused the write. */
  private async update(
    input: Omit<ConstructorParameters<typeof UpdateItemCommand>[0], 'TableName' | 'ReturnValues'>,
  ): Promise<number | undefined> {
    this.writes++;
    CLAIM_WRITES.total++;
    try {
      const out = await this.o.client.send(
        new UpdateItemCommand({ ...input, TableName: this.o.tableName, ReturnValues: 'UPDATED_NEW' }),
      );
      const next = Number(out.Attributes?.['nextMs']?.N);
      if (!Number.isFinite(next)) throw new InternalError('UpdateItem returned no nextMs');
      return next;
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) return undefined;
      throw err;
    }
  }
}
