/**
 * The AwaitingApproval condition: an operation the policies allow only once a human approves it
 * (the decision's `approvals`) holds the plan, and nothing is called until then. The condition says
 * what the last policy evaluation found: set by an ApprovalRequired outcome, turned False by the
 * next evaluation that needs no approval, or by a denial (or a wait that timed out).
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

/**
 * The longest a reconcile execution may wait for an approval (DefinitionOptions'
 * `approvalTimeoutSeconds` is refused above it). It bounds how far ahead a waiting execution's lease
 * may expire: a lease further ahead is not one CloudOrch wrote (store/lease.ts).
 */
export const MAX_APPROVAL_TIMEOUT_SECONDS = 7 * 86_400;

/** How a wait for approval ended without one: a human denied it, or nobody answered in time. */
export type ApprovalEnd = typeof Reason.ApprovalDenied | typeof Reason.ApprovalTimedOut;

/** The record id as the commands take it: `<namespace>/<name>`. */
function qualified(id: string): string {
  return id.includes('/') ? id : `default/${id}`;
}

/** The command that approves a record's held operations: `cloudorch approve <namespace>/<name>`. */
export function approveCommand(id: string): string {
  return `cloudorch approve ${qualified(id)}`;
}

/** The command that denies them: `cloudorch deny <namespace>/<name> --reason ...`. */
export function denyCommand(id: string): string {
  return `cloudorch deny ${qualified(id)} --reason ...`;
}

/**
 * What one grant is keyed by: the rule and the operation it held. A grant covers exactly what was
 * shown to the human; another operation, or the same one asked by another rule, needs its own.
 */
export function approvalKey(a: Pick<PolicyApproval, 'rule' | 'operation'>): string {
  return `${a.rule}|${a.operation}`;
}

/**
 * What status says about held operations: each operation, its rule and reason, then the commands.
 *
 * @example
 * approvalMessage('platform/prod', [{ rule: 'r', operation: 'delete cluster prod', reason: 'why' }]);
 * // 'delete cluster prod requires approval (r): why; approve it with: cloudorch approve platform/prod
 * //  (or deny it with: cloudorch deny platform/prod --reason ...); who may approve: whoever is allowed
 * //  states:SendTaskSuccess on the Reconcile state machine'
 */
const WHO_MAY_APPROVE =
  '; who may approve: whoever is allowed states:SendTaskSuccess on the Reconcile state machine';

export function approvalMessage(id: string, approvals: readonly PolicyApproval[]): string {
  const held = approvals.map((a) => `${a.operation} requires approval (${a.rule}): ${a.reason}`);
  // Approving is calling SendTaskSuccess with the wait's token: IAM decides who can (docs/deploy.md).
  return `${held.join('; ')}; approve it with: ${approveCommand(id)} (or deny it with: ${denyCommand(id)})${WHO_MAY_APPROVE}`;
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

/** Denied (or timed out): Ready and Synced False, and nothing awaits approval any more. */
export function approvalDeniedConditions(reason: ApprovalEnd, message: string, g: number): ConditionInput[] {
  const hint = REASON_HINT[reason];
  return [
    failure(ConditionType.Ready, reason, message, hint, g),
    failure(ConditionType.Synced, reason, message, hint, g),
    notYet(ConditionType.AwaitingApproval, reason, message, g),
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
  if (outcome.kind === 'ApprovalRequired' || outcome.kind === 'ApprovalDenied' || !ctx.policy)
    return undefined;
  if (getCondition(prev?.conditions ?? [], ConditionType.AwaitingApproval)?.status !== 'True')
    return undefined;
  return notYet(
    ConditionType.AwaitingApproval,
    Reason.NoApprovalPending,
    'No operation awaits approval',
    ctx.generation,
  );
}
