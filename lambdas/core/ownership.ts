/** Ownership tags CloudOrch puts on what it creates; it never touches an unowned cluster unless adopting. */
export const OWNER_TAG = 'cloudorch.io/owner';
export const MANAGED_BY_TAG = 'cloudorch.io/managed-by';
export const MANAGED_BY_VALUE = 'cloudorch';

export function ownershipTags(recordId: string): Record<string, string> {
  return { [MANAGED_BY_TAG]: MANAGED_BY_VALUE, [OWNER_TAG]: recordId };
}

export type Ownership = 'owned' | 'unowned' | 'owned-by-other';

export function ownershipOf(tags: Readonly<Record<string, string>>, recordId: string): Ownership {
  const owner = tags[OWNER_TAG];
  if (owner === undefined) return 'unowned';
  return owner === recordId ? 'owned' : 'owned-by-other';
}
