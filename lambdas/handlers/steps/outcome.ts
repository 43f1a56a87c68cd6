/** Which status outcome an execution state stands for. Pure: one place decides what status says. */
import { REASON_HINT, UPDATE_FAILED_HINT } from '../../core/conditions.js';
import type { Outcome } from '../../core/status.js';
import { approvalMessage } from '../../core/status-approval.js';
import type { ExecutionState, ObserveResult, PlanResult } from '../contracts.js';
import { approvalEnding } from './approval-end.js';

export function outcomeOf(state: ExecutionState): Outcome {
  const { plan, policy, applied, failure, observed } = state;
  if (plan?.action === 'recordInvalid' || (observed?.recordInvalid !== undefined && !failure))
    return { kind: 'RecordInvalid', message: observed?.recordInvalid ?? 'the stored item is malformed' };
  if (failure) {
    // Nothing was observed in this loop: the failure was EKS (or the record) being unreadable, so
    // what the cluster looks like is unknown now, not what status said before.
    if (!observed)
      return { kind: 'ObserveFailed', message: failure.message, remediation: failure.remediation };
    const errorKind = failure.kind === 'Transient' ? 'Transient' : 'Permanent';
    return { kind: 'Failed', errorKind, message: failure.message, remediation: failure.remediation };
  }
  if (plan?.action === 'specInvalid') {
    return {
      kind: 'SpecInvalid',
      message: (observed?.specIssues ?? []).map((i) => i.message).join('; ') || 'the stored spec is invalid',
    };
  }
  if (policy?.degraded)
    return { kind: 'PolicyEngineDegraded', message: 'the policy bundle is not loaded; every plan is denied' };
  if (applied) {
    if (applied.skipped)
      return { kind: 'Waiting', reason: 'the spec changed during reconciliation; re-planning' };
    return observed?.deletionRequested
      ? { kind: 'Deleting', operation: applied.description }
      : { kind: 'Progressing', operation: applied.description };
  }
  if (state.handOver)
    return {
      kind: 'Waiting',
      reason: `${plan?.waitReason ?? 'still converging'}; handed over to the next sweep`,
    };
  if (policy && !policy.allow && plan?.action !== 'release')
    return { kind: 'PolicyDenied', violations: policy.violations };
  const ended = approvalEnded(state);
  if (ended) return ended;
  // Only a step about to run waits for approval: a plan that waits on EKS or is done calls nothing.
  if (policy?.outcome === 'approval' && plan?.action === 'apply')
    return {
      kind: 'ApprovalRequired',
      message: approvalMessage(state.id, policy.approvals),
      approvals: policy.approvals,
    };
  switch (plan?.action) {
    case 'none':
      return { kind: 'Converged' };
    case 'paused':
      return { kind: 'Paused' };
    case 'release': {
      const block = plan.impossible.find((i) => i.ownership);
      if (block)
        return {
          kind: 'ReleasedUntouched',
          message: `Record released without touching EKS: ${block.reason}`,
        };
      return observed?.spec?.deletionPolicy === 'Retain' ? { kind: 'Retained' } : { kind: 'Deleted' };
    }
    case 'wait':
      return observed?.deletionRequested
        ? { kind: 'Deleting', operation: plan.waitReason ?? 'waiting for EKS' }
        : { kind: 'Waiting', reason: plan.waitReason ?? 'waiting for EKS' };
    case 'blocked':
      return blockedOutcome(plan, observed);
    default:
      return { kind: 'Waiting', reason: 'reconciliation in progress' };
  }
}

/**
 * A wait for approval that ended without one (EndApproval: denied or timed out), or a generation
 * whose approval was already denied: nothing runs. A cancelled wait writes no status of its own.
 */
function approvalEnded(state: ExecutionState): Outcome | undefined {
  const { approvalEnd, policy, plan } = state;
  if (approvalEnd) {
    const ending = approvalEnding(approvalEnd);
    return ending && { kind: 'ApprovalDenied', ...ending };
  }
  if (policy?.outcome === 'denied' && policy.denial && plan?.action === 'apply')
    return { kind: 'ApprovalDenied', ...policy.denial };
  return undefined;
}

/** A plan that cannot go on: stuck deletion, a failed EKS update, or a change EKS or ownership forbids. */
function blockedOutcome(plan: PlanResult, observed: ObserveResult | undefined): Outcome {
  // Deletion that cannot go on (call budget spent, a DELETE_FAILED group) is stuck, never looped.
  if (observed?.deletionRequested && (plan.stuck || plan.impossible.some((i) => i.field === 'deletion'))) {
    return {
      kind: 'DeletionStuck',
      message: plan.stuck ?? plan.impossible.map((i) => i.reason).join('; '),
    };
  }
  if (plan.failedUpdate) {
    return {
      kind: 'Failed',
      errorKind: 'Permanent',
      message: plan.stuck ?? 'an EKS update failed',
      remediation: UPDATE_FAILED_HINT,
    };
  }
  // An ownership block is the reason to show first: nothing else can happen until it is lifted.
  const first = plan.impossible.find((i) => i.ownership) ?? plan.impossible[0];
  const message = plan.impossible.map((i) => `${i.field}: ${i.reason}`).join('; ');
  const gate = plan.impossible.find((i) => i.upgradeBlocked);
  if (gate && !first?.ownership) return { kind: 'UpgradeBlocked', message, remediation: gate.remediation };
  return {
    kind: 'Impossible',
    message,
    remediation: first?.remediation ?? REASON_HINT.ImpossibleChange,
    ...(first?.ownership ? { ownership: first.ownership } : {}),
  };
}
