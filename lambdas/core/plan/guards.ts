/** Shared checks of the planner: impossible differences, waiting on EKS, and the ownership gate. */
import { Health, isTransitional } from '../health.js';
import type { ObservedCluster, ObservedNodegroup } from '../observation.js';
import { ownershipOf } from '../ownership.js';
import type { Desired, Impossible, MutatingOperation, Wait } from './types.js';

export interface Step {
  readonly impossible: Impossible[];
  readonly next: MutatingOperation | Wait | null;
}

export function impossible(field: string, reason: string, remediation: string): Impossible {
  return { kind: 'Impossible', field, reason, remediation };
}

function wait(resource: string, reason: string): Wait {
  return { kind: 'Wait', resource, reason };
}

/** An update still in progress, or a resource in a transitional status, means: observe again later. */
export function busy(c: ObservedCluster, ngs: readonly ObservedNodegroup[]): Wait | null {
  if (c.update?.health === Health.Progressing)
    return wait(c.name, `update ${c.update.id} (${c.update.type}) in progress`);
  if (isTransitional(c.health)) return wait(c.name, `cluster is ${c.status}`);
  for (const ng of ngs) {
    if (ng.update?.health === Health.Progressing)
      return wait(ng.name, `update ${ng.update.id} (${ng.update.type}) in progress`);
    if (isTransitional(ng.health)) return wait(ng.name, `node group is ${ng.status}`);
  }
  return null;
}

/** Ownership gate: CloudOrch never modifies a cluster it does not own unless the spec says adopt. */
export function ownershipBlock(d: Desired, c: ObservedCluster): Impossible | null {
  const owner = ownershipOf(c.tags, d.id);
  if (owner === 'owned-by-other') {
    return impossible(
      'clusterName',
      `cluster ${c.name} is owned by another CloudOrch record`,
      'Use a different clusterName, or release the other record first.',
    );
  }
  if (owner === 'unowned' && !d.spec.adopt) {
    return impossible(
      'adopt',
      `cluster ${c.name} exists and was not created by CloudOrch`,
      'Set adopt: true to let CloudOrch take it over, or choose another clusterName.',
    );
  }
  return null;
}
