/**
 * The Reconcile state machine, deployed from the pipeline's own definition string (the same one the
 * local runner executes) with the function ARNs filled in by definitionSubstitutions.
 */
import { RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import {
  DEFAULT_DEFINITION_OPTIONS,
  type DefinitionOptions,
  definitionString,
  STEP_FUNCTIONS,
  type StepFunctionKey,
} from '../../lambdas/statemachine/definition.js';
import { PARTITION_SUBSTITUTION, withPartitionPlaceholder } from './definition-partition.js';

export interface ReconcileStateMachineProps {
  readonly stepFunctions: Readonly<Record<StepFunctionKey, lambda.IFunction>>;
  /** @default DEFAULT_DEFINITION_OPTIONS (what local mode runs) */
  readonly definitionOptions?: DefinitionOptions;
  /** @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
}

export class ReconcileStateMachine extends Construct {
  readonly stateMachine: sfn.StateMachine;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: ReconcileStateMachineProps) {
    super(scope, id);
    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const keys = Object.keys(STEP_FUNCTIONS) as StepFunctionKey[];
    this.stateMachine = new sfn.StateMachine(this, 'Reconcile', {
      // A known name: the functions that ask about executions (a lease names one) are granted
      // DescribeExecution on this machine's executions without depending on the machine itself,
      // which depends on them (a cycle otherwise).
      stateMachineName: reconcileStateMachineName(Stack.of(this)),
      stateMachineType: sfn.StateMachineType.STANDARD,
      // The approval wait's callback integration names no partition (definition-partition.ts).
      definitionBody: sfn.DefinitionBody.fromString(
        withPartitionPlaceholder(definitionString(props.definitionOptions ?? DEFAULT_DEFINITION_OPTIONS)),
      ),
      definitionSubstitutions: {
        ...Object.fromEntries(keys.map((k) => [STEP_FUNCTIONS[k], props.stepFunctions[k].functionArn])),
        ...PARTITION_SUBSTITUTION,
      },
      // Every event, without execution data: specs stay out of the logs, the console keeps history.
      logs: { destination: this.logGroup, level: sfn.LogLevel.ALL, includeExecutionData: false },
      tracingEnabled: true,
    });
    // Tasks name the plain function ARN, so only unqualified ARNs are invoked (no `:*` versions).
    this.stateMachine.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['lambda:InvokeFunction'],
        resources: keys.map((k) => props.stepFunctions[k].functionArn),
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

/** The Reconcile state machine's name: one per stack. */
export function reconcileStateMachineName(stack: Stack): string {
  return `${stack.stackName}-Reconcile`;
}
