/** The planner's input and output: desired state in, a discriminated union of operations out. */

import { isOperationKind } from '../../config.js';
import type { ScalingConfig } from '../observation.js';
import type { CloudClusterSpec } from '../spec/schema.js';

/** Desired state as the record holds it. */
export interface Desired {
  /** Record id (`<namespace>/<name>` for mirrored CRs). */
  readonly id: string;
  readonly spec: CloudClusterSpec;
  readonly generation: number;
  readonly deletionRequested: boolean;
  /**
   * How many times each token-bearing operation (by {@link applyKey}) was applied successfully in
   * this generation. Part of the token: a resource that vanished after its create is created again
   * under a new token, while a retry after a crash (not yet counted) reuses the old one.
   */
  readonly applied?: Readonly<Record<string, number>>;
  /**
   * The ARN of the cluster this record owned when its status was last written: a cluster that
   * carried our ownership tag and lost it is told apart from one that never had it.
   */
  readonly ownedArn?: string;
  /** Another record holding this record's target (account, region, clusterName). */
  readonly claimedBy?: string;
}

/** Where a create gets what the spec leaves to deployment configuration. */
export interface PlanDefaults {
  readonly clusterRoleArn?: string;
  readonly nodeRoleArn?: string;
  readonly subnetIds?: readonly string[];
  readonly securityGroupIds?: readonly string[];
}

interface Base {
  readonly clusterName: string;
  readonly region: string;
}

/** Create and update calls carry a deterministic idempotency token (see tokens.ts). */
interface Idempotent {
  readonly clientRequestToken: string;
}

export interface CreateCluster extends Base, Idempotent {
  readonly kind: 'CreateCluster';
  readonly version: string;
  readonly roleArn: string | undefined;
  readonly subnetIds: readonly string[];
  readonly securityGroupIds: readonly string[];
  readonly tags: Readonly<Record<string, string>>;
}

export interface CreateNodegroup extends Base, Idempotent {
  readonly kind: 'CreateNodegroup';
  readonly nodegroupName: string;
  readonly version: string;
  readonly instanceType: string;
  readonly capacityType: 'ON_DEMAND' | 'SPOT';
  readonly scaling: ScalingConfig;
  readonly nodeRoleArn: string | undefined;
  readonly subnetIds: readonly string[];
  readonly tags: Readonly<Record<string, string>>;
}

export interface UpdateClusterVersion extends Base, Idempotent {
  readonly kind: 'UpdateClusterVersion';
  readonly fromVersion: string;
  readonly toVersion: string;
}

export interface UpdateNodegroupVersion extends Base, Idempotent {
  readonly kind: 'UpdateNodegroupVersion';
  readonly nodegroupName: string;
  readonly fromVersion: string;
  readonly toVersion: string;
}

export interface UpdateNodegroupScaling extends Base, Idempotent {
  readonly kind: 'UpdateNodegroupScaling';
  readonly nodegroupName: string;
  readonly from: ScalingConfig;
  /** Only the members that change are sent; `desiredSize` is omitted under external scaling. */
  readonly scaling: Partial<ScalingConfig>;
}

export interface TagResource extends Base {
  readonly kind: 'TagResource';
  readonly resourceArn: string;
  readonly tags: Readonly<Record<string, string>>;
}

export interface UntagResource extends Base {
  readonly kind: 'UntagResource';
  readonly resourceArn: string;
  readonly tagKeys: readonly string[];
}

export interface DeleteNodegroup extends Base {
  readonly kind: 'DeleteNodegroup';
  readonly nodegroupName: string;
}

export interface DeleteCluster extends Base {
  readonly kind: 'DeleteCluster';
}

/** Every operation that calls EKS. Each maps to exactly one provider call. */
export type MutatingOperation =
  | CreateCluster
  | CreateNodegroup
  | UpdateClusterVersion
  | UpdateNodegroupVersion
  | UpdateNodegroupScaling
  | TagResource
  | UntagResource
  | DeleteNodegroup
  | DeleteCluster;

/** EKS is still working (a create, update or delete in flight): observe again later, call nothing. */
export interface Wait {
  readonly kind: 'Wait';
  readonly resource: string;
  readonly reason: string;
}

/** A difference CloudOrch cannot converge, with the reason and what to do. Blocks nothing else. */
export interface Impossible {
  readonly kind: 'Impossible';
  readonly field: string;
  readonly reason: string;
  readonly remediation: string;
  /** Set when the cluster is not (or no longer) CloudOrch's to change. */
  readonly ownership?: 'NotOwned' | 'OwnershipLost' | 'TargetClaimed';
}

export type Operation = MutatingOperation | Wait | Impossible;

/** Whether an operation changes EKS: the mutating kinds are config's OPERATION_CALLS, complete by type. */
export function isMutating(op: Operation): op is MutatingOperation {
  return isOperationKind(op.kind);
}
