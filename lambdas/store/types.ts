/**
 * The desired-state store contract. One DynamoDB item per cluster, key `id`. Spec writers and status
 * writers update disjoint attributes with conditions, so they never clobber each other:
 * - spec writers (`apply`, the bridge) own `spec`, `specHash`, `generation`, `deletionRequestedAt`,
 *   and `labels` (written beside the spec: a label change bumps neither `generation` nor `version`);
 * - the reconciler, while it holds the lease, owns `status`, `history` (+ `historyAppended`), `intent`,
 *   `trackedUpdates`, and the approval attributes `approval`, `approved`, `denied`.
 * A status write never bumps `generation`. Conflicts surface as typed errors, never as overwrites.
 */
import type { FailureCount } from '../core/backoff.js';
import type { Labels } from '../core/labels.js';
import type { TrackedUpdate } from '../core/provider.js';
import type { CloudClusterSpec } from '../core/spec/schema.js';
import type { ClusterStatus, PolicyApproval } from '../core/status.js';
import type { ApprovalEnd } from '../core/status-approval.js';
import type { Target } from './claims.js';
import type { InvalidItem, ParsedItem } from './record.js';

export interface Lease {
  /** The execution (or process) holding it. */
  readonly owner: string;
  /** Epoch milliseconds. An expired lease may be taken over. */
  readonly expiresAt: number;
  /**
   * The Step Functions execution holding it: a reader that finds the lease can ask whether that
   * execution still runs, and take the lease over when it does not (crash, abort, timeout).
   */
  readonly executionArn?: string;
}

/**
 * Consecutive failed runs of one generation, stored explicitly so the sweep backs off without
 * re-deriving it from history (core/backoff.ts). Cleared by a run that did not fail.
 */
export type Failures = FailureCount;

/** What the reconciler recorded before a non-idempotent-looking call, so a crash can be reasoned about. */
export interface Intent {
  readonly operation: string;
  readonly clientRequestToken?: string;
  readonly generation: number;
  readonly at: string;
}

export interface HistoryEntry {
  readonly at: string;
  readonly kind: 'plan' | 'policy' | 'operation' | 'error' | 'status';
  readonly generation: number;
  readonly summary: string;
  readonly executionId?: string;
  /** On `operation` entries: the operation kind, as data (nobody parses `summary`). */
  readonly operation?: string;
  /** How many identical consecutive entries this one stands for (absent: 1). */
  readonly count?: number;
  /** When the last of the folded entries was written. */
  readonly lastAt?: string;
  /** The execution that wrote the last of the folded entries (`executionId` is the first's). */
  readonly lastExecutionId?: string;
}

export interface ClusterRecord {
  readonly id: string;
  readonly spec: CloudClusterSpec;
  /** sha256 of the canonical spec JSON: a re-apply of the same spec is a no-op. */
  readonly specHash: string;
  /** Bumped on every real spec change, never by status writes. */
  readonly generation: number;
  /** Optimistic concurrency for spec writers. */
  readonly version: number;
  readonly createdAt: string;
  /** metadata.labels, for selectors (`cloudorch get -l`); absent when there are none. */
  readonly labels?: Labels;
  readonly deletionRequestedAt?: string;
  /** The rollout whose change is this generation; absent once anyone else writes the spec. */
  readonly rollout?: RolloutMark;
  readonly status?: ClusterStatus;
  readonly lease?: Lease;
  readonly intent?: Intent;
  readonly trackedUpdates?: readonly TrackedUpdate[];
  /** Bounded: newest last, at most HISTORY_LIMIT entries. */
  readonly history?: readonly HistoryEntry[];
  /**
   * How many history entries were ever appended (so `historyAppended - history.length` were trimmed).
   * Reconciler-owned; it also guards the read-trim-write of `history` against a concurrent append.
   */
  readonly historyAppended?: number;
  readonly applied?: AppliedCounts;
  readonly failures?: Failures;
  /** The wait of a reconcile execution for a human's approval; absent when none waits. */
  readonly approval?: PendingApproval;
  /** What humans approved for one generation (a new generation needs its own). */
  readonly approved?: ApprovalGrant;
  /** The last denial (or timed-out wait): for its generation, nothing is asked again. */
  readonly denied?: ApprovalDenial;
}

/**
 * An execution waiting for approval: `cloudorch approve` and `deny` answer its Step Functions task
 * token, and a spec change cancels it. Written by the waiting execution, removed when the wait ends.
 */
export interface PendingApproval {
  readonly token: string;
  /** The generation whose plan holds the operations. */
  readonly generation: number;
  readonly approvals: readonly PolicyApproval[];
  readonly requestedAt: string;
  /** When the wait ends as ApprovalTimedOut. */
  readonly expiresAt: string;
}

/** Approved operations of one generation, each as core `approvalKey` (`<rule>|<operation>`). */
export interface ApprovalGrant {
  readonly generation: number;
  readonly keys: readonly string[];
  readonly at: string;
  /** Who approved, when the caller's identity was known. */
  readonly by?: string;
}

/** Denied (or timed-out) operations of one generation, as core `approvalKey`: not asked again. */
export interface ApprovalDenial {
  readonly generation: number;
  readonly keys: readonly string[];
  readonly reason: ApprovalEnd;
  readonly message: string;
  readonly at: string;
}

/** How a wait ends: a grant (approve) or a denial (deny, timeout) is recorded; a cancel records neither. */
export interface ApprovalOutcome {
  readonly approved?: ApprovalGrant;
  readonly denied?: ApprovalDenial;
}

export interface RolloutMark {
  readonly id: string;
  /** The rollout's generation, and the stage that wrote the change. */
  readonly generation: number;
  readonly stage: string;
}

export const HISTORY_LIMIT = 50;

/** Successful applies per operation key (core `applyKey`) within one generation; feeds the tokens. */
export interface AppliedCounts {
  readonly generation: number;
  readonly counts: Readonly<Record<string, number>>;
}

export interface ApplyResult {
  readonly record: ClusterRecord;
  /** False when the spec was identical: nothing was written and generation is unchanged. */
  readonly changed: boolean;
  readonly created: boolean;
  /** The labels were given and differed from the record's, and were written. */
  readonly labelsChanged: boolean;
}

export interface StatusWrite {
  readonly status: ClusterStatus;
  readonly applied?: AppliedCounts;
  /** Appended to history (the store keeps the newest HISTORY_LIMIT). */
  readonly history?: readonly HistoryEntry[];
  /** `null` clears it. */
  readonly intent?: Intent | null;
  readonly trackedUpdates?: readonly TrackedUpdate[];
  /** `null` clears it (a run that did not fail). */
  readonly failures?: Failures | null;
}

export interface ScanPage {
  readonly records: ClusterRecord[];
  /** Items that do not parse as records, each with why; claim items are not listed. */
  readonly invalid: InvalidItem[];
  /** Opaque; absent on the last page. */
  readonly next?: string;
}

export interface DesiredStateStore {
  /** RecordInvalidError when the item does not parse. */
  get(id: string): Promise<ClusterRecord | undefined>;
  /** The item as a record, as invalid (with why), or undefined: never throws for a malformed item. */
  inspect(id: string): Promise<ParsedItem | undefined>;
  /**
   * Creates or updates the spec. Generation bumps only when the spec really changed. With
   * `expectedVersion`, the write is conditional on it (ConflictError otherwise).
   * Throws DeletionInProgressError once deletion was requested. Claims the spec's target first
   * (TargetClaimedError when another record holds it; a claim taken is given back when the record
   * write fails) and gives up the old target's claim when the spec moved to another one, which only
   * a record that never owned a cluster may do (TargetChangeError otherwise). With `labels`, the
   * record's labels become those (a separate write after the spec's; see writeLabels).
   */
  applySpec(
    id: string,
    spec: CloudClusterSpec,
    opts?: { expectedVersion?: number; now?: Date; labels?: Labels; rollout?: RolloutMark },
  ): Promise<ApplyResult>;
  /**
   * Replaces the record's labels (validated by the caller, core/labels.ts) without touching the spec,
   * `generation` or `version`: no reconciliation starts. RecordNotFoundError when there is no record.
   */
  writeLabels(id: string, labels: Labels): Promise<ClusterRecord>;
  /** Marks the record for deletion (idempotent). RecordNotFoundError when there is no record. */
  requestDeletion(id: string, now?: Date): Promise<ClusterRecord>;
  /**
   * Takes the lease if free, expired, malformed, or already ours. LeaseHeldError otherwise (with the
   * holder and its execution ARN). With `takeOverFrom`, also takes it from that holder (whose
   * execution the caller found no longer running), and only from that one.
   */
  acquireLease(
    id: string,
    owner: string,
    ttlMs: number,
    now?: Date,
    opts?: { executionArn?: string; takeOverFrom?: string },
  ): Promise<void>;
  renewLease(id: string, owner: string, ttlMs: number, now?: Date): Promise<void>;
  /** Releases our lease; a no-op when someone else holds it or it is gone. */
  releaseLease(id: string, owner: string): Promise<void>;
  /** Writes status (and history, intent, tracked updates) only while `owner` holds the lease. */
  writeStatus(id: string, owner: string, write: StatusWrite): Promise<ClusterRecord>;
  /**
   * Stores a pending approval and moves the lease's expiry to `leaseExpiresAt` (past the wait), only
   * while `owner` holds the lease (LeaseLostError). When the record is no longer at the approval's
   * generation (or `deleting` no longer says whether deletion was requested), the wait is taken back
   * and SpecChangedError says so: nobody would answer it.
   */
  awaitApproval(
    id: string,
    owner: string,
    approval: PendingApproval,
    opts: { readonly leaseExpiresAt: number; readonly deleting: boolean },
  ): Promise<void>;
  /** Removes `approval` and records the outcome, only while `owner` holds the lease. */
  endApproval(id: string, owner: string, outcome: ApprovalOutcome): Promise<void>;
  /** Records what is about to be called (only `intent`), only while `owner` holds the lease. */
  recordIntent(id: string, owner: string, intent: Intent): Promise<void>;
  /**
   * Writes only `status` on an item that does not parse as a record, while `owner` holds the lease:
   * how a RecordInvalid condition reaches a malformed record.
   */
  markInvalid(id: string, owner: string, status: ClusterStatus): Promise<void>;
  /**
   * Deletes the record once deletion was requested and completed, only while `owner` holds the
   * lease, then its target claim (when it still holds it).
   */
  release(id: string, owner: string, target?: Target): Promise<void>;
  /**
   * Claims a target for a record: free, already ours, or held by a record that no longer exists (and
   * has not for a grace period) is taken; TargetClaimedError names the record holding it otherwise.
   */
  claimTarget(target: Target, holder: string, now?: Date): Promise<boolean>;
  /** The record id holding a target, if any (a stale claim holds nothing). */
  claimHolder(target: Target, now?: Date): Promise<string | undefined>;
  /** One page of one scan segment. */
  scanSegment(
    segment: number,
    totalSegments: number,
    opts?: { next?: string; limit?: number },
  ): Promise<ScanPage>;
  /**
   * The records of these ids (absent ones left out), each item parsed on its own: malformed ones are
   * returned apart, as a scan page does.
   */
  getMany(ids: readonly string[]): Promise<Omit<ScanPage, 'next'>>;
}
