/** The deployable stack: the CloudOrch construct and the outputs a user needs. */
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { CloudOrch, type CloudOrchProps } from './cloudorch.js';
import { FUNCTION_KEYS } from './functions.js';
import { VERSION_TAG } from './package-info.js';
import { targetSide } from './target-access.js';

export interface CloudOrchStackProps extends StackProps, CloudOrchProps {}

/** Output descriptions name the environment variable the CLI reads each value from. */
export const OUTPUT_ENV = {
  TableName: 'CLOUDORCH_TABLE_NAME',
  StateMachineArn: 'CLOUDORCH_STATE_MACHINE_ARN',
  RolloutTableName: 'CLOUDORCH_ROLLOUT_TABLE',
} as const;

export class CloudOrchStack extends Stack {
  readonly cloudorch: CloudOrch;

  constructor(scope: Construct, id: string, props: CloudOrchStackProps) {
    super(scope, id, props);
    this.cloudorch = new CloudOrch(this, 'CloudOrch', props);
    const c = this.cloudorch;
    const out = (id: string, value: string, description: string) =>
      new CfnOutput(this, id, { value, description });
    out('TableName', c.table.tableName, `Desired-state table (${OUTPUT_ENV.TableName} for the CLI)`);
    out(
      'StateMachineArn',
      c.stateMachine.stateMachineArn,
      `Reconcile state machine (${OUTPUT_ENV.StateMachineArn} for the CLI)`,
    );
    out(
      'RolloutTableName',
      c.rolloutTable.tableName,
      `Rollout records and cluster locks (${OUTPUT_ENV.RolloutTableName} for the CLI)`,
    );
    out(
      'RolloutStateMachineArn',
      c.rolloutStateMachine.stateMachineArn,
      'Rollout state machine: an execution rolls out one CloudRollout, input {"id": "<namespace>/<name>"}',
    );
    out(
      'RolloutTopicArn',
      c.rolloutTopic.topicArn,
      'Subscribe here for rollout notifications (approval needed, halted, completed)',
    );
    out('Version', c.version, `CloudOrch version deployed (also the table's ${VERSION_TAG} tag)`);
    out('BridgeRoleArn', c.bridgeRole.roleArn, 'Role for the in-cluster bridge (Pod Identity or IRSA)');
    out('DashboardUrl', c.observability.dashboardUrl, 'CloudWatch drift dashboard');
    out(
      'PolicyBundleUrl',
      c.policyBundle.s3Url,
      'Policy bundle object the engine reloads (--policy-bundle for cloudorch plan, or the target)',
    );
    // A plan from the CLI must assume the stack's deployment defaults: set them on the named target.
    out(
      'DefaultClusterRoleArn',
      c.clusterRole.roleArn,
      'Role new clusters get when a spec names none (cloudorch config set-target --cluster-role-arn)',
    );
    out(
      'DefaultNodeRoleArn',
      c.nodeRole.roleArn,
      'Role new node groups get when a spec names none (cloudorch config set-target --node-role-arn)',
    );
    out('ReconcileNowFunctionName', c.functions.reconcileNow.functionName, 'Invoke with {"id": "..."}');
    out('AlarmTopicArn', c.observability.alarmTopic.topicArn, 'Subscribe here for alarm notifications');
    out('DeadLetterQueueUrl', c.triggers.deadLetterQueue.queueUrl, 'Failed trigger invocations');
    if ((props.targetAccounts ?? []).length > 0 || props.targetOrganizationId !== undefined) {
      // What TargetAccountStack's controlPlaneRoleArns wants: the roles of each side, comma-separated.
      const side = (name: 'read' | 'write') =>
        FUNCTION_KEYS.filter((k) => targetSide(k) === name)
          .map((k) => c.functions[k].role?.roleArn ?? '')
          .join(',');
      out('TargetReadRoleTrust', side('read'), 'Roles the target read role trusts (the observe side)');
      out('TargetWriteRoleTrust', side('write'), 'Role the target write role trusts (apply)');
    }
  }
}
