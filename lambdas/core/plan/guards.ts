/** Shared checks of the planner: impossible differences, waiting on EKS, and the ownership gate. */
import { Health, isTransitional } from '../health.js';
import type { ObservedAddon, ObservedCluster, ObservedNodegroup } from '../observation.js';
import { MANAGED_BY_TAG, MANAGED_BY_VALUE, OWNER_TAG, ownershipOf, RELEASED_TAG } from '../ownership.js';
import type { Desired, Impossible, MutatingOperation, UpgradeWarning, Wait } from './types.js';

export interface Step {
  readonly impossible: Impossible[];
  readonly next: MutatingOperation | Wait | null;
  /** Set when `next` steps the control plane despite EKS's insights (`readiness: warn`). */
  readonly warnings?: readonly UpgradeWarning[];
}

export function impossible(field: string, reason: string, remediation: string): Impossible {
  return { kind: 'Impossible', field, reason, remediation };
}

function wait(resource: string, reason: string): Wait {
  return { kind: 'Wait', resource, reason };
}

/** An update still in progress, or a resource in a transitional status, means: observe again later. */
export function busy(
  c: ObservedCluster,
  ngs: readonly ObservedNodegroup[],
  addons: readonly ObservedAddon[] = [],
): Wait | null {
  if (c.update?.health === Health.Progressing)
    return wait(c.name, `update ${c.update.id} (${c.update.type}) in progress`);
  if (isTransitional(c.health)) return wait(c.name, `cluster is ${c.status}`);
  for (const ng of ngs) {
    if (ng.update?.health === Health.Progressing)
      return wait(ng.name, `update ${ng.update.id} (${ng.update.type}) in progress`);
    if (isTransitional(ng.health)) return wait(ng.name, `node group is ${ng.status}`);
  }
  // An add-on being updated or deleted holds the version step (pools follow the add-ons); one
  // being created does not: CoreDNS, for one, becomes ACTIVE only once nodes exist.
  for (const a of addons) {
    if (a.update?.health === Health.Progressing)
      return wait(`add-on ${a.name}`, `update ${a.update.id} (${a.update.type}) in progress`);
    if (a.status === 'UPDATING' || a.status === 'DELETING')
      return wait(`add-on ${a.name}`, `add-on is ${a.status}`);
  }
  return null;
}

/** Another record holds this record's target: nothing is called for it, not even a create. */
export function claimBlock(d: Desired): Impossible | null {
  if (!d.claimedBy) return null;
  return {
    ...impossible(
      'clusterName',
      `cluster ${d.spec.clusterName} in ${d.spec.region} is managed by record ${d.claimedBy}`,
      `Use a different clusterName, or delete record ${d.claimedBy} first.`,
    ),
    ownership: 'TargetClaimed',
  };
}

/**
 * Ownership gate: CloudOrch never modifies a cluster it does not own unless the spec says adopt, and
 * never one whose target another record holds. A cluster that was ours and lost its owner tag is
 * not silently re-claimed: that needs `adopt: true` too.
 */
export function ownershipBlock(d: Desired, c: ObservedCluster): Impossible | null {
  const claimed = claimBlock(d);
  if (claimed) return claimed;
  const owner = ownershipOf(c.tags, d.id);
  if (owner === 'owned-by-other') {
    return {
      ...impossible(
        'clusterName',
        `cluster ${c.name} is owned by another CloudOrch record (${c.tags[OWNER_TAG]})`,
        'Use a different clusterName, or release the other record first.',
      ),
      ownership: 'NotOwned',
    };
  }
  if (owner === 'unmarked') {
    return {
      ...impossible(
        'ownership',
        `the tag ${MANAGED_BY_TAG}=${MANAGED_BY_VALUE} was removed from cluster ${c.name}; CloudOrch changes nothing until it is back`,
        `Restore the tag: aws eks tag-resource --resource-arn ${c.arn} --tags ${MANAGED_BY_TAG}=${MANAGED_BY_VALUE} (IAM lets CloudOrch change only clusters that carry it, so adopt cannot re-claim it).`,
      ),
      ownership: 'OwnershipLost',
    };
  }
  if (owner === 'unowned' && !d.spec.adopt && d.ownedArn === c.arn) {
    return {
      ...impossible(
        'ownership',
        `the ownership tag ${OWNER_TAG} was removed from cluster ${c.name}; CloudOrch changes nothing until it is re-claimed`,
        `Set adopt: true to re-claim the cluster, or restore the tag: aws eks tag-resource --resource-arn ${c.arn} --tags ${OWNER_TAG}=${d.id}`,
      ),
      ownership: 'OwnershipLost',
    };
  }
  if ((owner === 'unowned' || owner === 'released') && !d.spec.adopt) {
    return {
      ...impossible(
        'adopt',
        owner === 'released'
          ? `cluster ${c.name} was released by record ${c.tags[RELEASED_TAG]} (deletionPolicy: Retain)`
          : `cluster ${c.name} exists and was not created by CloudOrch`,
        'Set adopt: true to let CloudOrch take it over, or choose another clusterName.',
      ),
      ownership: 'NotOwned',
    };
  }
  return null;
}
