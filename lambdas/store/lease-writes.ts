/**
 * Lease writes: one reconcile execution per record at a time. Acquire, renew and release are
 * conditional updates of the `lease` map; `asHolder` guards every other reconciler-owned write.
 */
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { LeaseHeldError, LeaseLostError, RecordNotFoundError } from './errors.js';
import { isConditionFailure, readItem, type Table, updateItem } from './items.js';
import { latestPlausibleExpiry } from './lease.js';
import type { StoredItem } from './record.js';
import type { Expression } from './update.js';

export const OWNED_BY_ME = '#lease.#owner = :me';

/**
 * A lease nobody holds: absent, expired, not the shape this store writes, or expiring further ahead
 * than any lease it writes (further still on a record awaiting approval, whose execution stretched
 * its lease over the wait). The same rule as leaseView (lease.ts), boundaries included: expired
 * strictly after `expiresAt` (isPastExpiry), implausible strictly after latestPlausibleExpiry.
 */
const LEASE_FREE =
  'attribute_not_exists(#lease) OR NOT attribute_type(#lease, :map) OR NOT attribute_type(#lease.#expiresAt, :num) OR #lease.#expiresAt < :now OR #lease.#expiresAt > :maxWaiting OR (#lease.#expiresAt > :max AND attribute_not_exists(#approval))';

export interface AcquireOptions {
  readonly executionArn?: string;
  readonly takeOverFrom?: string;
}

export async function acquireLease(
  t: Table,
  id: string,
  owner: string,
  ttlMs: number,
  now: Date,
  opts: AcquireOptions,
): Promise<void> {
  const lease = {
    owner,
    expiresAt: now.getTime() + ttlMs,
    ...(opts.executionArn ? { executionArn: opts.executionArn } : {}),
  };
  const takeOver = opts.takeOverFrom !== undefined ? ' OR #lease.#owner = :dead' : '';
  const condition = {
    expression: `attribute_exists(#id) AND (${LEASE_FREE} OR ${OWNED_BY_ME}${takeOver})`,
    values: {
      ':now': now.getTime(),
      ':max': latestPlausibleExpiry(now, ttlMs),
      ':maxWaiting': latestPlausibleExpiry(now, ttlMs, true),
      ':me': owner,
      ':map': 'M',
      ':num': 'N',
      ...(opts.takeOverFrom !== undefined ? { ':dead': opts.takeOverFrom } : {}),
    },
  };
  try {
    await updateItem(t, id, { set: { lease } }, condition, {
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
  } catch (err) {
    if (!isConditionFailure(err)) throw err;
    // No item came back (a missing record in DynamoDB, or any failure in dynalite): read it then.
    const item = (err.Item ? unmarshall(err.Item) : undefined) ?? (await readItem(t, id));
    if (!item) throw new RecordNotFoundError(`${id}: no such record`, { cause: err });
    const held = leaseOf(item);
    throw new LeaseHeldError(
      `${id}: lease held by ${held?.owner ?? 'nobody (released meanwhile)'}`,
      held?.owner,
      held?.executionArn,
      { cause: err },
    );
  }
}

export async function renewLease(
  t: Table,
  id: string,
  owner: string,
  ttlMs: number,
  now: Date,
): Promise<void> {
  // Only the expiry: the lease keeps naming its execution.
  await asHolder(id, owner, (held) =>
    updateItem(t, id, { set: { 'lease.expiresAt': now.getTime() + ttlMs } }, held),
  );
}

/** A no-op when someone else holds the lease or it is gone. */
export async function releaseLease(t: Table, id: string, owner: string): Promise<void> {
  try {
    await updateItem(t, id, { remove: ['lease'] }, heldBy(owner));
  } catch (err) {
    if (!isConditionFailure(err)) throw err;
  }
}

/** The condition that `owner` holds the lease. */
function heldBy(owner: string): Expression {
  return { expression: OWNED_BY_ME, values: { ':me': owner } };
}

/** A write made only while `owner` holds the lease (`held` is that condition); LeaseLostError otherwise. */
export async function asHolder<T>(
  id: string,
  owner: string,
  write: (held: Expression) => Promise<T>,
): Promise<T> {
  try {
    return await write(heldBy(owner));
  } catch (err) {
    if (isConditionFailure(err))
      throw new LeaseLostError(`${id}: lease is no longer held by ${owner}`, { cause: err });
    throw err;
  }
}

function leaseOf(item: StoredItem): { owner?: string; executionArn?: string } | undefined {
  const lease = item['lease'];
  if (!lease || typeof lease !== 'object') return undefined;
  const { owner, executionArn } = lease as { owner?: unknown; executionArn?: unknown };
  return {
    ...(typeof owner === 'string' ? { owner } : {}),
    ...(typeof executionArn === 'string' ? { executionArn } : {}),
  };
}
