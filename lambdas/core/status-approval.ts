/**
 * The AwaitingApproval condition: an operation the policies allow only once a human approves it
 * (the decision's `approvals`) holds the plan, and nothing is called until then. The condition says
 * what the last policy evaluation found: set by an ApprovalRequired outcome, turned False by the
 * next evaluation that needs no approval.
 */
import {
  type ConditionInput,
  ConditionType,
  failure,
  getCondition,
  notYet,
  REASON_HINT,
  Reason,
  success,
} from './conditions.js';
import type { ClusterStatus, Outcome, OutcomeContext, PolicyApproval } from './status.js';

/** The command that approves a record's held operations: `cloudorch approve <namespace>/<name>`. */
export function approveCommand(id: string): string {
  return `cloudorch approve ${id.includes('/') ? id : `default/${id}`}`;
}

/**
 * What status says about held operations: each operation, its rule and reason, then the command.
 *
 * @example
 * approvalMessage('platform/prod', [{ rule: 'r', operation: 'delete cluster prod', reason: 'why' }]);
 * // 'delete cluster prod requires approval (r): why; approve it with: cloudorch approve platform/prod'
 */
export function approvalMessage(id: string, approvals: readonly PolicyApproval[]): string {
  const held = approvals.map((a) => `${a.operation} requires approval (${a.rule}): ${a.reason}`);
  return `${held.join('; ')}; approve it with: ${approveCommand(id)}`;
}

/** Ready and Synced False and AwaitingApproval True, all for the reason ApprovalRequired. */
export function approvalConditions(message: string, g: number): ConditionInput[] {
  const hint = REASON_HINT.ApprovalRequired;
  return [
    failure(ConditionType.Ready, Reason.ApprovalRequired, message, hint, g),
    failure(ConditionType.Synced, Reason.ApprovalRequired, message, hint, g),
    success(ConditionType.AwaitingApproval, Reason.ApprovalRequired, message, g),
  ];
}

/**
 * An earlier run awaited approval and this run's policies were evaluated without needing one (the
 * spec changed, or the operation is done): AwaitingApproval turns False. A record that never
 * awaited approval gets no such condition.
 */
export function approvalSettled(
  prev: ClusterStatus | undefined,
  outcome: Outcome,
  ctx: OutcomeContext,
): ConditionInput | undefined {
  if (outcome.kind === 'ApprovalRequired' || !ctx.policy) return undefined;
  if (getCondition(prev?.conditions ?? [], ConditionType.AwaitingApproval)?.status !== 'True')
    return undefined;
  return notYet(
    ConditionType.AwaitingApproval,
    Reason.NoApprovalPending,
    'No operation awaits approval',
    ctx.generation,
  );
}
