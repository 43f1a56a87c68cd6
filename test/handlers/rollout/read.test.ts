/** What the watch and report steps read of a rollout: its failure policy, or a permanent error naming the field. */
import { describe, expect, it } from 'vitest';
import { PermanentError } from '../../../lambdas/core/errors.js';
import { failurePolicyOrThrow } from '../../../lambdas/handlers/rollout/read.js';

describe('failurePolicyOrThrow', () => {
  it('gives the policy with its defaults, whatever else the spec holds', () => {
    expect(
      failurePolicyOrThrow('platform/r', { change: 'not checked here', failurePolicy: { maxFailures: 1 } }),
    ).toEqual({
      maxFailures: 1,
      alarms: [],
      readyTimeoutSeconds: 3_600,
      healthWindowSeconds: 300,
    });
  });

  it('refuses a policy changed behind the steps’ backs, naming the rollout and the field', () => {
    const err = (() => {
      try {
        return failurePolicyOrThrow('platform/r', { failurePolicy: { alarms: [''] } });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(PermanentError);
    expect((err as PermanentError).message).toMatch(
      /^rollout platform\/r: its failurePolicy no longer validates: spec\.failurePolicy\.alarms\[0\]: .*must not be empty/,
    );
    expect(() => failurePolicyOrThrow('platform/r', null)).toThrow(/a rollout spec must be a mapping/);
  });
});
