/**
 * The approval attributes: a reconcile execution's pending wait (`approval`, with its task token)
 * and what ended it (`approved`, `denied`). Written only while the writer holds the lease, like
 * status; storing a wait also stretches the lease over it, so no other execution takes the cluster.
 */
import { RecordNotFoundError, SpecChangedError } from './errors.js';
import { readRecord, type Table, updateItem } from './items.js';
import { asHolder } from './lease-writes.js';
import type { ApprovalOutcome, PendingApproval } from './types.js';

/**
 * Conditioned on the lease only (the functions' IAM lets the reconciler name its own attributes,
 * not the spec writers'), then read back: a spec written before this write is found here, and one
 * written after it finds the wait on the record (on-change cancels it), so no change slips between.
 */
export async function awaitApproval(
  t: Table,
  id: string,
  owner: string,
  approval: PendingApproval,
  opts: { readonly leaseExpiresAt: number; readonly deleting: boolean },
): Promise<void> {
  await asHolder(id, owner, (held) =>
    updateItem(t, id, { set: { approval, 'lease.expiresAt': opts.leaseExpiresAt } }, held),
  );
  const now = await readRecord(t, id);
  if (!now) throw new RecordNotFoundError(`${id}: the record disappeared`);
  if (now.generation === approval.generation && (now.deletionRequestedAt !== undefined) === opts.deleting)
    return;
  // Nobody would answer this wait: take it back, and say why.
  await endApproval(t, id, owner, {});
  throw new SpecChangedError(
    `${id}: the spec is at generation ${now.generation}${now.deletionRequestedAt ? ' (deletion requested)' : ''}, not the awaited ${approval.generation}`,
  );
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
