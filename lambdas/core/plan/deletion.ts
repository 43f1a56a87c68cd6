/** Deletion order: node groups first, then the cluster; never an unowned cluster; Retain touches nothing. */
import type { Observation } from '../observation.js';
import { busy, impossible, ownershipBlock, type Step } from './guards.js';
import type { Desired } from './types.js';

export function deletionStep(d: Desired, o: Observation): Step {
  const c = o.cluster;
  if (d.spec.deletionPolicy === 'Retain' || !c) return { impossible: [], next: null };
  const block = ownershipBlock(d, c);
  if (block) return { impossible: [block], next: null };
  const base = { clusterName: c.name, region: c.region };
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
  if (ng) return { impossible: [], next: { kind: 'DeleteNodegroup', ...base, nodegroupName: ng.name } };
  return { impossible: [], next: { kind: 'DeleteCluster', ...base } };
}
