/**
 * The JSON that flows between the state machine's steps. Each step reads the execution state and
 * returns one result, placed at its ResultPath by the definition (see statemachine/definition.ts).
 */
import type { CostEstimate } from '../core/cost/estimate.js';
import type { Observation } from '../core/observation.js';
import type { DriftItem } from '../core/plan/fields.js';
import type { Impossible, MutatingOperation, Operation } from '../core/plan/types.js';
import type { TrackedUpdate } from '../core/provider.js';
import type { SpecIssue } from '../core/spec/issue.js';
import type { CloudClusterSpec } from '../core/spec/schema.js';
import type { PolicyApproval, PolicyViolation } from '../core/status.js';
import type { ApprovalEnd } from '../core/status-approval.js';

/** What may start an execution; the state machine's first state refuses anything else. */
export const TRIGGERS = ['change', 'sweep', 'drift', 'manual'] as const;
export type Trigger = (typeof TRIGGERS)[number];

/** What the sweep dispatcher hands one shard run: a few (account, region) shards and their record ids. */
export interface ShardRunPayload {
  /** The sweep period it belongs to (execution names carry it: one sweep run per cluster per period). */
  readonly periodBucket: string;
  readonly shards: readonly {
    readonly accountId: string;
    readonly region: string;
    /** The scan segment (`i/n`) of a segmented sweep: its part of the shard has its own lease. */
    readonly segment?: string;
    readonly ids: readonly string[];
  }[];
}

export interface ObserveResult {
  readonly generation: number;
  readonly deletionRequested: boolean;
  /** Absent when the stored spec fails validation: then no EKS call was made. */
  readonly spec?: CloudClusterSpec;
  readonly specIssues?: readonly SpecIssue[];
  readonly observation?: Observation;
  readonly trackedUpdates: readonly TrackedUpdate[];
  /** Deletion calls made so far for this record (bounded; see DeletionStuck). */
  readonly deletionCalls: number;
  /** Successful applies per operation key in this generation (part of the idempotency tokens). */
  readonly applied: Readonly<Record<string, number>>;
  /** The stored item does not parse as a record: why. Nothing else was read or called. */
  readonly recordInvalid?: string;
  /** The cluster this record owned when status was last written (tells a lost tag from none). */
  readonly ownedArn?: string;
  /** Another record holding this record's target. */
  readonly claimedBy?: string;
  /** Grants and a denial of this generation; absent when there are none. */
  readonly approvalState?: ApprovalState;
  /**
   * Set for a deletion whose target cannot be reached at all (see core/target.ts) while this record
   * never created or owned a cluster: why. The record is released without touching EKS.
   */
  readonly unreachable?: string;
}

export type PlanAction =
  | 'apply'
  | 'wait'
  | 'none'
  | 'blocked'
  | 'specInvalid'
  | 'recordInvalid'
  | 'release'
  | 'paused';

export interface PlanResult {
  readonly action: PlanAction;
  readonly operations: readonly Operation[];
  readonly descriptions: readonly string[];
  /** The one operation ApplyStep executes when action is `apply`. */
  readonly next?: MutatingOperation;
  readonly waitReason?: string;
  readonly impossible: readonly Impossible[];
  readonly drift: readonly DriftItem[];
  readonly estimate?: CostEstimate;
  /** Set when `blocked` because deletion exceeded its call budget, or a tracked update failed. */
  readonly stuck?: string;
  readonly failedUpdate?: { readonly id: string; readonly errorCodes: readonly string[] };
}

/**
 * What the state machine's PolicyAllowsApply choice reads (`$.policy.outcome`): `allow`, the plan's
 * next step may run (approvals granted for this generation count as given); `approval`, the policies
 * allow the plan but an operation of it needs a human's approval first, so the execution waits for
 * one (AwaitApproval) and calls nothing; `denied`, such an approval was denied (or timed out) for
 * this generation, so nothing runs and nothing is asked again; `deny`, nothing runs.
 */
export type PolicyOutcome = 'allow' | 'approval' | 'denied' | 'deny';

/** How the approvals of the observed generation stand, from the record (Observe reads it). */
export interface ApprovalState {
  /** Approved operations, as core `approvalKey`. */
  readonly granted: readonly string[];
  readonly denied?: ApprovalDenied;
}

/** A denial (or timed-out wait) of the observed generation: what, and why, as status shows it. */
export interface ApprovalDenied {
  /** The denied operations, as core `approvalKey`. */
  readonly keys: readonly string[];
  readonly reason: ApprovalEnd;
  readonly message: string;
}

export interface PolicyResult {
  /** The policies' own answer: no error violation. `approval` keeps it true. */
  readonly allow: boolean;
  readonly violations: readonly PolicyViolation[];
  /** Operations that need a human's approval (those already granted left out); listed on a deny too. */
  readonly approvals: readonly PolicyApproval[];
  /** Set with outcome `denied`. */
  readonly denial?: Pick<ApprovalDenied, 'reason' | 'message'>;
  /** The engine could not load a bundle: everything is denied (fail closed). */
  readonly degraded: boolean;
  readonly outcome: PolicyOutcome;
}

export interface ApplyStepResult {
  readonly operation: MutatingOperation['kind'];
  readonly description: string;
  /** True when the record's generation moved on since Observe: nothing was applied. */
  readonly skipped?: boolean;
  readonly updateId?: string;
  /** A delete found the resource already gone. */
  readonly alreadyGone?: boolean;
}

/** How Step Functions hands a caught error to the next state. */
export interface CaughtError {
  readonly Error: string;
  readonly Cause?: string;
}

export interface ClassifiedFailure {
  readonly kind: 'Transient' | 'Permanent' | 'Internal';
  readonly message: string;
  readonly remediation: string;
  readonly code?: string;
}

export interface ExecutionState {
  readonly id: string;
  readonly trigger: Trigger;
  readonly owner: string;
  readonly loop: number;
  readonly observed?: ObserveResult;
  readonly plan?: PlanResult;
  readonly policy?: PolicyResult;
  readonly applied?: ApplyStepResult;
  readonly error?: CaughtError;
  readonly failure?: ClassifiedFailure;
  readonly handOver?: boolean;
  /** AwaitApproval's callback: the task token to store and how long the execution waits. */
  readonly approvalWait?: ApprovalWait;
  /** RecordApproval: SendTaskSuccess's output (`cloudorch approve`). */
  readonly approvalGranted?: ApprovalAnswer;
  /** EndApproval: how the wait ended without a grant (deny, timeout, cancel), as Catch passes it. */
  readonly approvalEnd?: CaughtError;
}

export interface ApprovalWait {
  readonly token: string;
  readonly timeoutSeconds: number;
}

/** What `cloudorch approve` sends as SendTaskSuccess's output. */
export interface ApprovalAnswer {
  readonly approvedAt?: string;
  /** The caller's identity, when known. */
  readonly by?: string;
}

/**
 * The errors that end a wait for approval, as SendTaskFailure names them (States.Timeout ends it
 * too); the state machine's AwaitApproval catches them by these names.
 */
export const APPROVAL_ERRORS = {
  denied: 'ApprovalDenied',
  cancelled: 'ApprovalCancelled',
  timedOut: 'States.Timeout',
} as const;

export interface LeaseRequest {
  readonly action: 'acquire' | 'release';
  readonly id: string;
  readonly owner: string;
  /** The execution asking (`$$.Execution.Id`): stored in the lease so others can check on it. */
  readonly executionArn?: string;
}

export interface LeaseResult {
  readonly acquired?: boolean;
  readonly holder?: string;
  /** The lease was taken from an execution that had ended without releasing it. */
  readonly tookOverFrom?: string;
  readonly released?: boolean;
}
