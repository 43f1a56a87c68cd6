/**
 * Deleting a record: the spec writer requests it (once), and the reconciler, once the cluster is
 * gone or retained, removes the record while it holds the lease, then gives up its target claim.
 */
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { releaseClaim } from './claim-store.js';
import type { Target } from './claims.js';
import { ConflictError, LeaseLostError, RecordNotFoundError } from './errors.js';
import { isConditionFailure, readItem, readRecord, type Table, updateAndRead } from './items.js';
import { OWNED_BY_ME } from './lease-writes.js';
import { toRecord } from './record.js';
import type { ClusterRecord } from './types.js';
import { attributeNames, type Mutation } from './update.js';

export async function requestDeletion(t: Table, id: string, now: Date): Promise<ClusterRecord> {
  // Only the first request writes, so repeated requests produce no change events.
  const mutation: Mutation = { set: { deletionRequestedAt: now.toISOString() }, increment: { version: 1 } };
  const condition = { expression: 'attribute_exists(#id) AND attribute_not_exists(#deletionRequestedAt)' };
  try {
    return toRecord(await updateAndRead(t, id, mutation, condition));
  } catch (err) {
    if (!isConditionFailure(err)) throw err;
    const current = await readRecord(t, id);
    if (!current) throw new RecordNotFoundError(`${id}: no such record`, { cause: err });
    return current;
  }
}

export async function release(t: Table, id: string, owner: string, target?: Target): Promise<void> {
  try {
    await t.doc.send(
      new DeleteCommand({
        TableName: t.name,
        Key: { id },
        ConditionExpression: `attribute_exists(#deletionRequestedAt) AND ${OWNED_BY_ME}`,
        ExpressionAttributeNames: attributeNames(`#deletionRequestedAt ${OWNED_BY_ME}`),
        ExpressionAttributeValues: { ':me': owner },
      }),
    );
  } catch (err) {
    if (!isConditionFailure(err)) throw err;
    const current = await readItem(t, id);
    if (current) {
      if (current['deletionRequestedAt'] === undefined)
        throw new ConflictError(`${id}: deletion was not requested`, { cause: err });
      throw new LeaseLostError(`${id}: lease is not held by ${owner}`, { cause: err });
    }
    // Already released: a retried step must succeed, and still gives up the claim.
  }
  if (target) await releaseClaim(t, target, id);
}
