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
