/**
 * CloudOrch as one construct: the desired-state table, one least-privilege Lambda per step and
 * trigger, the Reconcile state machine, the triggers, the policy bundle, the bridge role, the Rollout
 * state machine with its table and notification topic, and the dashboard with alarms. Resources are public fields; access for others goes through `grant*`.
 */
import { Aws, Duration, Stack, Tags, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { ENV, METRIC_NAMESPACE, SERVICE_NAME, SETTING_DEFAULTS } from '../../lambdas/config.js';
import { FUNCTIONS, type FunctionKey } from '../../lambdas/functions/catalog.js';
import { BridgeRole, type BridgeRoleProps } from './bridge-role.js';
import {
  EKS_WILDCARD_REASON,
  EXECUTIONS_WILDCARD_REASON,
  eksWildcardFindings,
  reconcileExecutionsArn,
  statementsFor,
} from './capabilities.js';
import type { CloudOrchProps } from './cloudorch-props.js';
import { CoordinationTable } from './coordination-table.js';
import { EksRoles } from './eks-roles.js';
import { FUNCTION_KEYS, ReconcilerFunctions } from './functions.js';
import { resourceFinding } from './nag.js';
import { Observability } from './observability.js';
import { packageVersion, VERSION_TAG } from './package-info.js';
import { PolicyBundle } from './policy-bundle.js';
import { RolloutStateMachine } from './rollout-state-machine.js';
import { ALARMS_WILDCARD_REASON, rolloutSpecWriter } from './rollout-statements.js';
import { RolloutTable } from './rollout-table.js';
import { RolloutTopic } from './rollout-topic.js';
import { ReconcileStateMachine } from './state-machine.js';
import { DesiredStateTable } from './table.js';
import { DEFAULT_TARGET_ROLE_NAMES, roleArnIn, TargetAccess, targetSide } from './target-access.js';
import { Triggers } from './triggers.js';

export type { CloudOrchProps } from './cloudorch-props.js';

export class CloudOrch extends Construct {
  readonly table: dynamodb.TableV2;
  /** Transient state functions share (the EKS budget of each account and region). */
  readonly coordinationTable: CoordinationTable;
  readonly functions: Readonly<Record<FunctionKey, lambda.Function>>;
  readonly stateMachine: sfn.StateMachine;
  /** CloudRollout records and the cluster locks of running rollouts. */
  readonly rolloutTable: dynamodb.TableV2;
  /** Rollout notifications: approval needed, halted, completed. */
  readonly rolloutTopic: sns.Topic;
  /** Rolls one change across many clusters, stage by stage (apart from Reconcile). */
  readonly rolloutStateMachine: sfn.StateMachine;
  readonly policyBundle: PolicyBundle;
  readonly triggers: Triggers;
  readonly observability: Observability;
  readonly bridgeRole: iam.Role;
  readonly clusterRole: iam.IRole;
  readonly nodeRole: iam.IRole;
  /** The CloudOrch package version this construct deploys (the `cloudorch.io/version` table tag). */
  readonly version: string = packageVersion();
  private readonly tableConstruct: DesiredStateTable;

  constructor(scope: Construct, id: string, props: CloudOrchProps) {
    super(scope, id);
    const sweepRate = props.sweepRate ?? Duration.seconds(SETTING_DEFAULTS.sweepPeriodSeconds);
    this.tableConstruct = new DesiredStateTable(this, 'DesiredState', {
      ...(props.tableRemovalPolicy ? { removalPolicy: props.tableRemovalPolicy } : {}),
    });
    this.table = this.tableConstruct.table;
    // `cloudorch version` reads the deployed version from this tag (ListTagsOfResource).
    Tags.of(this.table).add(VERSION_TAG, this.version);
    this.coordinationTable = new CoordinationTable(this, 'Coordination');
    const roles = new EksRoles(this, 'EksRoles', {
      ...(props.clusterRole ? { clusterRole: props.clusterRole } : {}),
      ...(props.nodeRole ? { nodeRole: props.nodeRole } : {}),
    });
    this.clusterRole = roles.clusterRole;
    this.nodeRole = roles.nodeRole;
    this.policyBundle = new PolicyBundle(this, 'PolicyBundle', { assetDir: props.policyBundle.assetDir });

    const fns = new ReconcilerFunctions(this, 'Functions', {
      environment: this.sharedEnvironment(props),
      ...(props.logRetention ? { logRetention: props.logRetention } : {}),
      // One dispatcher at a time; shard runs bounded (their leases keep each shard to one run).
      reservedConcurrency: { sweep: 1, sweepShard: props.sweepShardConcurrency ?? 20 },
    });
    this.functions = fns.functions;
    const f = this.functions;

    const machine = new ReconcileStateMachine(this, 'StateMachine', {
      stepFunctions: {
        lease: f.lease,
        observe: f.observe,
        plan: f.plan,
        policy: f.policy,
        apply: f.apply,
        writeStatus: f.writeStatus,
        classifyError: f.classifyError,
      },
      ...(props.definitionOptions ? { definitionOptions: props.definitionOptions } : {}),
      ...(props.logRetention ? { logRetention: props.logRetention } : {}),
    });
    this.stateMachine = machine.stateMachine;

    const rollouts = this.createRollouts(props);
    this.rolloutTable = rollouts.table;
    this.rolloutTopic = rollouts.topic;
    this.rolloutStateMachine = rollouts.stateMachine;

    this.wireCapabilities(fns, props);
    this.setSettings(fns, props);
    this.reachTargetAccounts(fns, props);

    this.triggers = this.createTriggers(props, sweepRate);

    this.bridgeRole = this.createBridgeRole(props.bridge);

    this.observability = new Observability(this, 'Observability', {
      stateMachine: this.stateMachine,
      rolloutStateMachine: this.rolloutStateMachine,
      functions: FUNCTION_KEYS.map((k) => f[k]),
      statusLogGroup: fns.logGroups.writeStatus,
      deadLetterQueue: this.triggers.deadLetterQueue,
      driftCorrectionWindow: props.driftCorrectionWindow ?? Duration.minutes(30),
      failedExecutionsThreshold: props.failedExecutionsThreshold ?? 3,
      ...(props.alarmEmail ? { alarmEmail: props.alarmEmail } : {}),
    });
  }

  /** The Rollout machine, apart from Reconcile: its table, its topic and the machine itself. */
  private createRollouts(props: CloudOrchProps) {
    const f = this.functions;
    return {
      table: new RolloutTable(this, 'Rollouts', {
        ...(props.tableRemovalPolicy ? { removalPolicy: props.tableRemovalPolicy } : {}),
      }).table,
      topic: new RolloutTopic(this, 'RolloutNotifications').topic,
      stateMachine: new RolloutStateMachine(this, 'RolloutStateMachine', {
        rolloutFunctions: {
          rolloutPlan: f.rolloutPlan,
          rolloutApply: f.rolloutApply,
          rolloutWatch: f.rolloutWatch,
          rolloutReport: f.rolloutReport,
        },
        ...(props.logRetention ? { logRetention: props.logRetention } : {}),
      }).stateMachine,
    };
  }

  /** The sweep's schedule and settings, the stream trigger and the drift-event rule. */
  private createTriggers(props: CloudOrchProps, sweepRate: Duration): Triggers {
    const f = this.functions;
    return new Triggers(this, 'Triggers', {
      table: this.table,
      sweep: f.sweep,
      sweepShard: f.sweepShard,
      onChange: f.onChange,
      driftEvent: f.driftEvent,
      sweepRate,
      sweepSegments: props.sweepSegments ?? 1,
      sweepConcurrency: props.sweepConcurrency ?? SETTING_DEFAULTS.sweepConcurrency,
      fullObservePeriod:
        props.fullObservePeriod ?? Duration.seconds(SETTING_DEFAULTS.fullObservePeriodSeconds),
    });
  }

  /** What every function reads: the table and its endpoint, the defaults of creates, the log and metric names. */
  private sharedEnvironment(props: CloudOrchProps): Record<string, string> {
    return {
      [ENV.table]: this.table.tableName,
      // The bundles' DynamoDB client signs its own requests and takes the endpoint from here.
      [ENV.dynamodbEndpoint]: `https://dynamodb.${Aws.REGION}.${Aws.URL_SUFFIX}`,
      [ENV.clusterRole]: this.clusterRole.roleArn,
      [ENV.nodeRole]: this.nodeRole.roleArn,
      [ENV.subnets]: (props.subnetIds ?? []).join(','),
      [ENV.securityGroups]: (props.securityGroupIds ?? []).join(','),
      POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      POWERTOOLS_METRICS_NAMESPACE: METRIC_NAMESPACE,
      POWERTOOLS_LOG_LEVEL: props.logLevel ?? 'INFO',
    };
  }

  /** The bridge writes specs (clusters' and rollouts'), starts rollouts, evaluates the policy bundle. */
  private createBridgeRole(props: BridgeRoleProps | undefined): iam.Role {
    const role = new BridgeRole(this, 'Bridge', props).role;
    this.grantSpecWrite(role);
    for (const st of rolloutSpecWriter(this.rolloutTable.tableArn, this.rolloutStateMachine.stateMachineArn))
      role.addToPrincipalPolicy(st);
    // The bridge's admission webhook evaluates the same bundle the pipeline does: read that object only
    // (GetObject with If-None-Match for the ETag check; the bucket uses S3-managed keys, no KMS).
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['s3:GetObject'],
        resources: [this.policyBundle.bucket.arnForObjects(this.policyBundle.objectKey)],
      }),
    );
    return role;
  }

  /**
   * Each function's catalog capabilities as IAM statements (with the nag acknowledgements their
   * wildcards need) and as the environment naming what they reach.
   */
  private wireCapabilities(fns: ReconcilerFunctions, props: CloudOrchProps): void {
    const targets = {
      table: this.table,
      stateMachine: this.stateMachine,
      policyBundleObjectArn: this.policyBundle.bucket.arnForObjects(this.policyBundle.objectKey),
      clusterRole: this.clusterRole,
      nodeRole: this.nodeRole,
      deleteForeignNodegroups: props.deleteForeignNodegroups ?? false,
      sweepShardFunction: fns.functions.sweepShard,
      coordinationTable: this.coordinationTable.table,
      rolloutTable: this.rolloutTable,
      rolloutTopic: this.rolloutTopic,
    };
    for (const key of FUNCTION_KEYS) {
      const caps: readonly string[] = FUNCTIONS[key].capabilities;
      for (const cap of FUNCTIONS[key].capabilities) {
        for (const s of statementsFor(key, cap, targets)) fns.roles[key].addToPrincipalPolicy(s);
      }
      if (caps.includes('eks:read') || caps.includes('eks:write')) {
        Validations.of(fns.roles[key]).acknowledge(
          ...eksWildcardFindings(Stack.of(this)).map((id) => ({ id, reason: EKS_WILDCARD_REASON })),
        );
      }
      if (caps.includes('sfn:describe'))
        Validations.of(fns.roles[key]).acknowledge({
          id: resourceFinding(this, 'AwsSolutions-IAM5', reconcileExecutionsArn(Stack.of(this))),
          reason: EXECUTIONS_WILDCARD_REASON,
        });
      if (caps.includes('alarms:read'))
        Validations.of(fns.roles[key]).acknowledge({
          id: 'AwsSolutions-IAM5[Resource::*]',
          reason: ALARMS_WILDCARD_REASON,
        });
      this.capabilityEnvironment(fns.functions[key], caps, props);
    }
  }

  /** The environment naming what a function's capabilities reach. */
  private capabilityEnvironment(fn: lambda.Function, caps: readonly string[], props: CloudOrchProps): void {
    // The desired-state table (table:read, table:spec) is in every function's shared environment.
    if (caps.includes('budget:claim') || caps.includes('shard:lease'))
      fn.addEnvironment(ENV.coordinationTable, this.coordinationTable.table.tableName);
    if (caps.includes('rollout:write')) fn.addEnvironment(ENV.rolloutTable, this.rolloutTable.tableName);
    if (caps.includes('notify:publish')) fn.addEnvironment(ENV.rolloutTopic, this.rolloutTopic.topicArn);
    if (caps.includes('sfn:start')) fn.addEnvironment(ENV.stateMachine, this.stateMachine.stateMachineArn);
    if (caps.includes('policy:read')) {
      fn.addEnvironment(ENV.policyBundleS3, this.policyBundle.s3Url);
      // Where the function sends its signed GET: the bucket's regional endpoint, right in every partition.
      fn.addEnvironment(
        ENV.policyBundleEndpoint,
        `https://${this.policyBundle.bucket.bucketRegionalDomainName}`,
      );
      fn.addEnvironment(
        ENV.policyReloadSeconds,
        String(props.policyReloadSeconds ?? SETTING_DEFAULTS.policyReloadSeconds),
      );
    }
  }

  /** The settings some functions read: own roles (drift-event), the EKS call rate. */
  private setSettings(fns: ReconcilerFunctions, props: CloudOrchProps): void {
    const f = fns.functions;
    // Only apply mutates EKS: its calls are CloudOrch's own, not drift.
    f.driftEvent.addEnvironment(ENV.ownRoles, fns.roles.apply.roleArn);
    for (const key of FUNCTION_KEYS) {
      if (targetSide(key)) {
        f[key].addEnvironment(
          ENV.eksCallsPerSecond,
          String(props.eksCallsPerSecond ?? SETTING_DEFAULTS.eksCallsPerSecond),
        );
        // A spec naming this account is refused: its clusters are the ones without accountId.
        f[key].addEnvironment(ENV.ownAccountId, Stack.of(this).account);
      }
    }
    // The dispatcher names the own account's shards by its id, as the budget and EksThrottled do.
    f.sweep.addEnvironment(ENV.ownAccountId, Stack.of(this).account);
  }

  /**
   * With target accounts or an organization: the target role names, the assume-role grants and the
   * bus policy (target-access.ts). Without: nothing, so records naming another account are refused.
   */
  private reachTargetAccounts(fns: ReconcilerFunctions, props: CloudOrchProps): void {
    const accounts = props.targetAccounts ?? [];
    if (accounts.length === 0 && props.targetOrganizationId === undefined) return;
    const roleNames = props.targetRoleNames ?? DEFAULT_TARGET_ROLE_NAMES;
    new TargetAccess(this, 'TargetAccess', {
      accounts,
      organizationId: props.targetOrganizationId,
      roleNames,
      externalId: props.targetExternalId,
      functions: fns.functions,
      roles: fns.roles,
    });
    // Apply's calls in a target account run as the write role there: they are not drift either. With
    // an organization the accounts are not listed: `*` names the write role in any account.
    const targets = props.targetOrganizationId !== undefined ? ['*'] : accounts;
    fns.functions.driftEvent.addEnvironment(
      ENV.ownRoles,
      [fns.roles.apply.roleArn, ...targets.map((a) => roleArnIn(a, roleNames.write))].join(','),
    );
  }

  /**
   * Write desired state (spec writers: the bridge, `cloudorch apply`): read items, write the spec
   * attributes of records, write and delete target claims; never status, lease or history.
   */
  grantSpecWrite(grantee: iam.IGrantable): iam.Grant {
    return this.tableConstruct.grantSpecWrite(grantee);
  }

  /** Read records and their status (dashboards, `cloudorch get`). */
  grantReadStatus(grantee: iam.IGrantable): iam.Grant {
    return this.table.grantReadData(grantee);
  }

  /** Invoke the reconcile-now function (`cloudorch reconcile`). */
  grantReconcileNow(grantee: iam.IGrantable): iam.Grant {
    return this.functions.reconcileNow.grantInvoke(grantee);
  }
}
