/** Which status outcome an execution state stands for. Pure: one place decides what status says. */
import type { Outcome } from '../../core/status.js';
import type { ExecutionState } from '../contracts.js';

export function outcomeOf(state: ExecutionState): Outcome {
  const { plan, policy, applied, failure, observed } = state;
  if (plan?.action === 'recordInvalid' || (observed?.recordInvalid !== undefined && !failure))
    return { kind: 'RecordInvalid', message: observed?.recordInvalid ?? 'the stored item is malformed' };
  if (failure) {
    if (failure.kind === 'SpecInvalid') return { kind: 'SpecInvalid', message: failure.message };
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
    case 'blocked': {
      // Deletion that cannot go on (call budget spent, a DELETE_FAILED group) is stuck, never looped.
      if (
        observed?.deletionRequested &&
        (plan.stuck || plan.impossible.some((i) => i.field === 'deletion'))
      ) {
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
          remediation:
            'Read the update errors (aws eks describe-update), fix the cause, then change the spec (or reconcile) to try again.',
        };
      }
      // An ownership block is the reason to show first: nothing else can happen until it is lifted.
      const first = plan.impossible.find((i) => i.ownership) ?? plan.impossible[0];
      const message = plan.impossible.map((i) => `${i.field}: ${i.reason}`).join('; ');
      return {
        kind: 'Impossible',
        message,
        remediation: first?.remediation ?? 'Change the spec.',
        ...(first?.ownership ? { ownership: first.ownership } : {}),
      };
    }
    default:
      return { kind: 'Waiting', reason: 'reconciliation in progress' };
  }
}
