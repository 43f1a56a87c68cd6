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
/**
 * The spec pool a node group serves, tagged when CloudOrch creates it. A node group CloudOrch made
 * before pools existed has none and belongs to the pool `default`.
 */
export const POOL_TAG = 'cloudorch.io/pool';
/**
 * On an add-on CloudOrch manages: the spec's `version` (`default`, `latest` or exact) it was last
 * converged for. A changed keyword moves the add-on; an unchanged one moves it only when the cluster's
 * minor no longer runs it.
 */
export const ADDON_VERSION_TAG = 'cloudorch.io/addon-version';
/** Tags under this prefix belong to AWS: no one may set them, and CloudOrch never removes them. */
export const AWS_TAG_PREFIX = 'aws:';

export function ownershipTags(recordId: string): Record<string, string> {
  return { [MANAGED_BY_TAG]: MANAGED_BY_VALUE, [OWNER_TAG]: recordId };
}

/**
 * - `owned`: both ownership tags name this record: CloudOrch may change it.
 * - `unmarked`: the owner tag names this record but `managed-by` is gone: IAM lets CloudOrch change
 *   nothing until that tag is restored, so this is lost ownership, not ownership.
 * - `released`: a `Retain` deletion let it go; `unowned`: no owner tag; `owned-by-other`: another record's.
 */
export type Ownership = 'owned' | 'unmarked' | 'unowned' | 'released' | 'owned-by-other';

export function ownershipOf(tags: Readonly<Record<string, string>>, recordId: string): Ownership {
  const owner = tags[OWNER_TAG];
  if (owner === undefined) return 'unowned';
  if (tags[RELEASED_TAG] === owner) return 'released';
  if (owner !== recordId) return 'owned-by-other';
  return tags[MANAGED_BY_TAG] === MANAGED_BY_VALUE ? 'owned' : 'unmarked';
}

/** The ownership tags a resource carries (node groups keep the ones they were created with, pool included). */
export function ownershipTagsOf(tags: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(tags).filter(([k]) => k === OWNER_TAG || k === MANAGED_BY_TAG || k === POOL_TAG),
  );
}

/** Whether CloudOrch created this node group (it carries both ownership tags); the others are foreign. */
export function createdByCloudOrch(tags: Readonly<Record<string, string>>): boolean {
  return tags[MANAGED_BY_TAG] === MANAGED_BY_VALUE && tags[OWNER_TAG] !== undefined;
}
