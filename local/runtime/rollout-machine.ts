/**
 * The production Rollout definition for the local Step Functions endpoint, each Task running its
 * real rollout step (the callback Tasks name their function in Parameters, which the endpoint reads).
 */
import { runRolloutStep } from '../../lambdas/handlers/rollout/index.js';
import {
  DEFAULT_ROLLOUT_OPTIONS,
  ROLLOUT_FUNCTIONS,
  type RolloutDefinitionOptions,
  type RolloutFunctionKey,
  rolloutDefinitionString,
  substituteRollout,
} from '../../lambdas/statemachine/rollout-definition.js';

/** The local rollout table (tools writing items straight to it, as tests do, name it). */
export const LOCAL_ROLLOUT_TABLE = 'cloudorch-rollouts';

export function rolloutMachine(
  region: string,
  account: string,
  opts: RolloutDefinitionOptions = DEFAULT_ROLLOUT_OPTIONS,
) {
  const keys = Object.keys(ROLLOUT_FUNCTIONS) as RolloutFunctionKey[];
  const arnOf = (k: RolloutFunctionKey) => `arn:aws:lambda:${region}:${account}:function:cloudorch-${k}`;
  const arns = Object.fromEntries(keys.map((k) => [k, arnOf(k)])) as Record<RolloutFunctionKey, string>;
  return {
    arn: `arn:aws:states:${region}:${account}:stateMachine:cloudorch-rollout`,
    definition: substituteRollout(rolloutDefinitionString(opts), arns),
    handlers: new Map(keys.map((k) => [arnOf(k), runRolloutStep(k)])),
  };
}
