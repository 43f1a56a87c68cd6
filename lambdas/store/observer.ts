/**
 * A hook the store calls after every successful write, with the item exactly as it was before and
 * after that write (document form). Real DynamoDB delivers this through Streams; local mode has no
 * streams (dynalite), so a change feed built on this hook stands in for them.
 */
export type StoredItem = Readonly<Record<string, unknown>>;

export interface ItemChange {
  readonly keys: { readonly id: string };
  /** Absent for a create. */
  readonly oldImage?: StoredItem;
  /** Absent for a delete. */
  readonly newImage?: StoredItem;
}

export interface WriteObserver {
  /** Called synchronously after the write succeeded; must not throw. */
  onWrite(change: ItemChange): void;
}
