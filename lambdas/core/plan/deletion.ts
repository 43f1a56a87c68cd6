/**
 * Deletion order: node groups first, then the cluster. A cluster that is not ours is never touched
 * (the plan reports the ownership block and the record is released). `Retain` only marks the
 * cluster released, so that a later record may adopt it.
 */
import { InternalError } from '../errors.js';
import type { Observation } from '../observation.js';
import { MANAGED_BY_TAG, MANAGED_BY_VALUE, OWNER_TAG, ownershipOf, RELEASED_TAG } from '../ownership.js';
import { busy, impossible, ownershipBlock, type Step } from './guards.js';
import { baseOf, type Desired } from './types.js';

export function deletionStep(d: Desired, o: Observation): Step {
  // "No node group left, delete the cluster" needs every group: one described by name is not that.
  if (o.nodegroupsListed === false)
    throw new InternalError(`deletion of ${d.id} planned from an observation that did not list node groups`);
  const c = o.cluster;
  if (!c) return { impossible: [], next: null };
  const owner = ownershipOf(c.tags, d.id);
  // Retain already marked: nothing more to do.
  if (d.spec.deletionPolicy === 'Retain' && owner === 'released' && c.tags[OWNER_TAG] === d.id)
    return { impossible: [], next: null };
  // Ours by its owner tag, but IAM lets nothing change it without managed-by: releasing the record
  // now would leave a cluster nobody can adopt, so deletion waits for the tag to come back.
  if (owner === 'unmarked')
    return {
      impossible: [
        impossible(
          'deletion',
          `cluster ${c.name} lost its ${MANAGED_BY_TAG} tag, so CloudOrch may not change or delete it`,
          `Restore the tag (aws eks tag-resource --resource-arn ${c.arn} --tags ${MANAGED_BY_TAG}=${MANAGED_BY_VALUE}); deletion then continues.`,
        ),
      ],
      next: null,
    };
  // Only a cluster this record owns is touched by its deletion: `adopt` does not extend to it.
  if (owner !== 'owned') {
    const block = ownershipBlock({ ...d, spec: { ...d.spec, adopt: false } }, c);
    return { impossible: block ? [block] : [], next: null };
  }
  const base = baseOf({ clusterName: c.name, region: c.region, accountId: d.spec.accountId });
  if (d.spec.deletionPolicy === 'Retain') {
    return {
      impossible: [],
      next: { kind: 'TagResource', ...base, resourceArn: c.arn, tags: { [RELEASED_TAG]: d.id } },
    };
  }
  for (const ng of o.nodegroups) {
    if (ng.status === 'DELETE_FAILED') {
      return {
        impossible: [
          impossible(
            'deletion',
            `node group ${ng.name} is DELETE_FAILED`,
            'Resolve the node group health issues in EKS (often a security group still in use), then delete it; CloudOrch continues afterwards.',
          ),
        ],
        next: null,
      };
    }
  }
  // Transitions in flight must finish first; EKS refuses deletes of resources that are still changing.
  const waiting = busy(c, o.nodegroups);
  if (waiting) return { impossible: [], next: waiting };
  const ng = o.nodegroups[0];
  if (ng)
    return {
      impossible: [],
      next: { kind: 'DeleteNodegroup', ...base, nodegroupName: ng.name, reason: 'cluster-deletion' },
    };
  return { impossible: [], next: { kind: 'DeleteCluster', ...base } };
}
