/** The managed node group a pool wants: its derived name, the immutable fields it is made with, its scaling. */
import { architectureOf, isGpuInstanceType } from '../catalog.js';
import type { ObservedNodegroup, ScalingConfig } from '../observation.js';
import { DEFAULT_POOL } from '../spec/facts.js';
import type { NodePool } from '../spec/pools.js';
import type { CloudClusterSpec } from '../spec/schema.js';
import { shortHash } from './tokens.js';
import type { PlanDefaults } from './types.js';

export interface NodegroupShape {
  readonly name: string;
  readonly pool: string;
  readonly instanceTypes: readonly string[];
  readonly capacityType: 'ON_DEMAND' | 'SPOT';
  /** Only what the spec sets is compared: unset, EKS (or the planner, at create) picks it. */
  readonly amiType: string | undefined;
  readonly diskSize: number | undefined;
  readonly nodeRoleArn: string | undefined;
  readonly subnetIds: readonly string[];
}

/**
 * A node group's name is derived from its pool and its immutable fields (instance types, capacity
 * type, node role, subnets, and AMI type and disk size when set), so a change to one of them yields a
 * new name: EKS cannot change those fields in place, and a replacement must not collide with the old
 * group. The pool `default`, which the seed's flat fields mean, hashes exactly what the seed hashed and
 * carries no pool segment, so a cluster converged before pools existed keeps its node group's name.
 */
export function desiredNodegroup(
  pool: NodePool,
  spec: CloudClusterSpec,
  defaults: PlanDefaults,
): NodegroupShape {
  const nodeRoleArn = pool.nodeRoleArn ?? defaults.nodeRoleArn;
  const subnetIds = [...(pool.subnetIds ?? spec.network?.subnetIds ?? defaults.subnetIds ?? [])].sort();
  // Order does not matter to EKS for a spot pool's types (it picks by capacity), nor here.
  const types = [...pool.instanceTypes].sort();
  const first = types[0] ?? '';
  const extras = [
    ...(pool.amiType ? [`amiType=${pool.amiType}`] : []),
    ...(pool.diskSize !== undefined ? [`diskSize=${pool.diskSize}`] : []),
    ...(pool.name === DEFAULT_POOL ? [] : [`pool=${pool.name}`]),
  ];
  const hash = shortHash([types.join(','), pool.capacityType, nodeRoleArn ?? '', ...subnetIds, ...extras]);
  const prefix = pool.name === DEFAULT_POOL ? 'cloudorch-' : `cloudorch-${pool.name}-`;
  const capacity = pool.capacityType === 'SPOT' ? 'spot' : 'od';
  return {
    name: `${prefix}${first.replaceAll('.', '-')}-${capacity}-${hash}`,
    pool: pool.name,
    instanceTypes: pool.instanceTypes,
    capacityType: pool.capacityType,
    amiType: pool.amiType,
    diskSize: pool.diskSize,
    nodeRoleArn,
    subnetIds,
  };
}

const sameList = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && [...a].sort().join(',') === [...b].sort().join(',');

/** True when an observed node group really has the shape its name promises. */
export function matchesShape(ng: ObservedNodegroup, shape: NodegroupShape): boolean {
  return ng.name === shape.name && matchesFields(ng, shape);
}

/** True when an observed node group has every immutable field of the shape, whatever its name. */
export function matchesFields(ng: ObservedNodegroup, shape: NodegroupShape): boolean {
  return (
    sameList(ng.instanceTypes, shape.instanceTypes) &&
    (shape.subnetIds.length === 0 || sameList(ng.subnets, shape.subnetIds)) &&
    ng.capacityType === shape.capacityType &&
    (shape.nodeRoleArn === undefined || ng.nodeRole === shape.nodeRoleArn) &&
    (shape.amiType === undefined || ng.amiType === shape.amiType) &&
    (shape.diskSize === undefined || ng.diskSize === shape.diskSize)
  );
}

/**
 * The AMI type a pool that sets none is created with, from its first instance type (validation keeps
 * a pool's types on one architecture): GPU families the NVIDIA variant, Graviton ARM64; AL2023
 * because AL2 ends with 1.32.
 */
export function amiTypeFor(instanceType: string): string {
  if (isGpuInstanceType(instanceType)) return 'AL2023_x86_64_NVIDIA';
  return architectureOf(instanceType) === 'arm64' ? 'AL2023_ARM_64_STANDARD' : 'AL2023_x86_64_STANDARD';
}

function clamp(n: number, min: number, max: number): number {
  return Math.min(Math.max(n, min), max);
}

/**
 * Desired scaling of a pool. Under `scaling: managed` CloudOrch owns all three numbers; under
 * `external` an autoscaler owns desiredSize, so only min and max are kept and desired is only
 * clamped into them.
 */
export function desiredScaling(pool: NodePool, observed?: ScalingConfig): ScalingConfig {
  if (pool.scaling === 'external') {
    const minSize = pool.minSize ?? 0;
    const maxSize = pool.maxSize ?? Math.max(pool.nodeCount, 1);
    return {
      minSize,
      maxSize,
      desiredSize: clamp(observed?.desiredSize ?? pool.nodeCount, minSize, maxSize),
    };
  }
  return {
    minSize: pool.minSize ?? pool.nodeCount,
    maxSize: pool.maxSize ?? Math.max(pool.nodeCount, 1),
    desiredSize: pool.nodeCount,
  };
}
