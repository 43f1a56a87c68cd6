/** Reading a rollout record for a step, and the errors a rollout step names. */
import { domainError, NotFoundError, PermanentError } from '../../core/errors.js';
import { type FailurePolicy, failurePolicyOf } from '../../core/rollout/failure-policy.js';
import { formatIssues } from '../../core/spec/issue.js';
import type { RolloutRecord, RolloutStore } from '../../store/rollouts.js';

/** A cluster the rollout selects is held by another rollout that has not finished. */
export class RolloutConflictError extends domainError(
  'RolloutConflictError',
  'Permanent',
  'Wait for the other rollout to complete, or abort it (`cloudorch rollout abort`), then resume this one.',
) {
  constructor(
    readonly rollout: string,
    readonly cluster: string,
    readonly heldBy: string,
  ) {
    super(`rollout ${rollout}: cluster ${cluster} is in rollout ${heldBy}, which has not finished`);
  }
}

export async function readRollout(rollouts: RolloutStore, id: string): Promise<RolloutRecord> {
  const rec = await rollouts.get(id);
  if (!rec)
    throw new NotFoundError(`rollout ${id} does not exist`, {
      remediation: 'Apply the CloudRollout, then start it again.',
    });
  return rec;
}

/**
 * The failure policy of a rollout's spec: all the watch and report steps read of it. The whole spec
 * was validated when it was written and again by the plan step; a record changed behind their backs
 * is named with its field.
 */
export function failurePolicyOrThrow(id: string, spec: unknown): FailurePolicy {
  const v = failurePolicyOf(spec);
  if (!v.ok)
    throw new PermanentError(
      `rollout ${id}: its failurePolicy no longer validates: ${formatIssues(v.issues)}`,
      {
        remediation: 'Apply a valid rollout.',
      },
    );
  return v.policy;
}
