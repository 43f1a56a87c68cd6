/**
 * How CloudOrch deploys each of its state machines (Reconcile and Rollout) alike: from the very
 * definition string the local runner executes, with function ARNs (and the partition of its callback
 * integrations) filled in by definitionSubstitutions; a known name, so grants on its executions need
 * not depend on the machine; every event logged without execution data (specs and task tokens stay
 * out of the logs); X-Ray tracing; and invoke rights on exactly its own functions, unqualified.
 */
import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { PARTITION_SUBSTITUTION, withPartitionPlaceholder } from './definition-partition.js';

export interface DeployedMachineProps {
  readonly name: string;
  /** The local definition string, with `${Placeholder}` for each function ARN. */
  readonly definition: string;
  /** Placeholder -> the function it names. */
  readonly functions: Readonly<Record<string, lambda.IFunction>>;
  readonly logRetention?: logs.RetentionDays;
}

export function deployMachine(
  scope: Construct,
  id: string,
  props: DeployedMachineProps,
): { stateMachine: sfn.StateMachine; logGroup: logs.LogGroup } {
  const logGroup = new logs.LogGroup(scope, 'Logs', {
    retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  const fns = Object.entries(props.functions);
  const stateMachine = new sfn.StateMachine(scope, id, {
    stateMachineName: props.name,
    stateMachineType: sfn.StateMachineType.STANDARD,
    definitionBody: sfn.DefinitionBody.fromString(withPartitionPlaceholder(props.definition)),
    definitionSubstitutions: {
      ...Object.fromEntries(fns.map(([placeholder, fn]) => [placeholder, fn.functionArn])),
      ...PARTITION_SUBSTITUTION,
    },
    logs: { destination: logGroup, level: sfn.LogLevel.ALL, includeExecutionData: false },
    tracingEnabled: true,
  });
  // Tasks (callbacks' FunctionName too) name the plain function ARN: only unqualified ARNs are invoked.
  stateMachine.addToRolePolicy(
    new iam.PolicyStatement({
      actions: ['lambda:InvokeFunction'],
      resources: fns.map(([, fn]) => fn.functionArn),
    }),
  );
  Validations.of(stateMachine).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason:
      'X-Ray trace submission and CloudWatch Logs log-delivery management support no resource-level ' +
      'permissions (AWS documents Resource "*" for both); no other action has a wildcard.',
  });
  return { stateMachine, logGroup };
}
