/**
 * What every step runs inside: a log context with the execution and cluster ids, and errors turned
 * into the classified envelope Step Functions' Retry and Catch match on by name. Imports no step, so
 * a Lambda entry bundles only its own.
 */
import type { StepFunctionKey } from '../../statemachine/definition.js';
import type { ExecutionState, LeaseRequest } from '../contracts.js';
import { toStepError } from '../envelope.js';
import { StateSignal } from '../signals.js';
import { withLogContext } from '../telemetry.js';

export function wrapStep<I extends ExecutionState | LeaseRequest>(
  key: StepFunctionKey,
  f: (input: I) => Promise<unknown>,
): (input: unknown) => Promise<unknown> {
  return async (input: unknown) => {
    const s = input as { id?: string; owner?: string };
    return withLogContext(
      { step: key, ...(s.id ? { clusterId: s.id } : {}), ...(s.owner ? { executionId: s.owner } : {}) },
      async () => {
        try {
          return await f(input as I);
        } catch (err) {
          if (err instanceof StateSignal) throw err;
          throw toStepError(err);
        }
      },
    );
  };
}
