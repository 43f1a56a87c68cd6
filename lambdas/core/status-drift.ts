/**
 * The Drifted condition and the drift text status shows: out-of-band change is drift, differences
 * right after a spec change are pending work, and a paused cluster that differs is not Ready.
 */
import { type ConditionInput, ConditionType, getCondition, notYet, Reason } from './conditions.js';
import type { DriftItem } from './plan/fields.js';
import type { ClusterStatus, Outcome, OutcomeContext } from './status.js';

/** The differences one per clause, as conditions show them. */
export const driftText = (drift: readonly DriftItem[]): string =>
  drift.map((d) => `${d.field}: want ${d.desired}, found ${d.observed}`).join('; ');

/**
 * Drifted is about out-of-band change: a difference found after the same generation was already in
 * sync (or still drifted). Differences right after a spec change are pending work, not drift.
 */
export function driftCondition(
  prev: ClusterStatus | undefined,
  outcome: Outcome,
  ctx: OutcomeContext,
): ConditionInput | undefined {
  const g = ctx.generation;
  // Nothing was observed for an invalid spec or record: whether it drifted is unknown, not "matches".
  if (outcome.kind === 'SpecInvalid' || outcome.kind === 'RecordInvalid')
    return {
      type: ConditionType.Drifted,
      status: 'Unknown',
      reason: Reason[outcome.kind],
      message: 'Not observed: nothing is read from EKS until the spec (or record) is fixed',
      observedGeneration: g,
    };
  if (!ctx.drift) return undefined;
  const differences = driftText(ctx.drift);
  // A cluster that is not ours is not converged by CloudOrch: whether it drifted is unknown, and
  // the differences are shown as they are, never "matches".
  if (outcome.kind === 'Impossible' && outcome.ownership)
    return {
      type: ConditionType.Drifted,
      status: 'Unknown',
      reason: Reason[outcome.ownership],
      message: differences || 'No differences observed, but CloudOrch does not manage this cluster',
      observedGeneration: g,
    };
  if (ctx.drift.length === 0)
    return notYet(ConditionType.Drifted, Reason.NoDrift, 'Observed state matches the spec', g);
  // In sync before: Synced, or already drifted, or observed matching (a paused record is never Synced).
  const prevDrift = prev ? getCondition(prev.conditions, ConditionType.Drifted) : undefined;
  const wasSynced =
    prev !== undefined &&
    prev.observedGeneration === g &&
    (prev.synced || prevDrift?.status === 'True' || prevDrift?.reason === Reason.NoDrift);
  // Differences before the generation was ever in sync are pending work, not drift; say which.
  if (!wasSynced)
    return notYet(
      ConditionType.Drifted,
      Reason.Pending,
      `Not in sync yet (pending work, not drift): ${differences}`,
      g,
    );
  return {
    type: ConditionType.Drifted,
    status: 'True',
    reason: Reason.DriftDetected,
    message: differences,
    observedGeneration: g,
  };
}

/**
 * Paused observes only: while the cluster matches, Ready stays what it was; once it differs from the
 * spec, Ready is False (not corrected while paused), never the last good answer.
 */
export function pausedDiffering(outcome: Outcome, ctx: OutcomeContext): ConditionInput | undefined {
  if (outcome.kind !== 'Paused' || !ctx.drift?.length) return undefined;
  const differences = driftText(ctx.drift);
  return notYet(
    ConditionType.Ready,
    Reason.Paused,
    `Reconciliation is paused, and the cluster differs from the spec: ${differences}`,
    ctx.generation,
  );
}

/**
 * Whether status already shows exactly this drift as out-of-band drift: a run would only write it
 * again (differences CloudOrch reports but leaves alone, such as hand-made access entries).
 */
export function driftShown(status: ClusterStatus | undefined, drift: readonly DriftItem[]): boolean {
  const c = status ? getCondition(status.conditions, ConditionType.Drifted) : undefined;
  return c?.status === 'True' && c.message === driftText(drift);
}
