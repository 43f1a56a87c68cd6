/** Ownership tags CloudOrch puts on what it creates; it never touches an unowned cluster unless adopting. */
export const OWNER_TAG = 'cloudorch.io/owner';
export const MANAGED_BY_TAG = 'cloudorch.io/managed-by';
export const MANAGED_BY_VALUE = 'cloudorch';
/**
 * Put on a cluster when a `Retain` deletion releases its record: IAM forbids removing the owner tag,
 * so the release is marked beside it. A cluster whose released tag equals its owner belongs to no
 * record; a later record with `adopt: true` may claim it.
 */
export const RELEASED_TAG = 'cloudorch.io/released';

export function ownershipTags(recordId: string): Record<string, string> {
  return { [MANAGED_BY_TAG]: MANAGED_BY_VALUE, [OWNER_TAG]: recordId };
}

export type Ownership = 'owned' | 'unowned' | 'released' | 'owned-by-other';

export function ownershipOf(tags: Readonly<Record<string, string>>, recordId: string): Ownership {
  const owner = tags[OWNER_TAG];
  if (owner === undefined) return 'unowned';
  if (tags[RELEASED_TAG] === owner) return 'released';
  return owner === recordId ? 'owned' : 'owned-by-other';
}
