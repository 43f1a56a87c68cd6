/** The one managed node group CloudOrch keeps per cluster: its name, placement and scaling. */
import type { ObservedNodegroup, ScalingConfig } from '../observation.js';
import type { CloudClusterSpec } from '../spec/schema.js';
import { shortHash } from './tokens.js';
import type { PlanDefaults } from './types.js';

export interface NodegroupShape {
  readonly name: string;
  readonly instanceType: string;
  readonly capacityType: 'ON_DEMAND' | 'SPOT';
  readonly nodeRoleArn: string | undefined;
  readonly subnetIds: readonly string[];
}

/**
 * The node group's name is derived from its immutable fields (instance type, capacity type, node
 * role, subnets), so any change to one of them yields a new name: EKS cannot change those fields in
 * place, and a replacement must not collide with the old group's name.
 */
export function desiredNodegroup(spec: CloudClusterSpec, defaults: PlanDefaults): NodegroupShape {
  const capacityType = spec.spotEnabled ? 'SPOT' : 'ON_DEMAND';
  const nodeRoleArn = spec.nodeRoleArn ?? defaults.nodeRoleArn;
  const subnetIds = [...(spec.network?.subnetIds ?? defaults.subnetIds ?? [])].sort();
  const hash = shortHash([spec.instanceType, capacityType, nodeRoleArn ?? '', ...subnetIds]);
  const name = `cloudorch-${spec.instanceType.replaceAll('.', '-')}-${capacityType === 'SPOT' ? 'spot' : 'od'}-${hash}`;
  return { name, instanceType: spec.instanceType, capacityType, nodeRoleArn, subnetIds };
}

/** True when an observed node group really has the shape its name promises. */
export function matchesShape(ng: ObservedNodegroup, shape: NodegroupShape): boolean {
  return (
    ng.name === shape.name &&
    ng.instanceTypes.length === 1 &&
    ng.instanceTypes[0] === shape.instanceType &&
    ng.capacityType === shape.capacityType &&
    (shape.nodeRoleArn === undefined || ng.nodeRole === shape.nodeRoleArn)
  );
}

function clamp(n: number, min: number, max: number): number {
  return Math.min(Math.max(n, min), max);
}

/**
 * Desired scaling. Under `scaling: managed` CloudOrch owns all three numbers; under `external`
 * an autoscaler owns desiredSize, so only min and max are kept and desired is only clamped into them.
 */
export function desiredScaling(spec: CloudClusterSpec, observed?: ScalingConfig): ScalingConfig {
  if (spec.scaling === 'external') {
    const minSize = spec.minSize ?? 0;
    const maxSize = spec.maxSize ?? Math.max(spec.nodeCount, 1);
    return {
      minSize,
      maxSize,
      desiredSize: clamp(observed?.desiredSize ?? spec.nodeCount, minSize, maxSize),
    };
  }
  return {
    minSize: spec.minSize ?? spec.nodeCount,
    maxSize: spec.maxSize ?? Math.max(spec.nodeCount, 1),
    desiredSize: spec.nodeCount,
  };
}
