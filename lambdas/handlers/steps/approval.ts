/**
 * The wait for a human's approval, served by the writeStatus function (it holds the status and
 * record writes): AwaitApproval writes the status and stores the task token, RecordApproval records
 * the grant once `cloudorch approve` answered, EndApproval records a denial, a timeout or a cancel.
 * `statusStep` routes the function's input to the one the state asks for.
 */
import { InternalError } from '../../core/errors.js';
import { approvalKey, MAX_APPROVAL_TIMEOUT_SECONDS } from '../../core/status-approval.js';
import { SpecChangedError } from '../../store/errors.js';
import type { ClusterRecord } from '../../store/types.js';
import type { ApprovalWait, ExecutionState } from '../contracts.js';
import { depsOf } from '../deps.js';
import { ApprovalCancelledSignal } from '../signals.js';
import { log } from '../telemetry.js';
import { approvalEnding } from './approval-end.js';
import { type WriteResult, writeStatusStep } from './write-status.js';

/** What AwaitApproval's function returns (Step Functions ignores it: the answer comes by token). */
export interface AwaitResult {
  readonly awaiting: readonly string[];
  readonly expiresAt: string;
}

function checkedWait(w: ApprovalWait): ApprovalWait {
  const t = w.timeoutSeconds;
  if (!Number.isInteger(t) || t < 1 || t > MAX_APPROVAL_TIMEOUT_SECONDS)
    throw new InternalError(
      `approvalWait.timeoutSeconds must be an integer from 1 to ${MAX_APPROVAL_TIMEOUT_SECONDS}, got ${t}`,
    );
  if (typeof w.token !== 'string' || w.token === '')
    throw new InternalError('approvalWait.token must be the task token ($$.Task.Token)');
  return w;
}

/** Status says what awaits approval; the record holds the token; the lease outlives the wait. */
export async function awaitApprovalStep(state: ExecutionState, wait: ApprovalWait): Promise<AwaitResult> {
  const { token, timeoutSeconds } = checkedWait(wait);
  const observed = state.observed;
  if (!observed) throw new InternalError('AwaitApproval needs the observation ($.observed)');
  const { store, config, now } = depsOf('writeStatus');
  const written = await writeStatusStep(state);
  if (written.newerGeneration)
    throw new ApprovalCancelledSignal(`the spec changed after generation ${observed.generation} was planned`);
  const at = now().getTime();
  const approval = {
    token,
    generation: observed.generation,
    approvals: state.policy?.approvals ?? [],
    requestedAt: new Date(at).toISOString(),
    expiresAt: new Date(at + timeoutSeconds * 1000).toISOString(),
  };
  const leaseExpiresAt = at + timeoutSeconds * 1000 + config.leaseTtlMs;
  try {
    await store.awaitApproval(state.id, state.owner, approval, {
      leaseExpiresAt,
      deleting: observed.deletionRequested,
    });
  } catch (err) {
    if (err instanceof SpecChangedError) throw new ApprovalCancelledSignal(err.message, { cause: err });
    throw err;
  }
  const awaiting = approval.approvals.map((a) => a.operation);
  log().info('awaiting approval', { clusterId: state.id, awaiting, expiresAt: approval.expiresAt });
  return { awaiting, expiresAt: approval.expiresAt };
}

/** The keys the human saw (the stored wait's), joined to what was granted earlier in this generation. */
function grantedKeys(state: ExecutionState, record: ClusterRecord, generation: number): string[] {
  const asked = (record.approval?.approvals ?? state.policy?.approvals ?? []).map(approvalKey);
  const earlier = record.approved?.generation === generation ? record.approved.keys : [];
  return [...new Set([...earlier, ...asked])];
}

/** `cloudorch approve` answered: the grant is recorded and the execution looks afresh. */
export async function recordApprovalStep(state: ExecutionState): Promise<WriteResult> {
  const { store, now } = depsOf('writeStatus');
  const record = await store.get(state.id);
  if (!record) return { written: 'record already released', newerGeneration: false };
  const generation = record.approval?.generation ?? state.observed?.generation ?? record.generation;
  const answer = state.approvalGranted ?? {};
  const at =
    answer.approvedAt && !Number.isNaN(Date.parse(answer.approvedAt))
      ? answer.approvedAt
      : now().toISOString();
  const keys = grantedKeys(state, record, generation);
  await store.endApproval(state.id, state.owner, {
    approved: { generation, keys, at, ...(answer.by ? { by: answer.by } : {}) },
  });
  log().info('approval granted', { clusterId: state.id, keys, by: answer.by });
  return { written: 'Approved', newerGeneration: record.generation !== generation };
}

/** Denied or timed out: status says so and the denial holds for the generation; cancelled: just ends. */
export async function endApprovalStep(state: ExecutionState): Promise<WriteResult> {
  const { store, now } = depsOf('writeStatus');
  const caught = state.approvalEnd;
  if (!caught) throw new InternalError('EndApproval needs how the wait ended ($.approvalEnd)');
  const ending = approvalEnding(caught);
  const generation = state.observed?.generation;
  if (!ending || generation === undefined) {
    await store.endApproval(state.id, state.owner, {});
    const record = await store.get(state.id);
    return {
      written: 'ApprovalCancelled',
      newerGeneration:
        record !== undefined &&
        (record.generation !== generation ||
          (record.deletionRequestedAt !== undefined) !== (state.observed?.deletionRequested ?? false)),
    };
  }
  const written = await writeStatusStep(state);
  const keys = (state.policy?.approvals ?? []).map(approvalKey);
  await store.endApproval(state.id, state.owner, {
    denied: { generation, keys, ...ending, at: now().toISOString() },
  });
  log().info('approval not granted', { clusterId: state.id, reason: ending.reason });
  return written;
}

/** The writeStatus function's entry: the approval states name their part, anything else writes status. */
export function statusStep(state: ExecutionState): Promise<WriteResult | AwaitResult> {
  if (state.approvalWait) return awaitApprovalStep(state, state.approvalWait);
  if (state.approvalGranted !== undefined) return recordApprovalStep(state);
  if (state.approvalEnd) return endApprovalStep(state);
  return writeStatusStep(state);
}
