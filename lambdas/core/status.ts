/**
 * The status record and the one reducer that writes it. Every path of the pipeline ends in an
 * {@link Outcome}; `applyOutcome` turns it into conditions with fixed reasons, and the booleans are
 * derived from those conditions. Every failure outcome carries a remediation.
 */
import {
  type Condition,
  type ConditionInput,
  ConditionType,
  currentRemediation,
  deriveFlags,
  failure,
  getCondition,
  notYet,
  REASON_HINT,
  Reason,
  setConditions,
  success,
  unknown,
} from './conditions.js';
import { Health } from './health.js';
import type { ObservedTaint } from './observation.js';
import type { DriftItem } from './plan/fields.js';
import {
  type ApprovalEnd,
  approvalConditions,
  approvalDeniedConditions,
  approvalSettled,
} from './status-approval.js';
import { driftCondition, pausedDiffering } from './status-drift.js';
import type { AddonSummary } from './status-parts.js';

/** One spec pool as last observed: the node group that serves it, or `Missing` when it has none. */
export interface ObservedPool {
  readonly name: string;
  /** The pool's current node group (derived name, promised shape); absent when `Missing`. */
  readonly nodegroup?: string;
  /** The EKS status of that node group (ACTIVE, UPDATING, ...), or `Missing`. */
  readonly status: string;
  readonly version?: string;
  /** The node group's desired size. */
  readonly nodeCount?: number;
  readonly minSize?: number;
  readonly maxSize?: number;
  readonly instanceTypes?: readonly string[];
  readonly capacityType?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly taints?: readonly ObservedTaint[];
  /** The pool's other node groups: being replaced, or holding its name with another shape. */
  readonly otherNodegroups?: readonly string[];
}

export interface ObservedSummary {
  readonly health: Health;
  readonly version?: string;
  /** Desired nodes across every observed node group (pools, orphans and foreign groups alike). */
  readonly nodeCount?: number;
  /** How many pools the spec lists. */
  readonly poolCount?: number;
  /** One entry per spec pool, in spec order. Absent in status written before pools existed. */
  readonly pools?: readonly ObservedPool[];
  /** Node groups CloudOrch did not create and no pool names. */
  readonly foreign?: readonly string[];
  /** Node groups CloudOrch created for pools the spec no longer lists. */
  readonly orphan?: readonly string[];
  readonly endpoint?: string;
  readonly arn?: string;
  /** The cluster carried this record's ownership tag when observed. */
  readonly owned?: boolean;
  /** The listed add-ons in spec order (absent when add-ons were not read). */
  readonly addons?: readonly AddonSummary[];
  /** The authentication mode and access entries (entries absent when not read). */
  readonly access?: AccessSummary;
}

export interface AccessSummary {
  readonly authenticationMode: string;
  readonly entries?: readonly {
    readonly principalArn: string;
    readonly type: string;
    /** Policy names with their scope, e.g. `AmazonEKSViewPolicy (cluster)`. */
    readonly policies: readonly string[];
    /** Listed in the spec; false: made by hand or by EKS. */
    readonly listed: boolean;
  }[];
}

export interface PolicyViolation {
  readonly rule: string;
  readonly message: string;
  readonly severity: 'error' | 'warn';
}

/** An operation a policy lets run only once a human approves it: an entry of the decision's `approvals`. */
export interface PolicyApproval {
  /** The rule that asks, e.g. `production-deletion-approval`. */
  readonly rule: string;
  /** What would run, e.g. `delete cluster platform-prod`. */
  readonly operation: string;
  /** Why it needs a human. */
  readonly reason: string;
}

export interface ClusterStatus {
  readonly conditions: readonly Condition[];
  readonly observedGeneration: number;
  /** Derived from the Ready condition; never set by hand. */
  readonly ready: boolean;
  /** Derived from the Synced condition; never set by hand. */
  readonly synced: boolean;
  readonly remediation?: string;
  readonly observed?: ObservedSummary;
  readonly estimatedMonthlyCost?: number;
  readonly lastPlan?: readonly string[];
  readonly lastDrift?: readonly DriftItem[];
  readonly violations?: readonly PolicyViolation[];
  /**
   * The cluster this record has owned (seen carrying its ownership tags). Kept across every later
   * outcome, EKS outages included, so a removed owner tag is always told apart from one never there.
   */
  readonly ownedArn?: string;
  readonly updatedAt: string;
}

export type Outcome =
  | { readonly kind: 'Converged' }
  | { readonly kind: 'Progressing'; readonly operation: string }
  | { readonly kind: 'Waiting'; readonly reason: string }
  | { readonly kind: 'Paused' }
  | { readonly kind: 'PolicyDenied'; readonly violations: readonly PolicyViolation[] }
  | { readonly kind: 'PolicyEngineDegraded'; readonly message: string }
  /** The policies allow the plan but hold an operation for approval: nothing was called. */
  | {
      readonly kind: 'ApprovalRequired';
      readonly message: string;
      readonly approvals: readonly PolicyApproval[];
    }
  /** A human denied the held operations, or nobody approved them in time: nothing runs this generation. */
  | { readonly kind: 'ApprovalDenied'; readonly reason: ApprovalEnd; readonly message: string }
  | { readonly kind: 'SpecInvalid'; readonly message: string }
  | {
      readonly kind: 'Failed';
      readonly errorKind: 'Transient' | 'Permanent';
      readonly message: string;
      readonly remediation: string;
    }
  | {
      /** The readiness gate stopped a control-plane step: nothing was called. */
      readonly kind: 'UpgradeBlocked';
      readonly message: string;
      readonly remediation: string;
    }
  | {
      readonly kind: 'Impossible';
      readonly message: string;
      readonly remediation: string;
      /** Why it cannot converge when the cluster is not (or no longer) ours; absent: the spec asks too much. */
      readonly ownership?: OwnershipBlock;
    }
  | { readonly kind: 'RecordInvalid'; readonly message: string }
  | { readonly kind: 'ObserveFailed'; readonly message: string; readonly remediation: string }
  | { readonly kind: 'ReleasedUntouched'; readonly message: string }
  | { readonly kind: 'Deleting'; readonly operation: string }
  | { readonly kind: 'Deleted' }
  | { readonly kind: 'Retained' }
  | { readonly kind: 'DeletionStuck'; readonly message: string };

export type OwnershipBlock = 'NotOwned' | 'OwnershipLost' | 'TargetClaimed';

export interface OutcomeContext {
  readonly generation: number;
  readonly now: Date;
  readonly observed?: ObservedSummary;
  readonly drift?: readonly DriftItem[];
  readonly estimatedMonthlyCost?: number;
  readonly plan?: readonly string[];
  /** Set when this observation saw the cluster carrying this record's ownership tags. */
  readonly ownedArn?: string;
  /** This run's policy decision, when the policies were evaluated: status shows it whatever the outcome. */
  readonly policy?: { readonly allow: boolean; readonly violations: readonly PolicyViolation[] };
  /**
   * Conditions about the cluster's parts from this run's observation and plan (AddonsReady,
   * UpgradeBlocked, UpgradeWarning; see status-parts.ts). Absent: nothing observed this run.
   */
  readonly parts?: readonly ConditionInput[];
}

/** Ready and Synced both False for the same reason: the cluster is not converged and says why. */
function blocked(reason: Reason, message: string, hint: string, g: number): ConditionInput[] {
  return [
    failure(ConditionType.Ready, reason, message, hint, g),
    failure(ConditionType.Synced, reason, message, hint, g),
  ];
}

/**
 * Nothing was observed or planned this run: whether the add-ons are ready and whether the readiness
 * gate holds a step is unknown now, never the last answer.
 */
function partsUnknown(reason: Reason, hint: string, g: number): ConditionInput[] {
  const message = 'Not observed in this run';
  return [ConditionType.AddonsReady, ConditionType.UpgradeBlocked, ConditionType.UpgradeWarning].map((t) =>
    unknown(t, reason, message, hint, g),
  );
}

/** Ready and Synced both False for a reason that needs no human: work goes on. */
function settling(reason: Reason, message: string, g: number): ConditionInput[] {
  return [notYet(ConditionType.Ready, reason, message, g), notYet(ConditionType.Synced, reason, message, g)];
}

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: one case per outcome kind, read as one table
function outcomeConditions(o: Outcome, g: number): ConditionInput[] {
  const { Ready, Synced, PolicyCompliant } = ConditionType;
  switch (o.kind) {
    case 'Converged':
      return [
        success(Ready, Reason.Reconciled, 'Cluster matches the spec', g),
        success(Synced, Reason.Reconciled, 'Spec applied', g),
        success(PolicyCompliant, Reason.PolicyAllowed, 'All policies pass', g),
      ];
    case 'Progressing':
      return [
        ...settling(Reason.Progressing, o.operation, g),
        success(PolicyCompliant, Reason.PolicyAllowed, 'All policies pass', g),
      ];
    case 'Waiting':
      return settling(Reason.Waiting, o.reason, g);
    case 'Paused':
      return [notYet(Synced, Reason.Paused, 'Reconciliation is paused: observe only', g)];
    case 'PolicyDenied': {
      const msg = o.violations
        .filter((v) => v.severity === 'error')
        .map((v) => `${v.rule}: ${v.message}`)
        .join('; ');
      const hint = REASON_HINT.PolicyViolation;
      return [
        ...blocked(Reason.PolicyViolation, msg, hint, g),
        failure(PolicyCompliant, Reason.PolicyViolation, msg, hint, g),
      ];
    }
    case 'PolicyEngineDegraded': {
      const hint = REASON_HINT.PolicyEngineDegraded;
      return [
        failure(Ready, Reason.PolicyEngineDegraded, o.message, hint, g),
        failure(PolicyCompliant, Reason.PolicyEngineDegraded, o.message, hint, g),
      ];
    }
    case 'ApprovalRequired':
      return approvalConditions(o.message, g);
    case 'ApprovalDenied':
      return approvalDeniedConditions(o.reason, o.message, g);
    case 'SpecInvalid':
      return [
        ...blocked(Reason.SpecInvalid, o.message, REASON_HINT.SpecInvalid, g),
        ...partsUnknown(Reason.SpecInvalid, REASON_HINT.SpecInvalid, g),
      ];
    case 'Failed':
      return blocked(Reason[`${o.errorKind}Error`], o.message, o.remediation, g);
    case 'Impossible':
      return blocked(Reason[o.ownership ?? 'ImpossibleChange'], o.message, o.remediation, g);
    case 'UpgradeBlocked':
      return blocked(Reason.UpgradeInsightsFailing, o.message, o.remediation, g);
    case 'RecordInvalid':
      return [
        ...blocked(Reason.RecordInvalid, o.message, REASON_HINT.RecordInvalid, g),
        ...partsUnknown(Reason.RecordInvalid, REASON_HINT.RecordInvalid, g),
      ];
    case 'ObserveFailed':
      return [
        unknown(Ready, Reason.ObserveFailed, o.message, o.remediation, g),
        unknown(Synced, Reason.ObserveFailed, o.message, o.remediation, g),
        unknown(ConditionType.Drifted, Reason.ObserveFailed, o.message, o.remediation, g),
        ...partsUnknown(Reason.ObserveFailed, o.remediation, g),
      ];
    case 'ReleasedUntouched':
      return [
        notYet(Ready, Reason.ReleasedUntouched, o.message, g),
        success(Synced, Reason.ReleasedUntouched, 'Record released without touching EKS', g),
      ];
    case 'Deleting':
      return settling(Reason.Deleting, o.operation, g);
    case 'Deleted':
      return [
        notYet(Ready, Reason.Deleted, 'Cluster deleted', g),
        success(Synced, Reason.Deleted, 'Deletion complete', g),
      ];
    case 'Retained':
      return [
        notYet(
          Ready,
          Reason.Retained,
          'Record released; the EKS cluster was retained (deletionPolicy: Retain)',
          g,
        ),
        success(Synced, Reason.Retained, 'Released without touching EKS', g),
      ];
    case 'DeletionStuck':
      return blocked(Reason.DeletionStuck, o.message, REASON_HINT.DeletionStuck, g);
  }
}

/**
 * A run whose policies allowed the plan clears an earlier denial, whatever else stops it (a plan that
 * is only impossible differences, a wait): the last decision is what status shows.
 */
function allowedThisRun(outcome: Outcome, ctx: OutcomeContext): ConditionInput | undefined {
  if (!ctx.policy?.allow || outcome.kind === 'PolicyDenied' || outcome.kind === 'PolicyEngineDegraded')
    return undefined;
  return success(ConditionType.PolicyCompliant, Reason.PolicyAllowed, 'All policies pass', ctx.generation);
}

/**
 * What status says was observed: this run's observation; when EKS could not be read, Unknown with
 * nothing else (never the pools, sizes and versions of the last good answer); otherwise the last.
 */
function observedAfter(outcome: Outcome, ctx: OutcomeContext): { observed?: ObservedSummary } {
  if (ctx.observed) return { observed: ctx.observed };
  return outcome.kind === 'ObserveFailed' ? { observed: { health: Health.Unknown } } : {};
}

/**
 * A cluster that converged but whose add-ons are not healthy is not Ready: the booleans follow the
 * conditions, and an unhealthy add-on is a failure of the cluster, not a detail.
 */
function addonsHoldReady(outcome: Outcome, ctx: OutcomeContext): ConditionInput | undefined {
  const addons = ctx.parts?.find((c) => c.type === ConditionType.AddonsReady);
  // Paused sets no Ready of its own: an add-on failing while paused still turns it false.
  if ((outcome.kind !== 'Converged' && outcome.kind !== 'Paused') || !addons || addons.status === 'True')
    return undefined;
  return addons.status === 'False' && addons.remediation
    ? failure(ConditionType.Ready, Reason.AddonUnhealthy, addons.message, addons.remediation, ctx.generation)
    : notYet(ConditionType.Ready, Reason.AddonsProgressing, addons.message, ctx.generation);
}

export function applyOutcome(
  prev: ClusterStatus | undefined,
  outcome: Outcome,
  ctx: OutcomeContext,
): ClusterStatus {
  const next = outcomeConditions(outcome, ctx.generation);
  next.push(...(ctx.parts ?? []));
  const held = addonsHoldReady(outcome, ctx);
  if (held) next.push(held);
  const differing = pausedDiffering(outcome, ctx);
  if (differing) next.push(differing);
  const allowed = allowedThisRun(outcome, ctx);
  if (allowed) next.push(allowed);
  const drift = driftCondition(prev, outcome, ctx);
  if (drift) next.push(drift);
  const settled = approvalSettled(prev, outcome, ctx);
  if (settled) next.push(settled);
  const conditions = setConditions(prev?.conditions ?? [], next, ctx.now);
  const remediation = currentRemediation(conditions);
  const { remediation: _stale, ...kept } = prev ?? {};
  return {
    ...kept,
    conditions,
    observedGeneration: ctx.generation,
    ...deriveFlags(conditions),
    ...(remediation ? { remediation } : {}),
    ...observedAfter(outcome, ctx),
    ...(ctx.estimatedMonthlyCost !== undefined ? { estimatedMonthlyCost: ctx.estimatedMonthlyCost } : {}),
    ...(ctx.plan ? { lastPlan: ctx.plan } : {}),
    ...(ctx.ownedArn ? { ownedArn: ctx.ownedArn } : {}),
    // The last drift found, as detected (not shrinking while it is corrected). Differences while
    // converging a new spec are pending work, not drift.
    ...(drift?.status === 'True' &&
    ctx.drift &&
    getCondition(prev?.conditions ?? [], ConditionType.Drifted)?.status !== 'True'
      ? { lastDrift: ctx.drift }
      : {}),
    ...(outcome.kind === 'PolicyDenied'
      ? { violations: outcome.violations }
      : ctx.policy?.allow
        ? { violations: ctx.policy.violations }
        : outcome.kind === 'Converged'
          ? { violations: [] }
          : {}),
    updatedAt: ctx.now.toISOString(),
  };
}

/**
 * The ARN of the cluster this record has owned: kept in status across every later outcome (an EKS
 * outage included), so a removed owner tag is always told apart from one that was never there.
 * Status written before `ownedArn` existed says it through `observed.owned`.
 */
export function ownedArnOf(status: ClusterStatus | undefined): string | undefined {
  return status?.ownedArn ?? (status?.observed?.owned ? status.observed.arn : undefined);
}
