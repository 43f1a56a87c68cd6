/**
 * The approval attributes: a reconcile execution's pending wait (`approval`, with its task token)
 * and what ended it (`approved`, `denied`). Written only while the writer holds the lease, like
 * status; storing a wait also stretches the lease over it, so no other execution takes the cluster.
 */
import { LeaseLostError, SpecChangedError } from './errors.js';
import { isConditionFailure, readRecord, type Table, updateItem } from './items.js';
import { asHolder, OWNED_BY_ME } from './lease-writes.js';
import type { ApprovalOutcome, PendingApproval } from './types.js';

export async function awaitApproval(
  t: Table,
  id: string,
  owner: string,
  approval: PendingApproval,
  opts: { readonly leaseExpiresAt: number; readonly deleting: boolean },
): Promise<void> {
  const deletion = opts.deleting
    ? 'attribute_exists(#deletionRequestedAt)'
    : 'attribute_not_exists(#deletionRequestedAt)';
  const condition = {
    expression: `${OWNED_BY_ME} AND #generation = :g AND ${deletion}`,
    values: { ':me': owner, ':g': approval.generation },
  };
  try {
    await updateItem(t, id, { set: { approval, 'lease.expiresAt': opts.leaseExpiresAt } }, condition);
  } catch (err) {
    if (!isConditionFailure(err)) throw err;
    // Tell a lost lease from a spec that moved on: only the latter cancels the wait.
    const now = await readRecord(t, id);
    if (now?.lease?.owner !== owner)
      throw new LeaseLostError(`${id}: lease is no longer held by ${owner}`, { cause: err });
    throw new SpecChangedError(
      `${id}: the spec is at generation ${now.generation}${now.deletionRequestedAt ? ' (deletion requested)' : ''}, not the awaited ${approval.generation}`,
      { cause: err },
    );
  }
}

export async function endApproval(
  t: Table,
  id: string,
  owner: string,
  outcome: ApprovalOutcome,
): Promise<void> {
  const set = {
    ...(outcome.approved ? { approved: outcome.approved } : {}),
    ...(outcome.denied ? { denied: outcome.denied } : {}),
  };
  const mutation = Object.keys(set).length > 0 ? { set, remove: ['approval'] } : { remove: ['approval'] };
  await asHolder(id, owner, (held) => updateItem(t, id, mutation, held));
}
