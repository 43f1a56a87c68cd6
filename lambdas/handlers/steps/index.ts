/** Step key -> handler: the one map both the Lambda entries and the local runner use. */
import type { StepFunctionKey } from '../../statemachine/definition.js';
import type { ExecutionState, LeaseRequest } from '../contracts.js';
import { applyStep } from './apply.js';
import { statusStep } from './approval.js';
import { classifyErrorStep } from './classify-error.js';
import { leaseStep } from './lease.js';
import { observeStep } from './observe.js';
import { planStep } from './plan.js';
import { policyStep } from './policy.js';
import { wrapStep } from './wrap.js';

type StepHandler = (input: never) => Promise<unknown>;

export const STEP_HANDLERS = {
  lease: leaseStep,
  observe: observeStep,
  plan: planStep,
  policy: policyStep,
  apply: applyStep,
  writeStatus: statusStep,
  classifyError: classifyErrorStep,
} as const satisfies Record<StepFunctionKey, StepHandler>;

/** The wrapped handler of one step, as the local runner maps it to a Task's Resource. */
export function runStep(key: StepFunctionKey): (input: unknown) => Promise<unknown> {
  return wrapStep(key, STEP_HANDLERS[key] as (input: ExecutionState | LeaseRequest) => Promise<unknown>);
}
