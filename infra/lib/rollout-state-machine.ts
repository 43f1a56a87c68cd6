/**
 * The Rollout state machine (one change rolled across many clusters, stage by stage), deployed from
 * the rollout definition string the local runner executes, with the four rollout function ARNs filled
 * in by definitionSubstitutions. It is a machine of its own, apart from Reconcile: its role invokes
 * only the rollout functions, and the reconcile functions know nothing of it.
 */
import { RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import {
  DEFAULT_ROLLOUT_OPTIONS,
  ROLLOUT_FUNCTIONS,
  type RolloutDefinitionOptions,
  type RolloutFunctionKey,
  rolloutDefinitionString,
} from '../../lambdas/statemachine/rollout-definition.js';
import { PARTITION_SUBSTITUTION, withPartitionPlaceholder } from './definition-partition.js';

export { PARTITION_PLACEHOLDER } from './definition-partition.js';

/**
 * The definition CDK deploys: the local one, with the partition of its service integrations (the
 * approval tasks' `lambda:invoke.waitForTaskToken`) left to a substitution. With `aws` substituted
 * back it is the local definition, character for character.
 */
export function deployedRolloutDefinition(opts: RolloutDefinitionOptions = DEFAULT_ROLLOUT_OPTIONS): string {
  return withPartitionPlaceholder(rolloutDefinitionString(opts));
}

export interface RolloutStateMachineProps {
  readonly rolloutFunctions: Readonly<Record<RolloutFunctionKey, lambda.IFunction>>;
  /** @default DEFAULT_ROLLOUT_OPTIONS (what local mode runs) */
  readonly definitionOptions?: RolloutDefinitionOptions;
  /** @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
}

export class RolloutStateMachine extends Construct {
  readonly stateMachine: sfn.StateMachine;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: RolloutStateMachineProps) {
    super(scope, id);
    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const keys = Object.keys(ROLLOUT_FUNCTIONS) as RolloutFunctionKey[];
    this.stateMachine = new sfn.StateMachine(this, 'Rollout', {
      // A known name, as the Reconcile machine's: grants on its executions need not depend on it.
      stateMachineName: rolloutStateMachineName(Stack.of(this)),
      stateMachineType: sfn.StateMachineType.STANDARD,
      definitionBody: sfn.DefinitionBody.fromString(
        deployedRolloutDefinition(props.definitionOptions ?? DEFAULT_ROLLOUT_OPTIONS),
      ),
      definitionSubstitutions: {
        ...Object.fromEntries(keys.map((k) => [ROLLOUT_FUNCTIONS[k], props.rolloutFunctions[k].functionArn])),
        ...PARTITION_SUBSTITUTION,
      },
      // Every event, without execution data: specs and task tokens stay out of the logs.
      logs: { destination: this.logGroup, level: sfn.LogLevel.ALL, includeExecutionData: false },
      tracingEnabled: true,
    });
    // Tasks (the approval callbacks' FunctionName too) name the plain function ARN: unqualified only.
    this.stateMachine.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['lambda:InvokeFunction'],
        resources: keys.map((k) => props.rolloutFunctions[k].functionArn),
      }),
    );
    Validations.of(this.stateMachine).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'X-Ray trace submission and CloudWatch Logs log-delivery management support no resource-level ' +
        'permissions (AWS documents Resource "*" for both); no other action has a wildcard.',
    });
  }
}

/** The Rollout state machine's name: one per stack. */
export function rolloutStateMachineName(stack: Stack): string {
  return `${stack.stackName}-Rollout`;
}
