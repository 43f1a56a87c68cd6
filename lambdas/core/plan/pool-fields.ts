/**
 * The pool table: every field of a node pool, what it is compared with in EKS and how a difference
 * converges. `satisfies Record<keyof NodePool, …>` makes a missing field a compile error. Mutable
 * fields converge in place (UpdateNodegroupConfig); the ones EKS cannot change replace the pool's
 * group, under a new derived name, ACTIVE before the old one is deleted.
 */
import type { ObservedNodegroup } from '../observation.js';
import type { NodePool } from '../spec/pools.js';
import { type DriftItem, type FieldContext, poolField } from './compare.js';
import type { Converges } from './fields.js';
import {
  immutablePart,
  type PoolDrift,
  poolLabels,
  poolScaling,
  poolTaints,
  poolUpdateConfig,
} from './pool-compare.js';
import { poolOfNodegroup } from './pools.js';

export type PoolRule = Converges & { readonly drift?: PoolDrift };

const REPLACE = ['CreateNodegroup', 'DeleteNodegroup'] as const;
const UPDATE = ['UpdateNodegroupConfig'] as const;

export const POOL_FIELD_TABLE = {
  name: { convergence: 'identity', observedAs: '(part of the derived node group name)', via: [] },
  instanceTypes: {
    convergence: 'replace-nodegroup',
    observedAs: 'nodegroup.instanceTypes',
    via: REPLACE,
    drift: immutablePart(
      'instanceTypes',
      (s) => s.instanceTypes,
      (ng) => ng.instanceTypes,
    ),
  },
  capacityType: {
    convergence: 'replace-nodegroup',
    observedAs: 'nodegroup.capacityType',
    via: REPLACE,
    drift: immutablePart(
      'capacityType',
      (s) => s.capacityType,
      (ng) => ng.capacityType,
    ),
  },
  nodeCount: {
    convergence: 'in-place',
    observedAs: 'nodegroup.scalingConfig.desiredSize',
    via: UPDATE,
    drift: poolScaling.drift('nodeCount', 'desiredSize'),
  },
  minSize: {
    convergence: 'in-place',
    observedAs: 'nodegroup.scalingConfig.minSize',
    via: UPDATE,
    drift: poolScaling.drift('minSize', 'minSize'),
  },
  maxSize: {
    convergence: 'in-place',
    observedAs: 'nodegroup.scalingConfig.maxSize',
    via: UPDATE,
    drift: poolScaling.drift('maxSize', 'maxSize'),
  },
  scaling: { convergence: 'behaviour', observedAs: '(who owns desiredSize)', via: [] },
  labels: { convergence: 'in-place', observedAs: 'nodegroup.labels', via: UPDATE, drift: poolLabels.drift },
  taints: { convergence: 'in-place', observedAs: 'nodegroup.taints', via: UPDATE, drift: poolTaints.drift },
  amiType: {
    convergence: 'replace-nodegroup',
    observedAs: 'nodegroup.amiType',
    via: REPLACE,
    drift: immutablePart(
      'amiType',
      (s) => s.amiType,
      (ng) => ng.amiType,
    ),
  },
  diskSize: {
    convergence: 'replace-nodegroup',
    observedAs: 'nodegroup.diskSize',
    via: REPLACE,
    drift: immutablePart(
      'diskSize',
      (s) => s.diskSize,
      (ng) => ng.diskSize,
    ),
  },
  nodeRoleArn: {
    convergence: 'replace-nodegroup',
    observedAs: 'nodegroup.nodeRole',
    via: REPLACE,
    drift: immutablePart(
      'nodeRoleArn',
      (s) => s.nodeRoleArn,
      (ng) => ng.nodeRole,
    ),
  },
  // The pool's subnets (its own, else the cluster spec's, else the deployment's) are hashed into the
  // group's name: a change replaces the group, while the cluster's own subnets stay immovable.
  subnetIds: {
    convergence: 'replace-nodegroup',
    observedAs: 'nodegroup.subnets',
    via: REPLACE,
    drift: immutablePart(
      'subnetIds',
      (s) => (s.subnetIds.length > 0 ? s.subnetIds : undefined),
      (ng) => ng.subnets,
    ),
  },
  updateConfig: {
    convergence: 'in-place',
    observedAs: 'nodegroup.updateConfig',
    via: UPDATE,
    drift: poolUpdateConfig.drift,
  },
} as const satisfies Record<keyof NodePool, PoolRule>;

/**
 * The pools as resources: a pool whose group is missing or still being replaced, and node groups no
 * pool wants, CloudOrch's (their pool left the spec) or not (created outside CloudOrch).
 */
function orphanText(ng: ObservedNodegroup): string {
  const pool = poolOfNodegroup(ng);
  return pool === undefined
    ? "CloudOrch's node group whose cloudorch.io/pool tag was removed, so it serves no pool"
    : `CloudOrch's node group of pool ${pool}, which the spec no longer lists`;
}

export function poolsDrift({ assignment }: FieldContext): DriftItem[] {
  const items: DriftItem[] = [];
  for (const { pool, shape, current, others } of assignment.pools) {
    if (current && others.length === 0) continue;
    const names = [current, ...others].flatMap((ng) => (ng ? [ng.name] : []));
    items.push({ field: poolField(pool.name), desired: shape.name, observed: names.join(', ') || 'none' });
  }
  for (const ng of assignment.orphans)
    items.push({
      field: `nodeGroups (node group ${ng.name})`,
      desired: 'absent',
      observed: orphanText(ng),
    });
  for (const ng of assignment.foreign)
    items.push({
      field: `nodeGroups (node group ${ng.name})`,
      desired: 'absent',
      observed: 'created outside CloudOrch',
    });
  return items;
}
