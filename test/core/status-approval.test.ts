/** The ApprovalRequired outcome: AwaitingApproval True, Ready and Synced False, cleared by the next evaluation. */
import { describe, expect, it } from 'vitest';
import { getCondition, Reason } from '../../lambdas/core/conditions.js';
import { applyOutcome } from '../../lambdas/core/status.js';
import {
  approvalKey,
  approvalMessage,
  approveCommand,
  denyCommand,
} from '../../lambdas/core/status-approval.js';

const t0 = new Date('2026-11-29T10:00:00Z');
const t1 = new Date('2026-11-29T10:05:00Z');
const approval = {
  rule: 'production-deletion-approval',
  operation: 'delete cluster platform-prod',
  reason: 'cluster platform-prod is production',
};
const policy = { allow: true, violations: [] };
const message = approvalMessage('platform/prod-main', [approval]);
const held = applyOutcome(
  undefined,
  { kind: 'ApprovalRequired', message, approvals: [approval] },
  { generation: 1, now: t0, policy },
);

describe('ApprovalRequired', () => {
  it('names the operation, the rule, its reason and the command', () => {
    expect(message).toBe(
      'delete cluster platform-prod requires approval (production-deletion-approval): cluster platform-prod is production; approve it with: cloudorch approve platform/prod-main (or deny it with: cloudorch deny platform/prod-main --reason ...); who may approve: whoever is allowed states:SendTaskSuccess on the Reconcile state machine',
    );
    // Ids without a namespace live in `default`.
    expect(approveCommand('prod-main')).toBe('cloudorch approve default/prod-main');
  });

  it('sets AwaitingApproval True and Ready/Synced False for the same reason; the booleans follow', () => {
    for (const type of ['Ready', 'Synced'] as const)
      expect(getCondition(held.conditions, type)).toMatchObject({
        status: 'False',
        reason: Reason.ApprovalRequired,
        message,
        remediation: expect.stringMatching(/approve it with the command the message names/),
      });
    expect(getCondition(held.conditions, 'AwaitingApproval')).toMatchObject({
      status: 'True',
      reason: Reason.ApprovalRequired,
      message,
    });
    expect(getCondition(held.conditions, 'PolicyCompliant')?.status).toBe('True');
    expect(held).toMatchObject({ ready: false, synced: false });
    expect(held.remediation).toMatch(/approve it with the command the message names/);
  });

  it('turns False once a policy evaluation needs no approval', () => {
    const converged = applyOutcome(held, { kind: 'Converged' }, { generation: 2, now: t1, policy });
    expect(getCondition(converged.conditions, 'AwaitingApproval')).toMatchObject({
      status: 'False',
      reason: Reason.NoApprovalPending,
      lastTransitionTime: t1.toISOString(),
    });
    expect(converged).toMatchObject({ ready: true, synced: true });
  });

  it('stays as it was when the policies were not evaluated (EKS unreadable)', () => {
    const failed = applyOutcome(
      held,
      { kind: 'ObserveFailed', message: 'EKS down', remediation: 'wait' },
      { generation: 1, now: t1 },
    );
    expect(getCondition(failed.conditions, 'AwaitingApproval')?.status).toBe('True');
  });

  it('is never added to a record that did not await approval', () => {
    const converged = applyOutcome(undefined, { kind: 'Converged' }, { generation: 1, now: t0, policy });
    expect(getCondition(converged.conditions, 'AwaitingApproval')).toBeUndefined();
  });
});

describe('ApprovalDenied', () => {
  it.each([
    ['a human denied it', 'ApprovalDenied', /change the spec \(a new generation asks again\)/],
    ['nobody answered in time', 'ApprovalTimedOut', /raise the approval timeout/],
  ] as const)(
    '%s: Ready/Synced False and AwaitingApproval False, all for %s, with the hint',
    (_why, reason, hint) => {
      const denied = applyOutcome(
        held,
        { kind: 'ApprovalDenied', reason, message: 'no' },
        { generation: 1, now: t1, policy },
      );
      for (const type of ['Ready', 'Synced'] as const)
        expect(getCondition(denied.conditions, type)).toMatchObject({
          status: 'False',
          reason,
          message: 'no',
        });
      expect(getCondition(denied.conditions, 'AwaitingApproval')).toMatchObject({ status: 'False', reason });
      expect(denied).toMatchObject({ ready: false, synced: false });
      expect(denied.remediation).toMatch(hint);
    },
  );

  it('grants are keyed by rule and operation; the deny command names the record', () => {
    expect(approvalKey(approval)).toBe('production-deletion-approval|delete cluster platform-prod');
    expect(denyCommand('prod-main')).toBe('cloudorch deny default/prod-main --reason ...');
  });
});
