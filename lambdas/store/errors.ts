/**
 * Typed store errors, each with its kind and what to do about it. Callers branch on the class, never
 * on a message; a step that lets one escape reports it to status with this remediation, except a lost
 * lease (see LeaseLostError). `cause` (the refused DynamoDB call, when there was one) is passed through.
 */

import { REASON_HINT } from '../core/conditions.js';
import { type CloudOrchErrorOptions, domainError } from '../core/errors.js';

type CauseOnly = Pick<CloudOrchErrorOptions, 'cause'>;

/** A conditional write lost to a concurrent writer: re-reading and writing again is the fix. */
export class ConflictError extends domainError(
  'ConflictError',
  'Conflict',
  'Another writer changed the record at the same moment. A reconcile step is retried on its own; run a refused cloudorch apply again.',
) {}

export class LeaseHeldError extends domainError(
  'LeaseHeldError',
  'Superseded',
  'Another execution holds the lease of this cluster and is reconciling it; nothing to do. cloudorch describe names the holder; a lease whose execution ended is taken over on the next run.',
) {
  constructor(
    message: string,
    readonly holder: string | undefined,
    /** The holder's execution, when its lease names one. */
    readonly holderExecutionArn?: string,
    opts?: CauseOnly,
  ) {
    super(message, opts);
  }
}

/**
 * This execution no longer holds the lease. It never reaches status: WriteFailure writes through the
 * lease that was lost, so it fails too and the execution ends FailedUnwritten; the step's error in the
 * execution history names LeaseLostError with this hint, and the newer holder writes the status.
 */
export class LeaseLostError extends domainError(
  'LeaseLostError',
  'Superseded',
  'Another execution took over the lease of this cluster (this one outlived its lease) and carries on; nothing to do. If it repeats, a step runs longer than the lease: check the step durations in the execution history.',
) {}

/** The spec changed (or deletion was requested) after this execution observed it: its work is stale. */
export class SpecChangedError extends domainError(
  'SpecChangedError',
  'Superseded',
  'The spec changed while this execution worked; the newest generation is reconciled next. Nothing to do.',
) {}

export class RecordNotFoundError extends domainError(
  'RecordNotFoundError',
  'NotFound',
  'The record was deleted, or was never applied. Apply the CloudCluster with cloudorch apply if it should exist.',
) {}

export class DeletionInProgressError extends domainError(
  'DeletionInProgressError',
  'Permanent',
  'Its deletion was requested: apply it again once it is gone.',
) {}

/** A stored item that does not parse as a record (written straight to the table, or by a newer writer). */
export class RecordInvalidError extends domainError(
  'RecordInvalidError',
  'Permanent',
  REASON_HINT.RecordInvalid,
) {
  constructor(
    readonly id: string,
    readonly reason: string,
    opts?: CauseOnly,
  ) {
    super(`record ${id} is malformed: ${reason}`, opts);
  }
}

/** The target (account, region, clusterName) is claimed by another record. */
export class TargetClaimedError extends domainError(
  'TargetClaimedError',
  'Permanent',
  'Another record manages this cluster: use a different clusterName, or delete the record that holds it first.',
) {
  constructor(
    readonly target: string,
    readonly holder: string,
    opts?: CauseOnly,
  ) {
    super(`cluster ${target} is already managed by record ${holder}`, opts);
  }
}

/** A record that has owned its cluster was asked to name another one (which would orphan the first). */
export class TargetChangeError extends domainError(
  'TargetChangeError',
  'Permanent',
  'This record has owned its cluster, and naming another would orphan it. Keep the cluster name, or delete the record (deletionPolicy: Retain keeps the cluster) and apply a new one.',
) {}

/**
 * The EKS budget of an (account, region) is queued further ahead than the caller accepts: retried
 * like a throttle, because that is what it is, only decided before EKS had to say so.
 */
export class EksBudgetExhaustedError extends domainError(
  'EksBudgetExhaustedError',
  'Transient',
  'Every EKS request slot of this account and region is taken for longer than this function waits; CloudOrch retries with backoff. Many at once: raise the EKS API quota and CLOUDORCH_EKS_CALLS_PER_SECOND together, or spread clusters over more accounts or regions.',
) {}

/** A rollout's spec cannot change while it runs or is halted: abort it first. */
export class RolloutActiveError extends domainError(
  'RolloutActiveError',
  'Conflict',
  'Abort the rollout first (`cloudorch rollout abort NAME`; clusters stay where they are), then apply the changed spec.',
) {
  constructor(
    readonly id: string,
    readonly phase: string,
    opts?: CauseOnly,
  ) {
    super(`rollout ${id} is ${phase}: its spec cannot change until it completes or is aborted`, opts);
  }
}
