/**
 * The props of the CloudOrch construct: every setting of one deployment, with its default. The
 * props table in docs/deploy.md is rendered from these comments (test/infra/props-doc.ts).
 */
import type { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type { DefinitionOptions } from '../../lambdas/statemachine/definition.js';
import type { BridgeRoleProps } from './bridge-role.js';
import type { PolicyBundleSource } from './policy-bundle-source.js';
import type { TargetRoleNames } from './target-access.js';

/**
 * Settings of one CloudOrch deployment. Only `policyBundle` is required; every other prop has the
 * default shown, which is what CloudOrch's own app deploys when its context leaves it unset.
 */
export interface CloudOrchProps {
  /**
   * The policy bundle deployed into the bundle bucket: `await PolicyBundleSource.build()` (opa
   * compiles this package's `policies/` at synth time) or `PolicyBundleSource.fromFile(path)` (a
   * prebuilt `bundle.tar.gz`, no opa needed).
   */
  readonly policyBundle: PolicyBundleSource;
  /**
   * Role new clusters run as when their spec names none.
   * @default a new role with AmazonEKSClusterPolicy
   */
  readonly clusterRole?: iam.IRole;
  /**
   * Role new node groups run as when their spec names none.
   * @default a new role with the EKS worker, CNI and ECR read-only policies
   */
  readonly nodeRole?: iam.IRole;
  /**
   * Subnet ids new clusters use when their spec has no `network` (at least two, in two zones).
   * @default none: every spec must name its subnets
   */
  readonly subnetIds?: readonly string[];
  /**
   * Security group ids new clusters get when their spec names none.
   * @default none: EKS creates the cluster security group
   */
  readonly securityGroupIds?: readonly string[];
  /**
   * Time between two sweeps (one EventBridge Scheduler rate per segment).
   * @default Duration.minutes(5)
   */
  readonly sweepRate?: Duration;
  /**
   * Number of sweep segments, each with its own schedule; they share one sweep function and run one
   * at a time.
   * @default 1
   */
  readonly sweepSegments?: number;
  /**
   * Number of clusters of one (account, region) shard a sweep shard run checks at once.
   * @default 8
   */
  readonly sweepConcurrency?: number;
  /**
   * Time between two full observations of a cluster by the sweep (listings, add-ons, access entries,
   * insights); its other looks are checks of the cluster and its known node groups.
   * @default Duration.hours(1)
   */
  readonly fullObservePeriod?: Duration;
  /**
   * Reserved concurrency of the sweep shard function: shard runs at once across the fleet (each run
   * checks up to 8 shards).
   * @default 20
   */
  readonly sweepShardConcurrency?: number;
  /**
   * EKS HTTP attempts (retries included) per second per account and region, shared by every function
   * and instance calling EKS (time slots claimed in the coordination table).
   * @default 5
   */
  readonly eksCallsPerSecond?: number;
  /**
   * Seconds between two checks of the bucket for a new bundle by the policy engine.
   * @default 60
   */
  readonly policyReloadSeconds?: number;
  /**
   * E-mail address subscribed to the alarm topic (AWS sends a confirmation first).
   * @default no subscription
   */
  readonly alarmEmail?: string;
  /**
   * Time within which drift must be corrected; older open drift raises `DriftNotCorrected`.
   * @default Duration.minutes(30)
   */
  readonly driftCorrectionWindow?: Duration;
  /**
   * Number of failed executions within 15 minutes that raises the failed-executions alarm.
   * @default 3
   */
  readonly failedExecutionsThreshold?: number;
  /**
   * Service account the bridge role trusts, and IRSA trust for it.
   * @default cloudorch-system/cloudorch-bridge, trusted through EKS Pod Identity only
   */
  readonly bridge?: BridgeRoleProps;
  /**
   * Log level of every function (POWERTOOLS_LOG_LEVEL; a log level set in Lambda's logging settings wins).
   * @default 'INFO'
   */
  readonly logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /**
   * Retention of every function's and the state machine's log group.
   * @default logs.RetentionDays.ONE_MONTH
   */
  readonly logRetention?: logs.RetentionDays;
  /**
   * The Reconcile state machine's pacing: `pollSeconds` (seconds between re-observations while EKS
   * works), `maxLoops` (loops per execution) and `maxLeaseWaits` (waits for another execution's lease).
   * @default DEFAULT_DEFINITION_OPTIONS: 30 seconds, 120 loops, 10 waits
   */
  readonly definitionOptions?: DefinitionOptions;
  /**
   * What happens to the desired-state table and the rollout table when the stack is deleted.
   * @default RemovalPolicy.RETAIN (deletion protection is on as well)
   */
  readonly tableRemovalPolicy?: RemovalPolicy;
  /**
   * Let the apply function delete node groups CloudOrch did not create (no ownership tags, e.g. an
   * adopted cluster's own), which IAM otherwise refuses; the policy must still allow it
   * (`foreignNodegroups.allowDeletion`).
   * @default false: only node groups tagged managed-by=cloudorch can be deleted
   */
  readonly deleteForeignNodegroups?: boolean;
  /**
   * 12-digit ids of other accounts whose clusters records may name (`spec.accountId`): the observe
   * side may assume the read role there, apply the write role, and their forwarded EKS events are
   * accepted on the default bus. Deploy `TargetAccountStack` in each of them.
   * @default none: no other account (unless targetOrganizationId is set)
   */
  readonly targetAccounts?: readonly string[];
  /**
   * An AWS Organizations id (`o-...`): like targetAccounts for every account of the organization,
   * with `aws:ResourceOrgID` and `aws:PrincipalOrgID` conditions instead of account ids.
   * @default none: no organization (unless targetAccounts is set)
   */
  readonly targetOrganizationId?: string;
  /**
   * Names of the roles assumed in target accounts, the same in every account (TargetAccountStack
   * creates them).
   * @default { read: 'cloudorch-target-read', write: 'cloudorch-target-write' }
   */
  readonly targetRoleNames?: TargetRoleNames;
  /**
   * Sent as ExternalId when assuming a target role; the target roles' trust must require the same.
   * @default none: no ExternalId
   */
  readonly targetExternalId?: string;
}
