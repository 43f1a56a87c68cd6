/** Plan: what the next step does, with the drift found and the cost estimate. Pure over the state. */
import { estimateSpecCost } from '../../core/cost/estimate.js';
import { InternalError } from '../../core/errors.js';
import { Health } from '../../core/health.js';
import { detectDrift } from '../../core/plan/fields.js';
import { describeOperation, firstAction, plan } from '../../core/plan/plan.js';
import type { Impossible } from '../../core/plan/types.js';
import type { ExecutionState, PlanResult } from '../contracts.js';
import { depsOf } from '../deps.js';

/**
 * An update this generation made that EKS reports failed, with the resource it was on. A manual
 * reconcile skips it: the human asked to try again (WriteStatus forgets the tracked updates then).
 */
function failedTrackedUpdate(state: ExecutionState) {
  const o = state.observed;
  if (state.trigger === 'manual' || !o?.observation || o.trackedUpdates.length === 0) return undefined;
  const tracked = new Set(o.trackedUpdates.map((t) => t.id));
  const { cluster, nodegroups } = o.observation;
  const updates = [
    { on: `cluster ${cluster?.name ?? ''}`, u: cluster?.update },
    ...nodegroups.map((n) => ({ on: `node group ${n.name}`, u: n.update })),
    ...(o.observation.addons ?? []).map((a) => ({ on: `add-on ${a.name}`, u: a.update })),
  ];
  const failed = updates.find(
    ({ u }) => u && tracked.has(u.id) && (u.health === Health.Failed || u.health === Health.Degraded),
  );
  return failed?.u ? { id: failed.u.id, errorCodes: failed.u.errorCodes, on: failed.on } : undefined;
}

export async function planStep(state: ExecutionState): Promise<PlanResult> {
  const { config, now } = depsOf('plan');
  const o = state.observed;
  if (!o) throw new InternalError('plan needs an observation');
  const empty = { operations: [], descriptions: [], impossible: [], drift: [] };
  if (o.recordInvalid !== undefined) return { action: 'recordInvalid', ...empty };
  if (o.unreachable !== undefined) {
    const notOurs: Impossible = {
      kind: 'Impossible',
      field: 'accountId',
      reason: `the target cannot be reached (${o.unreachable}) and this record never created or owned a cluster`,
      remediation: 'Nothing to do: the record is released, and nothing in EKS was touched.',
      ownership: 'NotOwned',
    };
    return { action: 'release', ...empty, impossible: [notOurs] };
  }
  if (!o.spec || !o.observation) return { action: 'specInvalid', ...empty };

  const desired = {
    id: state.id,
    spec: o.spec,
    generation: o.generation,
    deletionRequested: o.deletionRequested,
    applied: o.applied,
    ...(o.ownedArn ? { ownedArn: o.ownedArn } : {}),
    ...(o.claimedBy ? { claimedBy: o.claimedBy } : {}),
  };
  const operations = plan(desired, o.observation, config.defaults);
  const impossible = operations.filter((op): op is Impossible => op.kind === 'Impossible');
  const drift = o.deletionRequested ? [] : detectDrift(o.spec, o.observation, config.defaults);
  const common = {
    operations,
    descriptions: operations.map(describeOperation),
    impossible,
    drift,
    estimate: estimateSpecCost(o.spec, now()),
  };
  const failedUpdate = failedTrackedUpdate(state);
  if (failedUpdate)
    return {
      action: 'blocked',
      ...common,
      failedUpdate: { id: failedUpdate.id, errorCodes: failedUpdate.errorCodes },
      stuck: `update ${failedUpdate.id} of ${failedUpdate.on} failed (${failedUpdate.errorCodes.join(', ') || 'no error code'})`,
    };

  const action = firstAction(operations);
  if (o.deletionRequested) {
    if (o.deletionCalls >= config.maxDeletionCalls && action && action.kind !== 'Wait') {
      return {
        action: 'blocked',
        ...common,
        stuck: `deletion made ${o.deletionCalls} calls without finishing`,
      };
    }
    // A cluster that is not ours is never touched by a deletion: the record is released as it is.
    const notOurs = impossible.length > 0 && impossible.every((i) => i.ownership !== undefined);
    if (!action) return { action: impossible.length > 0 && !notOurs ? 'blocked' : 'release', ...common };
  }
  if (o.spec.paused && !o.deletionRequested) return { action: 'paused', ...common };
  if (!action) return { action: impossible.length > 0 ? 'blocked' : 'none', ...common };
  if (action.kind === 'Wait') return { action: 'wait', ...common, waitReason: describeOperation(action) };
  return { action: 'apply', ...common, next: action };
}
