/**
 * Observe: read the record (renewing the lease), validate its spec, make sure the record holds its
 * target's claim, and observe the cluster in EKS. A malformed record or an invalid spec stops here:
 * no EKS call is made until it is fixed.
 */

import { isDeletion } from '../../config.js';
import { PermanentError } from '../../core/errors.js';
import { observeScope } from '../../core/observe-scope.js';
import { refOf } from '../../core/provider.js';
import { validateSpec } from '../../core/spec/validate.js';
import { ownedArnOf } from '../../core/status.js';
import { isUnreachableCode } from '../../core/target.js';
import { RecordNotFoundError, TargetClaimedError } from '../../store/errors.js';
import { mayOwnCluster } from '../../store/spec-writes.js';
import type { ClusterRecord } from '../../store/types.js';
import type { ApprovalState, ExecutionState, ObserveResult } from '../contracts.js';
import { depsOf } from '../deps.js';
import { assertHoldsLease } from './lease.js';

/** Grants and a denial that hold for the record's generation: older ones were for another spec. */
function approvalStateOf(r: ClusterRecord): { approvalState?: ApprovalState } {
  const granted = r.approved?.generation === r.generation ? r.approved.keys : [];
  const d = r.denied?.generation === r.generation ? r.denied : undefined;
  if (granted.length === 0 && !d) return {};
  return {
    approvalState: {
      granted,
      ...(d ? { denied: { keys: d.keys, reason: d.reason, message: d.message } } : {}),
    },
  };
}

export async function observeStep(state: ExecutionState): Promise<ObserveResult> {
  const { store, provider, config, now } = depsOf('observe');
  await store.renewLease(state.id, state.owner, config.leaseTtlMs, now());
  const parsed = await store.inspect(state.id);
  if (!parsed) throw new RecordNotFoundError(`record ${state.id} disappeared`);
  if (parsed.kind !== 'record') {
    const reason = parsed.kind === 'invalid' ? parsed.invalid.reason : 'a target claim, not a record';
    return {
      generation: 0,
      deletionRequested: false,
      trackedUpdates: [],
      deletionCalls: 0,
      applied: {},
      recordInvalid: reason,
    };
  }
  const record = parsed.record;
  assertHoldsLease(state.id, state.owner, record.lease);
  // Folded entries stand for `count` calls each: the budget counts calls, not entries.
  const deletionCalls = (record.history ?? [])
    .filter((h) => h.kind === 'operation' && isDeletion(h.operation))
    .reduce((n, h) => n + (h.count ?? 1), 0);
  const ownedArn = ownedArnOf(record.status);
  const base = {
    generation: record.generation,
    deletionRequested: record.deletionRequestedAt !== undefined,
    trackedUpdates: record.trackedUpdates ?? [],
    deletionCalls,
    applied: record.applied?.generation === record.generation ? record.applied.counts : {},
    ...(ownedArn ? { ownedArn } : {}),
    ...approvalStateOf(record),
  };
  const v = validateSpec(record.spec);
  if (!v.ok) return { ...base, specIssues: v.issues };
  // Records written before claims existed, or straight to the table, claim their target here.
  let claimedBy: string | undefined;
  try {
    await store.claimTarget(v.spec, record.id, now());
  } catch (err) {
    if (!(err instanceof TargetClaimedError)) throw err;
    claimedBy = err.holder;
  }
  try {
    const observation = await provider.observe(refOf(v.spec), {
      trackedUpdates: record.trackedUpdates ?? [],
      ...observeScope(v.spec),
    });
    return { ...base, spec: v.spec, observation, ...(claimedBy ? { claimedBy } : {}) };
  } catch (err) {
    // A record that never had a cluster is let go even when its target cannot be reached: nothing
    // of it exists in EKS to delete, and waiting for a reachable target would keep it forever.
    const deleting = record.deletionRequestedAt !== undefined;
    if (deleting && err instanceof PermanentError && isUnreachableCode(err.code) && !mayOwnCluster(record))
      return { ...base, spec: v.spec, unreachable: err.message };
    throw err;
  }
}
