/**
 * How one cluster is doing after a rollout wrote its change (generation `targetGeneration`), read
 * from the cluster's status alone: waiting for Ready at that generation, watching it stay Ready for
 * the health window, healthy, or failed. Unknown is never success: a status that cannot be read
 * keeps the cluster waiting until the ready timeout, and turns a watched cluster failed.
 */
import { type Condition, ConditionType, getCondition, Reason } from '../conditions.js';
import { formatDuration } from '../duration.js';
import type { ClusterStatus } from '../status.js';
import type { FailurePolicy } from './failure-policy.js';

export type ProgressVerdict = 'waiting' | 'watching' | 'healthy' | 'failed';

export interface ProgressInput {
  readonly status: ClusterStatus | undefined;
  readonly targetGeneration: number;
  /** When the rollout wrote the change (epoch ms): the ready timeout runs from here. */
  readonly startedAtMs: number;
  /** When the rollout first saw it Ready at the generation, as returned by an earlier call. */
  readonly readyAtMs?: number | undefined;
  readonly nowMs: number;
  readonly policy: Pick<FailurePolicy, 'readyTimeoutSeconds' | 'healthWindowSeconds'>;
}

export interface ClusterProgress {
  readonly verdict: ProgressVerdict;
  readonly reason: string;
  /** Set once Ready at the generation was seen: the caller keeps it for the next call. */
  readonly readyAtMs?: number;
}

/**
 * Ready reasons that no further run changes without a human (a failure the pipeline gave up on, a
 * policy denial, a change it cannot make, an invalid spec or record, a cluster not ours or going
 * away): at the target generation the cluster fails at once instead of waiting out the timeout.
 * TransientError, WaitingForEks, Progressing, ObserveFailed and the add-on reasons may still clear.
 */
export const TERMINAL_READY_REASONS: ReadonlySet<string> = new Set<Reason>([
  Reason.PermanentError,
  Reason.PolicyViolation,
  Reason.PolicyEngineDegraded,
  Reason.ImpossibleChange,
  Reason.SpecInvalid,
  Reason.RecordInvalid,
  Reason.NotOwned,
  Reason.OwnershipLost,
  Reason.TargetClaimed,
  Reason.UpgradeInsightsFailing,
  Reason.Deleting,
  Reason.Deleted,
  Reason.Retained,
  Reason.ReleasedUntouched,
  Reason.DeletionStuck,
]);

const describe = (c: Condition): string =>
  `Ready ${c.status} at generation ${c.observedGeneration} (${c.reason}${c.message ? `: ${c.message}` : ''})`;

const conditionOf = (status: ClusterStatus | undefined, type: ConditionType) =>
  status ? getCondition(status.conditions, type) : undefined;

/** Before Ready at the generation: a terminal reason fails now, the timeout fails later. */
function beforeReady(input: ProgressInput): ClusterProgress {
  const { status, targetGeneration: g, startedAtMs, nowMs, policy } = input;
  const ready = conditionOf(status, ConditionType.Ready);
  const atTarget = ready !== undefined && ready.observedGeneration >= g;
  if (atTarget && ready.status === 'True') return whileWatching({ ...input, readyAtMs: nowMs });
  if (atTarget && ready.status === 'False' && TERMINAL_READY_REASONS.has(ready.reason))
    return { verdict: 'failed', reason: describe(ready) };
  // Paused keeps Ready as it was: the change would never be applied.
  const synced = conditionOf(status, ConditionType.Synced);
  if (synced && synced.observedGeneration >= g && synced.reason === Reason.Paused)
    return {
      verdict: 'failed',
      reason: `reconciliation is paused at generation ${g}: the change is not applied`,
    };
  const seen = ready ? describe(ready) : 'no Ready condition yet';
  if (nowMs - startedAtMs >= policy.readyTimeoutSeconds * 1000)
    return {
      verdict: 'failed',
      reason: `not Ready at generation ${g} within ${formatDuration(policy.readyTimeoutSeconds)}: ${seen}`,
    };
  return { verdict: 'waiting', reason: `waiting for Ready at generation ${g}: ${seen}` };
}

/** Ready at the generation since `readyAtMs`: it must stay Ready, without drift, for the window. */
function whileWatching(input: ProgressInput & { readonly readyAtMs: number }): ClusterProgress {
  const { status, readyAtMs, nowMs, policy } = input;
  const ready = conditionOf(status, ConditionType.Ready);
  if (ready?.status !== 'True')
    return {
      verdict: 'failed',
      reason: `Ready did not hold for the health window: ${ready ? describe(ready) : 'no Ready condition'}`,
      readyAtMs,
    };
  const drifted = conditionOf(status, ConditionType.Drifted);
  if (drifted?.status === 'True')
    return { verdict: 'failed', reason: `drift during the health window: ${drifted.message}`, readyAtMs };
  const window = policy.healthWindowSeconds;
  const heldSeconds = Math.floor((nowMs - readyAtMs) / 1000);
  if (nowMs - readyAtMs >= window * 1000)
    return {
      verdict: 'healthy',
      reason: `Ready for the health window (${formatDuration(window)})`,
      readyAtMs,
    };
  return {
    verdict: 'watching',
    reason: `Ready for ${formatDuration(heldSeconds)} of the ${formatDuration(window)} health window`,
    readyAtMs,
  };
}

/** The cluster's verdict now; pure, so the caller decides what a verdict does to the rollout. */
export function clusterProgress(input: ProgressInput): ClusterProgress {
  const { readyAtMs } = input;
  return readyAtMs === undefined ? beforeReady(input) : whileWatching({ ...input, readyAtMs });
}
