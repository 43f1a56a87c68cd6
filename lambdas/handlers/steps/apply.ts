/**
 * ApplyStep: exactly the plan's first operation, as one EKS call. The intent is recorded before the
 * call, so a crash between the call and the status write leaves a trace; the deterministic token
 * makes a repeated create or update a no-op in EKS. A spec changed since Observe wins: nothing is
 * applied and the loop re-observes with the newest generation.
 */
import { isRemoval } from '../../config.js';
import { InternalError, NotFoundError } from '../../core/errors.js';
import { describeOperation } from '../../core/plan/plan.js';
import { RecordNotFoundError } from '../../store/errors.js';
import type { ApplyStepResult, ExecutionState } from '../contracts.js';
import { depsOf } from '../deps.js';
import { emit, METRIC } from '../telemetry.js';
import { assertHoldsLease } from './lease.js';

export async function applyStep(state: ExecutionState): Promise<ApplyStepResult> {
  const { store, provider, now } = depsOf('apply');
  const op = state.plan?.next;
  if (!op || state.plan?.action !== 'apply') throw new InternalError('apply needs a planned operation');
  if (state.policy?.allow !== true || state.policy.outcome !== 'allow')
    throw new InternalError(
      `apply refused: the policy did not allow this plan (${state.policy?.outcome ?? 'not evaluated'})`,
    );
  const description = describeOperation(op);
  const record = await store.get(state.id);
  if (!record) throw new RecordNotFoundError(`record ${state.id} disappeared`);
  assertHoldsLease(state.id, state.owner, record.lease);
  if (record.generation !== state.observed?.generation)
    return { operation: op.kind, description, skipped: true };

  // Intent first: what is about to be called, under which token, is on record before the call.
  await store.recordIntent(state.id, state.owner, {
    operation: op.kind,
    ...('clientRequestToken' in op ? { clientRequestToken: op.clientRequestToken } : {}),
    generation: record.generation,
    at: now().toISOString(),
  });
  try {
    const r = await provider.apply(op);
    emit(METRIC.ApplyOperations, 1, { Operation: op.kind });
    return { operation: op.kind, description, ...(r.updateId ? { updateId: r.updateId } : {}) };
  } catch (err) {
    // A delete (or disassociation) that finds nothing to remove is done.
    if (err instanceof NotFoundError && isRemoval(op.kind)) {
      return { operation: op.kind, description, alreadyGone: true };
    }
    throw err;
  }
}
