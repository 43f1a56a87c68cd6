/** The planner's input and output: desired state in, a discriminated union of operations out. */

import { isOperationKind } from '../../config.js';
import type { ObservedTaint, ScalingConfig, UpdateConfig } from '../observation.js';
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

/**
 * The deployment defaults a spec may use: they name roles and subnets of CloudOrch's own account, so
 * a cluster in another account (`spec.accountId`) gets none and must name its own.
 */
export function defaultsFor(
  spec: { readonly accountId?: string | undefined },
  defaults: PlanDefaults,
): PlanDefaults {
  return spec.accountId === undefined ? defaults : {};
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
  /** The target account (`spec.accountId`); absent: the stack's own account. */
  readonly accountId?: string;
}

/** Where an operation's call goes: the target's cluster name, region and account (when not the stack's). */
export function baseOf(spec: { clusterName: string; region: string; accountId?: string | undefined }): Base {
  return {
    clusterName: spec.clusterName,
    region: spec.region,
    ...(spec.accountId !== undefined ? { accountId: spec.accountId } : {}),
  };
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
  /** Always sent: CloudOrch needs no Kubernetes access, so the creator gets no admin entry. */
  readonly accessConfig: {
    readonly authenticationMode: string;
    readonly bootstrapClusterCreatorAdminPermissions: false;
  };
}

/** A pod identity association an add-on asks EKS to make. */
export interface PodIdentity {
  readonly serviceAccount: string;
  readonly roleArn: string;
}

/** What CreateAddon and UpdateAddon both send about an add-on's configuration. */
interface AddonSettings {
  readonly addonName: string;
  readonly addonVersion: string;
  /** JSON text; absent: not sent. */
  readonly configurationValues?: string;
  readonly serviceAccountRoleArn?: string;
  readonly podIdentityAssociations?: readonly PodIdentity[];
  readonly resolveConflicts: 'OVERWRITE' | 'PRESERVE';
}

export interface CreateAddon extends Base, Idempotent, AddonSettings {
  readonly kind: 'CreateAddon';
  readonly tags: Readonly<Record<string, string>>;
}

/** Why an add-on is updated: the cluster's minor moved on, or the spec asks for another version or settings. */
export type AddonUpdateReason = 'incompatible' | 'version' | 'settings';

export interface UpdateAddon extends Base, Idempotent, AddonSettings {
  readonly kind: 'UpdateAddon';
  readonly fromVersion: string;
  readonly reason: AddonUpdateReason;
}

/** An add-on CloudOrch created that left the spec; `preserve` keeps its Kubernetes resources. */
export interface DeleteAddon extends Base {
  readonly kind: 'DeleteAddon';
  readonly addonName: string;
  readonly preserve: true;
}

/** The cluster's authentication mode, one step forward (EKS never moves it back). */
export interface UpdateClusterConfig extends Base, Idempotent {
  readonly kind: 'UpdateClusterConfig';
  readonly fromMode: string;
  readonly authenticationMode: string;
}

export interface CreateAccessEntry extends Base, Idempotent {
  readonly kind: 'CreateAccessEntry';
  readonly principalArn: string;
  readonly type: string;
  readonly kubernetesGroups: readonly string[];
  readonly tags: Readonly<Record<string, string>>;
}

export interface UpdateAccessEntry extends Base, Idempotent {
  readonly kind: 'UpdateAccessEntry';
  readonly principalArn: string;
  readonly kubernetesGroups: readonly string[];
}

/**
 * `removed`: CloudOrch created it and the spec no longer lists it; `unlisted`: made by hand, and the
 * spec's access is `exclusive`.
 */
export interface DeleteAccessEntry extends Base {
  readonly kind: 'DeleteAccessEntry';
  readonly principalArn: string;
  readonly reason: 'removed' | 'unlisted';
}

export interface AccessScope {
  readonly type: 'cluster' | 'namespace';
  readonly namespaces: readonly string[];
}

/** Associates a policy, or changes the scope of an associated one (EKS replaces it). */
export interface AssociateAccessPolicy extends Base {
  readonly kind: 'AssociateAccessPolicy';
  readonly principalArn: string;
  readonly policyArn: string;
  readonly accessScope: AccessScope;
}

export interface DisassociateAccessPolicy extends Base {
  readonly kind: 'DisassociateAccessPolicy';
  readonly principalArn: string;
  readonly policyArn: string;
}

export interface CreateNodegroup extends Base, Idempotent {
  readonly kind: 'CreateNodegroup';
  readonly nodegroupName: string;
  /** The spec's pool this group serves (also tagged on the group, see POOL_TAG). */
  readonly pool: string;
  readonly version: string;
  readonly instanceTypes: readonly string[];
  readonly capacityType: 'ON_DEMAND' | 'SPOT';
  /** Resolved by the planner: the pool's, else the one the first instance type needs. */
  readonly amiType: string;
  /** Absent: EKS's default (20 GiB for Linux). */
  readonly diskSize: number | undefined;
  readonly scaling: ScalingConfig;
  readonly labels: Readonly<Record<string, string>>;
  readonly taints: readonly ObservedTaint[];
  /** Absent: EKS's default (one node at a time). */
  readonly updateConfig: UpdateConfig | undefined;
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
  readonly pool: string;
  readonly fromVersion: string;
  readonly toVersion: string;
}

export interface LabelChanges {
  readonly addOrUpdateLabels: Readonly<Record<string, string>>;
  readonly removeLabels: readonly string[];
}

export interface TaintChanges {
  readonly addOrUpdateTaints: readonly ObservedTaint[];
  readonly removeTaints: readonly ObservedTaint[];
}

/**
 * One UpdateNodegroupConfig call: every mutable difference of one pool's group at once (EKS runs one
 * update per node group at a time, so one call is one update). Absent members are not sent.
 */
export interface UpdateNodegroupConfig extends Base, Idempotent {
  readonly kind: 'UpdateNodegroupConfig';
  readonly nodegroupName: string;
  readonly pool: string;
  readonly from: ScalingConfig;
  /** `desiredSize` is omitted under external scaling unless the bounds move it. */
  readonly scaling?: Partial<ScalingConfig>;
  readonly labels?: LabelChanges;
  readonly taints?: TaintChanges;
  readonly updateConfig?: UpdateConfig;
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

/**
 * Why a node group is deleted: `replaced` (its pool has a new group, ACTIVE), `pool-removed` (its pool
 * left the spec), `foreign` (CloudOrch did not create it; the policy decides), `cluster-deletion`.
 */
export type NodegroupDeletionReason = 'replaced' | 'pool-removed' | 'foreign' | 'cluster-deletion';

export interface DeleteNodegroup extends Base {
  readonly kind: 'DeleteNodegroup';
  readonly nodegroupName: string;
  readonly reason: NodegroupDeletionReason;
  /** The pool the group served, when CloudOrch made it for one. */
  readonly pool?: string;
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
  | UpdateNodegroupConfig
  | TagResource
  | UntagResource
  | DeleteNodegroup
  | DeleteCluster
  | CreateAddon
  | UpdateAddon
  | DeleteAddon
  | UpdateClusterConfig
  | CreateAccessEntry
  | UpdateAccessEntry
  | DeleteAccessEntry
  | AssociateAccessPolicy
  | DisassociateAccessPolicy;

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
  /** Set when EKS's upgrade insights stop a control-plane step (`spec.upgrade.readiness: block`). */
  readonly upgradeBlocked?: UpgradeGate;
}

/** An upgrade-readiness insight in ERROR or UNKNOWN about the version a control-plane step goes to. */
export interface BlockingInsight {
  readonly name: string;
  readonly id: string;
  /** ERROR or UNKNOWN. */
  readonly status: string;
  readonly reason?: string;
  readonly recommendation?: string;
}

/** The readiness gate of one control-plane step: which insights stood in its way. */
export interface UpgradeGate {
  readonly toVersion: string;
  readonly insights: readonly BlockingInsight[];
  /** Set when the gate has no insight to judge by: not read, or none about `toVersion` yet. */
  readonly missing?: string;
}

/**
 * Not an operation: the step goes ahead although EKS's insights are in ERROR
 * (`spec.upgrade.readiness: warn`); status shows it as a warning condition.
 */
export interface UpgradeWarning {
  readonly kind: 'UpgradeWarning';
  readonly gate: UpgradeGate;
}

/**
 * Not an operation: the plan's preview ends at a later control-plane step the readiness gate would
 * hold as things stand (EKS reports insights about the next minor only, after each step).
 */
export interface UpgradeHeld {
  readonly kind: 'UpgradeHeld';
  readonly gate: UpgradeGate;
}

export type Operation = MutatingOperation | Wait | Impossible | UpgradeWarning | UpgradeHeld;

/** Whether an operation changes EKS: the mutating kinds are config's OPERATION_CALLS, complete by type. */
export function isMutating(op: Operation): op is MutatingOperation {
  return isOperationKind(op.kind);
}
