/** Typed store conflicts. Callers branch on the class, never on a message. */
export class StoreError extends Error {}

export class ConflictError extends StoreError {
  override readonly name = 'ConflictError';
}
export class LeaseHeldError extends StoreError {
  override readonly name = 'LeaseHeldError';
  constructor(
    message: string,
    readonly holder: string | undefined,
    /** The holder's execution, when its lease names one. */
    readonly holderExecutionArn?: string,
  ) {
    super(message);
  }
}
export class LeaseLostError extends StoreError {
  override readonly name = 'LeaseLostError';
}
export class RecordNotFoundError extends StoreError {
  override readonly name = 'RecordNotFoundError';
}
export class DeletionInProgressError extends StoreError {
  override readonly name = 'DeletionInProgressError';
}
/** A stored item that does not parse as a record (written straight to the table, or by a newer writer). */
export class RecordInvalidError extends StoreError {
  override readonly name = 'RecordInvalidError';
  constructor(
    readonly id: string,
    readonly reason: string,
  ) {
    super(`record ${id} is malformed: ${reason}`);
  }
}
/** The target (account, region, clusterName) is claimed by another record. */
export class TargetClaimedError extends StoreError {
  override readonly name = 'TargetClaimedError';
  constructor(
    readonly target: string,
    readonly holder: string,
  ) {
    super(`cluster ${target} is already managed by record ${holder}`);
  }
}
/** A record that has owned its cluster was asked to name another one (which would orphan the first). */
export class TargetChangeError extends StoreError {
  override readonly name = 'TargetChangeError';
}
