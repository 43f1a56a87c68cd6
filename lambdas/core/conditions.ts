/**
 * Kubernetes-shaped status conditions. `ready` and `synced` are computed from the conditions by
 * {@link deriveFlags} and nowhere else; a failure after a success therefore turns `ready` false.
 */
import { InternalError } from './errors.js';

export const ConditionType = {
  Ready: 'Ready',
  Synced: 'Synced',
  PolicyCompliant: 'PolicyCompliant',
  Drifted: 'Drifted',
  /** Every listed add-on ACTIVE without health issues. */
  AddonsReady: 'AddonsReady',
  /** EKS's upgrade insights stop the next control-plane step (`spec.upgrade.readiness: block`). */
  UpgradeBlocked: 'UpgradeBlocked',
  /** A control-plane step goes ahead although insights are in ERROR (`readiness: warn`). */
  UpgradeWarning: 'UpgradeWarning',
  /** The policies hold an operation of the plan until a human approves it; nothing is called. */
  AwaitingApproval: 'AwaitingApproval',
} as const;
export type ConditionType = (typeof ConditionType)[keyof typeof ConditionType];

export type ConditionStatus = 'True' | 'False' | 'Unknown';

/** Fixed reason constants: no one-off condition text. */
export const Reason = {
  Reconciled: 'Reconciled',
  Progressing: 'Progressing',
  Waiting: 'WaitingForEks',
  PolicyAllowed: 'PolicyAllowed',
  PolicyViolation: 'PolicyViolation',
  PolicyEngineDegraded: 'PolicyEngineDegraded',
  SpecInvalid: 'SpecInvalid',
  TransientError: 'TransientError',
  PermanentError: 'PermanentError',
  ImpossibleChange: 'ImpossibleChange',
  NotOwned: 'NotOwned',
  /** The cluster carried our ownership tag and no longer does. */
  OwnershipLost: 'OwnershipLost',
  /** Another record holds the same target (account, region, clusterName). */
  TargetClaimed: 'TargetClaimed',
  /** The stored item does not parse as a record. */
  RecordInvalid: 'RecordInvalid',
  /** EKS could not be read: what status said before is no longer known to hold. */
  ObserveFailed: 'ObserveFailed',
  /** Deleted record whose cluster was not ours: released without touching EKS. */
  ReleasedUntouched: 'ReleasedUntouched',
  NoDrift: 'NoDrift',
  DriftDetected: 'DriftDetected',
  Paused: 'Paused',
  Deleting: 'Deleting',
  Deleted: 'Deleted',
  Retained: 'Retained',
  DeletionStuck: 'DeletionStuck',
  Pending: 'Pending',
  AddonsActive: 'AddonsActive',
  AddonsProgressing: 'AddonsProgressing',
  /** A listed add-on is DEGRADED, failed, or missing its health. */
  AddonUnhealthy: 'AddonUnhealthy',
  NoAddons: 'NoAddons',
  /** ERROR insights (or unread ones) stop the step. */
  UpgradeInsightsFailing: 'UpgradeInsightsFailing',
  /** Nothing stands in the way of the next step (or none is due). */
  UpgradeClear: 'UpgradeClear',
  /** The step went ahead past ERROR insights. */
  UpgradeInsightsIgnored: 'UpgradeInsightsIgnored',
  /** A policy requires a human's approval of an operation before it runs. */
  ApprovalRequired: 'ApprovalRequired',
  /** The last policy evaluation held no operation for approval. */
  NoApprovalPending: 'NoApprovalPending',
  /** A human denied the held operations (`cloudorch deny`): nothing runs for this generation. */
  ApprovalDenied: 'ApprovalDenied',
  /** Nobody approved the held operations within the approval timeout: denied for this generation. */
  ApprovalTimedOut: 'ApprovalTimedOut',
  /** The spec changed while an approval was awaited: the new generation is evaluated afresh. */
  ApprovalCancelled: 'ApprovalCancelled',
} as const;
export type Reason = (typeof Reason)[keyof typeof Reason];

/**
 * The hint of each reason whose remediation is the same every time, beside the reasons so that a
 * reason and what to do about it are defined together. The other failure reasons take their hint
 * from the error (TransientError, PermanentError, ObserveFailed: see core/errors.ts and the store,
 * policy and provider errors) or from the planner (ImpossibleChange and the ownership reasons).
 */
export const REASON_HINT = {
  PolicyViolation:
    'Change the spec so it satisfies the listed policies, or do what a violation says (a node group CloudOrch did not create: delete it, or allow it in settings), or ask a platform admin for a waiver.',
  PolicyEngineDegraded:
    'The policy bundle failed to load, so nothing is applied. Rebuild and publish the policy bundle.',
  ApprovalRequired:
    'A policy holds an operation of the plan until a human approves it: approve it with the command the message names, or change the spec so the plan no longer needs it. Nothing is called until then.',
  ApprovalDenied:
    'The held operations were denied for this generation and are not asked for again: change the spec (a new generation asks again) or run the operation by other means.',
  ApprovalTimedOut:
    'Nobody approved the held operations in time; they are denied for this generation. Change the spec (a new generation asks again), or raise the approval timeout.',
  SpecInvalid: 'Fix the named fields and apply the spec again; nothing is called until then.',
  RecordInvalid:
    'The item was written to the table outside CloudOrch. Delete it (aws dynamodb delete-item) and apply the CloudCluster again with cloudorch apply.',
  DeletionStuck:
    'Deletion made no progress within its attempt budget. Check the cluster and node groups in EKS, remove what blocks them, then reconcile.',
  /** Only when the planner named no remediation of its own. */
  ImpossibleChange: 'Change the spec.',
} as const satisfies Partial<Record<Reason, string>>;

/** PermanentError's hint when no error was thrown: EKS itself reports an update as failed. */
export const UPDATE_FAILED_HINT =
  'Read the update errors (aws eks describe-update), fix the cause, then change the spec or run cloudorch reconcile to try again.';

export interface Condition {
  readonly type: ConditionType;
  readonly status: ConditionStatus;
  readonly reason: Reason;
  readonly message: string;
  /** Changes only when `status` changes. */
  readonly lastTransitionTime: string;
  readonly observedGeneration: number;
  /** Present on every failure: what a human should do next. */
  readonly remediation?: string;
}

export type ConditionInput = Omit<Condition, 'lastTransitionTime'>;

/** A condition that is not True always says what a human should do next. */
function hinted(status: 'False' | 'Unknown') {
  return (
    type: ConditionType,
    reason: Reason,
    message: string,
    remediation: string,
    observedGeneration: number,
  ): ConditionInput => {
    if (remediation.trim() === '')
      throw new InternalError(`condition ${type}/${reason} (${status}) needs a remediation hint`);
    return { type, status, reason, message, remediation, observedGeneration };
  };
}

/** A failure condition cannot be built without a remediation hint. */
export const failure = hinted('False');

/** A fact that cannot be observed right now: `Unknown`, never the last good answer. */
export const unknown = hinted('Unknown');

/** False for a reason that needs no human: work in progress, or a state chosen on purpose. */
export function notYet(
  type: ConditionType,
  reason: Reason,
  message: string,
  observedGeneration: number,
): ConditionInput {
  return { type, status: 'False', reason, message, observedGeneration };
}

export function success(
  type: ConditionType,
  reason: Reason,
  message: string,
  observedGeneration: number,
): ConditionInput {
  return { type, status: 'True', reason, message, observedGeneration };
}

export function getCondition(conds: readonly Condition[], type: ConditionType): Condition | undefined {
  return conds.find((c) => c.type === type);
}

/** Upserts one condition; keeps `lastTransitionTime` unless the status flips. Order is stable. */
export function setCondition(conds: readonly Condition[], next: ConditionInput, now: Date): Condition[] {
  const prev = getCondition(conds, next.type);
  const lastTransitionTime =
    prev && prev.status === next.status ? prev.lastTransitionTime : now.toISOString();
  const merged: Condition = { ...next, lastTransitionTime };
  if (!prev) return [...conds, merged];
  return conds.map((c) => (c.type === next.type ? merged : c));
}

export function setConditions(
  conds: readonly Condition[],
  next: readonly ConditionInput[],
  now: Date,
): Condition[] {
  return next.reduce<Condition[]>((acc, c) => setCondition(acc, c, now), [...conds]);
}

export interface StatusFlags {
  readonly ready: boolean;
  readonly synced: boolean;
}

/** The only place `ready` and `synced` come from. */
export function deriveFlags(conds: readonly Condition[]): StatusFlags {
  return {
    ready: getCondition(conds, ConditionType.Ready)?.status === 'True',
    synced: getCondition(conds, ConditionType.Synced)?.status === 'True',
  };
}

/** The remediation of the first failing (or unknown) condition, in a fixed order of importance. */
export function currentRemediation(conds: readonly Condition[]): string | undefined {
  for (const t of [ConditionType.Ready, ConditionType.PolicyCompliant, ConditionType.Synced]) {
    const c = getCondition(conds, t);
    if (c && c.status !== 'True' && c.remediation) return c.remediation;
  }
  return undefined;
}
