/**
 * The Reconcile state machine, deployed from the pipeline's own definition string (the same one the
 * local runner executes) with the function ARNs filled in by definitionSubstitutions.
 */
import { Stack } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import {
  DEFAULT_DEFINITION_OPTIONS,
  type DefinitionOptions,
  definitionString,
  STEP_FUNCTIONS,
  type StepFunctionKey,
} from '../../lambdas/statemachine/definition.js';
import { deployMachine } from './deployed-machine.js';

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
    const keys = Object.keys(STEP_FUNCTIONS) as StepFunctionKey[];
    // A known name: the functions that ask about executions (a lease names one) are granted
    // DescribeExecution on this machine's executions without depending on the machine itself,
    // which depends on them (a cycle otherwise).
    const m = deployMachine(this, 'Reconcile', {
      name: reconcileStateMachineName(Stack.of(this)),
      definition: definitionString(props.definitionOptions ?? DEFAULT_DEFINITION_OPTIONS),
      functions: Object.fromEntries(keys.map((k) => [STEP_FUNCTIONS[k], props.stepFunctions[k]])),
      ...(props.logRetention ? { logRetention: props.logRetention } : {}),
    });
    this.stateMachine = m.stateMachine;
    this.logGroup = m.logGroup;
  }
}

/** The Reconcile state machine's name: one per stack. */
export function reconcileStateMachineName(stack: Stack): string {
  return `${stack.stackName}-Reconcile`;
}
