/**
 * What every rollout step runs inside, as the Reconcile steps do (steps/wrap.ts): a log context with
 * the rollout and cluster, and errors turned into the classified envelope Retry and Catch match.
 */
import type { RolloutFunctionKey } from '../../statemachine/rollout-definition.js';
import { toStepError } from '../envelope.js';
import { withLogContext } from '../telemetry.js';

export function wrapRolloutStep<I>(
  key: RolloutFunctionKey,
  f: (input: I) => Promise<unknown>,
): (input: unknown) => Promise<unknown> {
  return async (input: unknown) => {
    const s = input as { id?: string; cluster?: string };
    return withLogContext(
      { step: key, ...(s.id ? { rolloutId: s.id } : {}), ...(s.cluster ? { clusterId: s.cluster } : {}) },
      async () => {
        try {
          return await f(input as I);
        } catch (err) {
          throw toStepError(err);
        }
      },
    );
  };
}
