/**
 * Observe: read the record (renewing the lease), validate its spec, and observe the cluster in EKS.
 * An invalid spec stops here: no EKS call is made until the spec changes.
 */
import { validateSpec } from '../../core/spec/validate.js';
import { LeaseLostError, RecordNotFoundError } from '../../store/errors.js';
import type { ExecutionState, ObserveResult } from '../contracts.js';
import { deps } from '../deps.js';

const DELETE_KINDS = new Set(['DeleteNodegroup', 'DeleteCluster']);

export async function observeStep(state: ExecutionState): Promise<ObserveResult> {
  const { store, provider, config, now } = deps();
  await store.renewLease(state.id, state.owner, config.leaseTtlMs, now());
  const record = await store.get(state.id);
  if (!record) throw new RecordNotFoundError(`record ${state.id} disappeared`);
  if (record.lease?.owner !== state.owner)
    throw new LeaseLostError(`lease of ${state.id} is held by ${record.lease?.owner}`);
  const deletionCalls = (record.history ?? []).filter(
    (h) => h.kind === 'operation' && h.operation !== undefined && DELETE_KINDS.has(h.operation),
  ).length;
  const base = {
    generation: record.generation,
    deletionRequested: record.deletionRequestedAt !== undefined,
    trackedUpdates: record.trackedUpdates ?? [],
    deletionCalls,
    applied: record.applied?.generation === record.generation ? record.applied.counts : {},
  };
  const v = validateSpec(record.spec);
  if (!v.ok) return { ...base, specIssues: v.issues };
  const observation = await provider.observe(
    { clusterName: v.spec.clusterName, region: v.spec.region },
    { trackedUpdates: record.trackedUpdates ?? [] },
  );
  return { ...base, spec: v.spec, observation };
}
