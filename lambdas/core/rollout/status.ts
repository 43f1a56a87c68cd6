/**
 * The CloudRollout status: a phase, each stage with its clusters, and why it halted. The helpers
 * are pure: they return a new status and never touch the one given.
 */
import { InternalError } from '../errors.js';
import type { FailurePolicy } from './failure-policy.js';
import type { PlannedStage } from './stages.js';

export type RolloutPhase =
  | 'Pending'
  | 'Running'
  | 'AwaitingApproval'
  | 'Soaking'
  | 'Halted'
  | 'Aborted'
  | 'Completed';

export type StageState =
  | 'pending'
  | 'awaitingApproval'
  | 'inProgress'
  | 'soaking'
  | 'succeeded'
  | 'failed'
  | 'skipped';

export type ClusterState = 'pending' | 'inProgress' | 'succeeded' | 'failed' | 'skipped';

export interface RolloutClusterStatus {
  readonly id: string;
  readonly state: ClusterState;
  /** The generation the rollout wrote (absent until written, or when the change was already there). */
  readonly generation?: number;
  /** Why it failed or was skipped; or how it is doing. */
  readonly reason?: string;
  /** ISO timestamps. */
  readonly startedAt?: string;
  readonly readyAt?: string;
  readonly finishedAt?: string;
}

export interface StageStatus {
  readonly name: string;
  readonly state: StageState;
  readonly approval: PlannedStage['approval'];
  /** As planned: a resumed execution runs the stage the same way. */
  readonly maxConcurrency: number;
  readonly soakSeconds: number;
  /** Which approval the stage waits for, while it does. */
  readonly awaiting?: 'before' | 'after';
  /** ISO timestamps. */
  readonly startedAt?: string;
  readonly approvedBeforeAt?: string;
  readonly approvedAfterAt?: string;
  /** The soak ends. */
  readonly soakUntil?: string;
  readonly finishedAt?: string;
  readonly clusters: readonly RolloutClusterStatus[];
}

export interface RolloutStatus {
  readonly phase: RolloutPhase;
  /** The rollout generation the stages were planned for. */
  readonly generation: number;
  readonly stages: readonly StageStatus[];
  /** Why the rollout stopped: a cluster's failure, an alarm, a human. */
  readonly halt?: { readonly cluster?: string; readonly reason: string; readonly at?: string };
  readonly updatedAt: string;
}

export type ClusterPatch = Partial<Omit<RolloutClusterStatus, 'id'>>;

/** Every stage and cluster pending: the status of a rollout that was planned and not started. */
export function initialStatus(generation: number, stages: readonly PlannedStage[], now: Date): RolloutStatus {
  return {
    phase: 'Pending',
    generation,
    stages: stages.map((s) => ({
      name: s.name,
      state: 'pending',
      approval: s.approval,
      maxConcurrency: s.maxConcurrency,
      soakSeconds: s.soakSeconds,
      clusters: s.clusters.map((id) => ({ id, state: 'pending' })),
    })),
    updatedAt: now.toISOString(),
  };
}

/**
 * The status with one cluster of one stage patched. A stage or cluster the status does not hold is
 * a caller's bug (the plan is fixed once the rollout starts): InternalError. `updatedAt` is left to
 * the caller, which holds the clock.
 */
export function withCluster(
  status: RolloutStatus,
  stage: string,
  id: string,
  patch: ClusterPatch,
): RolloutStatus {
  const s = status.stages.find((x) => x.name === stage);
  if (!s) throw new InternalError(`rollout status has no stage ${stage}`);
  if (!s.clusters.some((c) => c.id === id))
    throw new InternalError(`stage ${stage} of the rollout status has no cluster ${id}`);
  return {
    ...status,
    stages: status.stages.map((x) =>
      x === s ? { ...x, clusters: x.clusters.map((c) => (c.id === id ? { ...c, ...patch, id } : c)) } : x,
    ),
  };
}

const clustersOf = (status: RolloutStatus) => status.stages.flatMap((s) => s.clusters);

/** Clusters failed across all stages. */
export const failureCount = (status: RolloutStatus): number =>
  clustersOf(status).filter((c) => c.state === 'failed').length;

/** More failures than the policy tolerates: the rollout halts before starting another cluster. */
export function shouldHalt(status: RolloutStatus, policy: Pick<FailurePolicy, 'maxFailures'>): boolean {
  return failureCount(status) > policy.maxFailures;
}

/** One line for CLIs: `Running: stage 2/3 wave-1 inProgress; 4/12 succeeded, 2 in progress, 1 failed`. */
export function summary(status: RolloutStatus): string {
  const all = clustersOf(status);
  const count = (state: ClusterState) => all.filter((c) => c.state === state).length;
  const total = status.stages.length;
  const at = status.stages.findIndex((s) => s.state !== 'succeeded' && s.state !== 'skipped');
  const stage = status.stages[at];
  const where = stage
    ? `stage ${at + 1}/${total} ${stage.name} ${stage.state}`
    : `${total}/${total} stages done`;
  const counts = [`${count('succeeded')}/${all.length} succeeded`];
  if (count('inProgress') > 0) counts.push(`${count('inProgress')} in progress`);
  if (count('failed') > 0) counts.push(`${count('failed')} failed`);
  if (count('skipped') > 0) counts.push(`${count('skipped')} skipped`);
  const halt = status.halt
    ? `; halted: ${status.halt.cluster ? `${status.halt.cluster}: ` : ''}${status.halt.reason}`
    : '';
  return `${status.phase}: ${where}; ${counts.join(', ')}${halt}`;
}

const FINISHED: ReadonlySet<RolloutPhase> = new Set(['Completed', 'Aborted']);

/**
 * True while a rollout may still change clusters: planned and not Completed or Aborted (a halted
 * rollout can resume). Its spec is then frozen: a new generation would change what runs.
 */
export const rolloutActive = (status: RolloutStatus | undefined): boolean =>
  status !== undefined && !FINISHED.has(status.phase);
