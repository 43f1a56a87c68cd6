/**
 * The Rollout state machine (one change rolled across many clusters, stage by stage), deployed from
 * the rollout definition string the local runner executes, with the four rollout function ARNs filled
 * in by definitionSubstitutions. It is a machine of its own, apart from Reconcile: its role invokes
 * only the rollout functions, and the reconcile functions know nothing of it.
 */
import { Stack } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import {
  DEFAULT_ROLLOUT_OPTIONS,
  ROLLOUT_FUNCTIONS,
  type RolloutDefinitionOptions,
  type RolloutFunctionKey,
  rolloutDefinitionString,
} from '../../lambdas/statemachine/rollout-definition.js';
import { withPartitionPlaceholder } from './definition-partition.js';
import { deployMachine } from './deployed-machine.js';

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
    const keys = Object.keys(ROLLOUT_FUNCTIONS) as RolloutFunctionKey[];
    const m = deployMachine(this, 'Rollout', {
      name: rolloutStateMachineName(Stack.of(this)),
      definition: rolloutDefinitionString(props.definitionOptions ?? DEFAULT_ROLLOUT_OPTIONS),
      functions: Object.fromEntries(keys.map((k) => [ROLLOUT_FUNCTIONS[k], props.rolloutFunctions[k]])),
      ...(props.logRetention ? { logRetention: props.logRetention } : {}),
    });
    this.stateMachine = m.stateMachine;
    this.logGroup = m.logGroup;
  }
}

/** The Rollout state machine's name: one per stack. */
export function rolloutStateMachineName(stack: Stack): string {
  return `${stack.stackName}-Rollout`;
}
