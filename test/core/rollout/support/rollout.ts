/** Builders for rollout specs used across the rollout tests. */
import { type RolloutSpec, validateRolloutSpec } from '../../../../lambdas/core/rollout/schema.js';

/** A valid rollout spec input: a version bump to clusters labelled env=prod, in two stages. */
export function rolloutInput(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    selector: { matchLabels: { env: 'prod' } },
    change: { kubernetesVersion: '1.32' },
    stages: [
      { name: 'canary', clusters: ['prod/a'], approval: 'after' },
      { name: 'rest', maxConcurrency: '50%' },
    ],
    ...over,
  };
}

/** The validated spec of `input`; throws with the issues when it is not valid (a test bug). */
export function rollout(input: Record<string, unknown> = rolloutInput()): RolloutSpec {
  const r = validateRolloutSpec(input);
  if (!r.ok) throw new Error(r.issues.map((i) => i.message).join('; '));
  return r.spec;
}
