/**
 * Names and constants the functions and the CDK app share: environment variable names, settings'
 * defaults, the metric namespace and names, and the EKS calls behind each operation. Each is defined
 * here once. It loads nothing at run time (type imports only), so infra reads these names without
 * loading an AWS client or the policy engine.
 */
import type { MutatingOperation, PlanDefaults } from './core/plan/types.js';

/** Every environment variable a function reads; the stack sets them by these names. */
export const ENV = {
  /** The desired-state table. */
  table: 'CLOUDORCH_TABLE_NAME',
  /** The Reconcile state machine (functions that start executions). */
  stateMachine: 'CLOUDORCH_STATE_MACHINE_ARN',
  /** What creates use when the spec is silent (lists comma-separated). */
  clusterRole: 'CLOUDORCH_DEFAULT_CLUSTER_ROLE_ARN',
  nodeRole: 'CLOUDORCH_DEFAULT_NODE_ROLE_ARN',
  subnets: 'CLOUDORCH_DEFAULT_SUBNET_IDS',
  securityGroups: 'CLOUDORCH_DEFAULT_SECURITY_GROUP_IDS',
  /** CloudOrch's own roles (comma-separated; `arn:aws:iam::*:role/<name>` names a target role in every account): their EKS calls are not drift. */
  ownRoles: 'CLOUDORCH_OWN_ROLE_ARNS',
  /** EKS HTTP attempts per second per region for this function (unset: no client-side limit). */
  eksCallsPerSecond: 'CLOUDORCH_EKS_CALLS_PER_SECOND',
  /**
   * The role this function assumes in a target account other than the stack's (`spec.accountId`):
   * a read-only role for the observe side, a mutating one for apply. Unset: no other account.
   */
  targetRoleName: 'CLOUDORCH_TARGET_ROLE_NAME',
  /** Sent as ExternalId when assuming a target role (the target roles' trust requires it). */
  targetExternalId: 'CLOUDORCH_TARGET_EXTERNAL_ID',
  /** The stack's own account: a spec naming it is refused (leave accountId out instead). */
  ownAccountId: 'CLOUDORCH_ACCOUNT_ID',
  /** An EKS endpoint other than AWS's (the simulator); never set by the stack. */
  eksEndpoint: 'CLOUDORCH_EKS_ENDPOINT',
  /** `s3://bucket/key` of the policy bundle (AWS). */
  policyBundleS3: 'CLOUDORCH_POLICY_BUNDLE_S3',
  /**
   * `https://` and the bundle bucket's regional domain name: where the policy function sends its
   * signed GET (the stack sets it beside the s3:// URL).
   */
  policyBundleEndpoint: 'CLOUDORCH_POLICY_BUNDLE_ENDPOINT',
  /** Path of the policy bundle (local mode). */
  policyBundleFile: 'CLOUDORCH_POLICY_BUNDLE_FILE',
  /** Minimum seconds between policy bundle checks. */
  policyReloadSeconds: 'CLOUDORCH_POLICY_RELOAD_SECONDS',
  sweepPeriod: 'CLOUDORCH_SWEEP_PERIOD_SECONDS',
  sweepConcurrency: 'CLOUDORCH_SWEEP_CONCURRENCY',
  /**
   * The coordination table: the EKS budget of every (account, region), shared by every function that
   * calls EKS, and the sweep shards' run leases. Unset: a per-process limit only (the CLI).
   */
  coordinationTable: 'CLOUDORCH_COORDINATION_TABLE',
  /** The sweep shard function the dispatcher invokes, one invocation per (account, region). */
  sweepShardFunction: 'CLOUDORCH_SWEEP_SHARD_FUNCTION',
  /**
   * `https://dynamodb.<region>.<partition's domain>`, set by the stack for every function: the AWS
   * SDKs' own variable, which the Lambda bundles' DynamoDB client (aws/dynamodb-client.ts) requires.
   */
  dynamodbEndpoint: 'AWS_ENDPOINT_URL_DYNAMODB',
  /** `https://lambda.<region>.<partition's domain>`: where the dispatcher sends its signed Invoke. */
  lambdaEndpoint: 'CLOUDORCH_LAMBDA_ENDPOINT',
  /** Seconds between two full observations of a cluster by the sweep (the check reads less). */
  fullObservePeriod: 'CLOUDORCH_FULL_OBSERVE_PERIOD_SECONDS',
  /** The rollout table: CloudRollout records and the cluster locks of running rollouts. */
  rolloutTable: 'CLOUDORCH_ROLLOUT_TABLE',
  /** The Rollout state machine (the CLI, which starts, resumes and approves rollouts). */
  rolloutStateMachine: 'CLOUDORCH_ROLLOUT_STATE_MACHINE_ARN',
  /** The SNS topic told when a rollout waits for approval, halts or completes. */
  rolloutTopic: 'CLOUDORCH_ROLLOUT_TOPIC_ARN',
} as const;

/** The deployment defaults of creates, by the PlanDefaults member each one fills. */
export const DEFAULTS_ENV = {
  clusterRoleArn: ENV.clusterRole,
  nodeRoleArn: ENV.nodeRole,
  subnetIds: ENV.subnets,
  securityGroupIds: ENV.securityGroups,
} as const satisfies Record<keyof PlanDefaults, string>;

/** Where the policy engine finds its bundle. */
export const POLICY_ENV = {
  s3: ENV.policyBundleS3,
  endpoint: ENV.policyBundleEndpoint,
  file: ENV.policyBundleFile,
  reloadSeconds: ENV.policyReloadSeconds,
} as const;

/** What a setting is when the stack's props (and so the environment) leave it open. */
export const SETTING_DEFAULTS = {
  sweepPeriodSeconds: 300,
  sweepConcurrency: 8,
  eksCallsPerSecond: 5,
  fullObservePeriodSeconds: 3600,
  policyReloadSeconds: 60,
} as const;

/** CloudWatch namespace of the metrics the functions emit, and the `service` of their log and metric lines. */
export const METRIC_NAMESPACE = 'CloudOrch';
export const SERVICE_NAME = 'cloudorch';

export const METRIC = {
  DriftDetected: 'DriftDetected',
  ReconcileSteps: 'ReconcileSteps',
  ApplyOperations: 'ApplyOperations',
  PolicyDenials: 'PolicyDenials',
  ReconcileErrors: 'ReconcileErrors',
  ConvergenceSeconds: 'ConvergenceSeconds',
  DeletionStuck: 'DeletionStuck',
  PolicyEngineDegraded: 'PolicyEngineDegraded',
  ExecutionsStarted: 'ExecutionsStarted',
  SweepClusters: 'SweepClusters',
  EksThrottled: 'EksThrottled',
  /** Gauges from each sweep: clusters per Ready reason, and the age of the oldest open drift. */
  ClustersByCondition: 'ClustersByCondition',
  DriftOutstandingSeconds: 'DriftOutstandingSeconds',
  /** Items in the table that do not parse as records (reported and skipped by every reader). */
  RecordsInvalid: 'RecordsInvalid',
  /** Observations of a cluster that failed (sweep) and statuses turned Unknown because of it. */
  ObserveFailures: 'ObserveFailures',
  /** Clusters found without the ownership tag they had. */
  OwnershipLost: 'OwnershipLost',
  /** Seconds a caller waited for its EKS budget slot, per (account, region). */
  EksBudgetWaitSeconds: 'EksBudgetWaitSeconds',
  /** Budget claims refused because the (account, region) queue was too long for the caller. */
  EksBudgetExhausted: 'EksBudgetExhausted',
  /** Per shard run: clusters it holds, and clusters it checked before its window closed. */
  SweepShardClusters: 'SweepShardClusters',
  SweepShardChecked: 'SweepShardChecked',
  /** Seconds between two checks of a shard's clusters, at the rate it achieves (period when healthy). */
  SweepCadenceSeconds: 'SweepCadenceSeconds',
  /** Shards that could not check all their clusters in one period (the cadence degraded). */
  SweepShardsDegraded: 'SweepShardsDegraded',
  /** Clusters a rollout finished, by Outcome (Succeeded, Failed). */
  RolloutClusters: 'RolloutClusters',
  /** Rollouts that halted, completed, or started waiting for an approval. */
  RolloutsHalted: 'RolloutsHalted',
  RolloutsCompleted: 'RolloutsCompleted',
  RolloutApprovalsRequested: 'RolloutApprovalsRequested',
} as const;
export type MetricName = (typeof METRIC)[keyof typeof METRIC];

/**
 * EKS API calls whose names start like this change a cluster: the CloudTrail rule's filter and the
 * drift-event handler's check.
 */
export const MUTATING_EKS_PREFIXES = [
  'Create',
  'Update',
  'Delete',
  'Tag',
  'Untag',
  'Associate',
  'Disassociate',
] as const;

export function isMutatingEksCall(eventName: string): boolean {
  return MUTATING_EKS_PREFIXES.some((p) => eventName.startsWith(p));
}

/** The EKS calls an observation makes (capability `eks:read`). */
export const EKS_READ_CALLS = [
  'DescribeCluster',
  'ListNodegroups',
  'DescribeNodegroup',
  'ListUpdates',
  'DescribeUpdate',
  'ListAddons',
  'DescribeAddon',
  'DescribeAddonVersions',
  'DescribePodIdentityAssociation',
  'ListAccessEntries',
  'DescribeAccessEntry',
  'ListAssociatedAccessPolicies',
  'ListInsights',
  'DescribeInsight',
] as const;

/**
 * How the apply role's grant scopes a call: a create, a call on an owned resource, a tag change, or a
 * call on an add-on or access entry of a cluster (`cluster-part`: those CloudOrch adopts from the
 * spec or removes under `access.exclusive` carry no CloudOrch tag; the planner acts only on clusters
 * the record owns).
 */
export type EksGrant = 'create' | 'owned' | 'tag' | 'cluster-part';

/**
 * The one EKS call each operation kind makes, how IAM scopes it, and whether it deletes. Complete by
 * type: a new operation kind fails the type-check until it says all three.
 */
export const OPERATION_CALLS = {
  CreateCluster: { call: 'CreateCluster', grant: 'create', deletes: false, removes: false },
  CreateNodegroup: { call: 'CreateNodegroup', grant: 'create', deletes: false, removes: false },
  UpdateClusterVersion: { call: 'UpdateClusterVersion', grant: 'owned', deletes: false, removes: false },
  UpdateNodegroupVersion: { call: 'UpdateNodegroupVersion', grant: 'owned', deletes: false, removes: false },
  UpdateNodegroupConfig: { call: 'UpdateNodegroupConfig', grant: 'owned', deletes: false, removes: false },
  TagResource: { call: 'TagResource', grant: 'tag', deletes: false, removes: false },
  UntagResource: { call: 'UntagResource', grant: 'tag', deletes: false, removes: false },
  DeleteNodegroup: { call: 'DeleteNodegroup', grant: 'owned', deletes: true, removes: true },
  DeleteCluster: { call: 'DeleteCluster', grant: 'owned', deletes: true, removes: true },
  CreateAddon: { call: 'CreateAddon', grant: 'create', deletes: false, removes: false },
  UpdateAddon: { call: 'UpdateAddon', grant: 'cluster-part', deletes: false, removes: false },
  DeleteAddon: { call: 'DeleteAddon', grant: 'cluster-part', deletes: false, removes: true },
  UpdateClusterConfig: { call: 'UpdateClusterConfig', grant: 'owned', deletes: false, removes: false },
  CreateAccessEntry: { call: 'CreateAccessEntry', grant: 'create', deletes: false, removes: false },
  UpdateAccessEntry: { call: 'UpdateAccessEntry', grant: 'cluster-part', deletes: false, removes: false },
  DeleteAccessEntry: { call: 'DeleteAccessEntry', grant: 'cluster-part', deletes: false, removes: true },
  AssociateAccessPolicy: {
    call: 'AssociateAccessPolicy',
    grant: 'cluster-part',
    deletes: false,
    removes: false,
  },
  DisassociateAccessPolicy: {
    call: 'DisassociateAccessPolicy',
    grant: 'cluster-part',
    deletes: false,
    removes: true,
  },
} as const satisfies Record<
  MutatingOperation['kind'],
  {
    readonly call: string;
    readonly grant: EksGrant;
    /** Deletes a cluster or node group (deletion's call budget counts these). */
    readonly deletes: boolean;
    /** Removes something: finding it already gone means done. */
    readonly removes: boolean;
  }
>;

export const isOperationKind = (kind: string): kind is MutatingOperation['kind'] =>
  Object.hasOwn(OPERATION_CALLS, kind);

/** Whether finding the target already gone completes the operation (a delete or disassociation). */
export function isRemoval(kind: string): boolean {
  return isOperationKind(kind) && OPERATION_CALLS[kind].removes;
}

/** Whether an operation kind (as history records it: any string) deletes a cluster or node group. */
export function isDeletion(kind: string | undefined): boolean {
  return kind !== undefined && isOperationKind(kind) && OPERATION_CALLS[kind].deletes;
}
