/** Step key -> handler: the one map both the Lambda entries and the local runner use. */
import type { StepFunctionKey } from '../../statemachine/definition.js';
import type { ExecutionState, LeaseRequest } from '../contracts.js';
import { toStepError } from '../envelope.js';
import { withLogContext } from '../telemetry.js';
import { applyStep } from './apply.js';
import { classifyErrorStep } from './classify-error.js';
import { leaseStep } from './lease.js';
import { observeStep } from './observe.js';
import { planStep } from './plan.js';
import { policyStep } from './policy.js';
import { writeStatusStep } from './write-status.js';

type StepHandler = (input: never) => Promise<unknown>;

export const STEP_HANDLERS = {
  lease: leaseStep,
  observe: observeStep,
  plan: planStep,
  policy: policyStep,
  apply: applyStep,
  writeStatus: writeStatusStep,
  classifyError: classifyErrorStep,
} as const satisfies Record<StepFunctionKey, StepHandler>;

/**
 * Wraps a step: log context with execution and cluster ids, and errors converted to the classified
 * envelope Step Functions' Retry/Catch match on by name.
 */
export function runStep(key: StepFunctionKey): (input: unknown) => Promise<unknown> {
  const f = STEP_HANDLERS[key] as (input: ExecutionState | LeaseRequest) => Promise<unknown>;
  return async (input: unknown) => {
    const s = input as { id?: string; owner?: string };
    return withLogContext(
      { step: key, ...(s.id ? { clusterId: s.id } : {}), ...(s.owner ? { executionId: s.owner } : {}) },
      async () => {
        try {
          return await f(input as ExecutionState);
        } catch (err) {
          throw toStepError(err);
        }
      },
    );
  };
}
