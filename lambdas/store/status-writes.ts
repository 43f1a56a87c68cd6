/**
 * The reconciler's writes: status, history, intent, tracked updates, applied counts and failures,
 * each made only while the writer holds the lease. None touches `version`, so they never conflict
 * with a spec write.
 */
import type { ClusterStatus } from '../core/status.js';
import { ConflictError, LeaseLostError } from './errors.js';
import { foldHistory } from './history.js';
import { isConditionFailure, readRecord, type Table, updateAndRead, updateItem } from './items.js';
import { asHolder, OWNED_BY_ME } from './lease-writes.js';
import { toRecord } from './record.js';
import type { ClusterRecord, Intent, StatusWrite } from './types.js';
import type { Mutation } from './update.js';

export async function writeStatus(
  t: Table,
  id: string,
  owner: string,
  write: StatusWrite,
  maxAttempts: number,
): Promise<ClusterRecord> {
  const mutation = statusMutation(write);
  if (!write.history?.length)
    return toRecord(await asHolder(id, owner, (held) => updateAndRead(t, id, mutation, held)));
  // History is read, trimmed and written back on the condition that nobody appended meanwhile.
  let lastRefusal: unknown;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const current = await readRecord(t, id);
    if (current?.lease?.owner !== owner) throw new LeaseLostError(`${id}: lease is not held by ${owner}`);
    const history = foldHistory(current.history ?? [], write.history);
    // A counter, not the list itself, detects a concurrent append: dynalite cannot compare lists.
    const seen = current.historyAppended ?? 0;
    const historyAppended = seen + write.history.length;
    const unchanged =
      current.historyAppended === undefined
        ? { expression: 'attribute_not_exists(#historyAppended)' }
        : { expression: '#historyAppended = :seen', values: { ':seen': seen } };
    try {
      const after = await updateAndRead(
        t,
        id,
        { ...mutation, set: { ...mutation.set, history, historyAppended } },
        {
          expression: `${OWNED_BY_ME} AND ${unchanged.expression}`,
          values: { ':me': owner, ...unchanged.values },
        },
      );
      return toRecord(after);
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
      lastRefusal = err;
    }
  }
  throw new ConflictError(`${id}: history kept changing under ${maxAttempts} status writes`, {
    cause: lastRefusal,
  });
}

/** Only `intent`: what is about to be called, so a crash after it can be reasoned about. */
export async function recordIntent(t: Table, id: string, owner: string, intent: Intent): Promise<void> {
  await asHolder(id, owner, (held) => updateItem(t, id, { set: { intent } }, held));
}

/** Only `status`, on an item that does not parse as a record: how RecordInvalid reaches it. */
export async function markInvalid(t: Table, id: string, owner: string, status: ClusterStatus): Promise<void> {
  await asHolder(id, owner, (held) => updateItem(t, id, { set: { status } }, held));
}

function statusMutation(write: StatusWrite): Mutation {
  const set: Record<string, unknown> = { status: write.status };
  const remove: string[] = [];
  if (write.intent) set['intent'] = write.intent;
  if (write.trackedUpdates) set['trackedUpdates'] = write.trackedUpdates;
  if (write.applied) set['applied'] = write.applied;
  if (write.failures) set['failures'] = write.failures;
  if (write.intent === null) remove.push('intent');
  if (write.failures === null) remove.push('failures');
  return remove.length > 0 ? { set, remove } : { set };
}
