/**
 * How a rollout's status moves, as pure functions of the status and the reconciler's clock: each
 * rollout step reads the record, applies one of these and writes it back under a version condition.
 * The phase is derived from what the stages say wherever it can be, so it cannot disagree with them.
 */
import type { FailurePolicy } from './failure-policy.js';
import type { PlannedStage } from './stages.js';
import {
  type ClusterPatch,
  type RolloutClusterStatus,
  type RolloutStatus,
  type StageStatus,
  withCluster,
} from './status.js';

export { initialStatus, withCluster } from './status.js';

const iso = (d: Date) => d.toISOString();
const touch = (s: RolloutStatus, now: Date): RolloutStatus => ({ ...s, updatedAt: iso(now) });

/** The stages as planned, read back from a status (a resumed execution keeps them). */
export function plannedOf(status: RolloutStatus): PlannedStage[] {
  return status.stages.map((s) => ({
    name: s.name,
    clusters: s.clusters.map((c) => c.id),
    maxConcurrency: s.maxConcurrency,
    soakSeconds: s.soakSeconds,
    approval: s.approval,
  }));
}

/** A resume: the halt is lifted, failed and skipped clusters are pending again, the rest is kept. */
export function resumed(status: RolloutStatus, now: Date): RolloutStatus {
  const { halt: _halt, ...rest } = status;
  return {
    ...rest,
    phase: 'Running',
    updatedAt: iso(now),
    stages: status.stages.map((s) => {
      const clusters = s.clusters.map(
        (c): RolloutClusterStatus =>
          c.state === 'failed' || c.state === 'skipped' || c.state === 'inProgress'
            ? { id: c.id, state: 'pending' }
            : c,
      );
      const state = s.state === 'succeeded' ? s.state : 'pending';
      return { ...s, state, clusters };
    }),
  };
}

/** Why steps of this execution must not start anything: a new generation, a halt or an abort. */
export function stopReason(
  r: { readonly generation: number; readonly status?: RolloutStatus; readonly abortRequestedAt?: string },
  generation: number,
): string | undefined {
  if (r.generation !== generation) return `the rollout changed (generation ${r.generation})`;
  if (r.abortRequestedAt || r.status?.phase === 'Aborted') return 'the rollout was aborted';
  if (r.status?.phase === 'Halted') return `the rollout halted: ${r.status.halt?.reason ?? 'see its status'}`;
  return undefined;
}

export function clusterOf(
  status: RolloutStatus,
  stage: string,
  id: string,
): RolloutClusterStatus | undefined {
  return status.stages.find((s) => s.name === stage)?.clusters.find((c) => c.id === id);
}

function withStage(
  status: RolloutStatus,
  stage: string,
  f: (s: StageStatus) => StageStatus,
  now: Date,
): RolloutStatus {
  return { ...status, updatedAt: iso(now), stages: status.stages.map((s) => (s.name === stage ? f(s) : s)) };
}

/** One cluster patched, the status stamped with the time. */
function patchCluster(
  status: RolloutStatus,
  stage: string,
  id: string,
  patch: ClusterPatch,
  now: Date,
): RolloutStatus {
  return touch(withCluster(status, stage, id, patch), now);
}

export function startStage(status: RolloutStatus, stage: string, now: Date): RolloutStatus {
  return {
    ...withStage(status, stage, (s) => ({ ...s, state: 'inProgress', startedAt: iso(now) }), now),
    phase: 'Running',
  };
}

export function approvalRequested(
  status: RolloutStatus,
  stage: string,
  when: 'before' | 'after',
  now: Date,
): RolloutStatus {
  return {
    ...withStage(status, stage, (s) => ({ ...s, state: 'awaitingApproval', awaiting: when }), now),
    phase: 'AwaitingApproval',
  };
}

export function approvedStage(
  status: RolloutStatus,
  stage: string,
  when: 'before' | 'after',
  now: Date,
): RolloutStatus {
  if (status.phase !== 'AwaitingApproval') return status;
  const next = withStage(
    status,
    stage,
    ({ awaiting: _a, ...s }) => ({
      ...s,
      state: 'inProgress',
      [when === 'before' ? 'approvedBeforeAt' : 'approvedAfterAt']: iso(now),
    }),
    now,
  );
  return { ...next, phase: 'Running' };
}

const failures = (status: RolloutStatus) =>
  status.stages.reduce((n, s) => n + s.clusters.filter((c) => c.state === 'failed').length, 0);

export function haltFor(
  status: RolloutStatus,
  reason: string,
  cluster: string | undefined,
  now: Date,
): RolloutStatus {
  if (status.phase === 'Halted' || status.phase === 'Aborted' || status.phase === 'Completed') return status;
  return {
    ...status,
    phase: 'Halted',
    updatedAt: iso(now),
    halt: { reason, ...(cluster ? { cluster } : {}), at: iso(now) },
  };
}

export function clusterFailed(
  status: RolloutStatus,
  stage: string,
  id: string,
  reason: string,
  policy: FailurePolicy,
  now: Date,
): RolloutStatus {
  const next = patchCluster(status, stage, id, { state: 'failed', reason, finishedAt: iso(now) }, now);
  const n = failures(next);
  return n > policy.maxFailures
    ? haltFor(
        next,
        `${n} cluster(s) failed, more than the ${policy.maxFailures} allowed; last: ${id}: ${reason}`,
        id,
        now,
      )
    : next;
}

export function clusterSucceeded(status: RolloutStatus, stage: string, id: string, now: Date): RolloutStatus {
  return patchCluster(status, stage, id, { state: 'succeeded', finishedAt: iso(now) }, now);
}

/**
 * The end of a stage's clusters. A cluster still in progress here had its failure go unrecorded (the
 * report itself failed): it counts as failed. Then the soak starts, or the halt stands.
 */
export function endStage(
  status: RolloutStatus,
  stage: string,
  policy: FailurePolicy,
  now: Date,
): RolloutStatus {
  let next = status;
  for (const c of status.stages.find((s) => s.name === stage)?.clusters ?? [])
    if (c.state === 'inProgress')
      next = clusterFailed(next, stage, c.id, 'its result was not recorded', policy, now);
  if (next.phase === 'Halted' || next.phase === 'Aborted')
    return withStage(next, stage, (s) => ({ ...s, state: 'failed' }), now);
  const at = new Date(now.getTime() + (next.stages.find((s) => s.name === stage)?.soakSeconds ?? 0) * 1000);
  return withStage(next, stage, (s) => ({ ...s, state: 'soaking', soakUntil: iso(at) }), now);
}

/** The soak, checked on the reconciler's clock; waits at most an hour at a time. */
export function soakState(
  status: RolloutStatus,
  stage: string,
  now: Date,
): { status: RolloutStatus; output: { done: boolean; waitSeconds: number } } {
  const s = status.stages.find((x) => x.name === stage);
  const until = s?.soakUntil ? Date.parse(s.soakUntil) : now.getTime();
  const left = until - now.getTime();
  if (left > 0) {
    return {
      status: { ...status, phase: 'Soaking' },
      output: { done: false, waitSeconds: Math.min(3600, Math.max(1, Math.ceil(left / 1000))) },
    };
  }
  const done = withStage(status, stage, (x) => ({ ...x, state: 'succeeded', finishedAt: iso(now) }), now);
  return { status: { ...done, phase: 'Running' }, output: { done: true, waitSeconds: 0 } };
}

export function completed(status: RolloutStatus, now: Date): RolloutStatus {
  return { ...status, phase: 'Completed', updatedAt: iso(now) };
}

/** A step failed outside any cluster (the plan, a stage's bookkeeping): the rollout halts. */
export function failedRollout(
  status: RolloutStatus | undefined,
  generation: number,
  reason: string,
  now: Date,
): RolloutStatus {
  const base: RolloutStatus = status ?? { phase: 'Running', generation, updatedAt: iso(now), stages: [] };
  return haltFor(base, reason, undefined, now);
}

export function aborted(status: RolloutStatus, now: Date): RolloutStatus {
  return { ...status, phase: 'Aborted', updatedAt: iso(now) };
}
