/**
 * The CloudRollout `/status` the bridge writes, computed from the rollout record: the phase, the
 * stage in progress, each stage with its clusters and their counts by state, why it halted, the
 * approval it waits for (with the command that gives it), and one `Synced` condition saying whether
 * the CR's spec is the rollout the record holds. Pure: the mirror reads and writes.
 */
import {
  type ClusterState,
  type RolloutClusterStatus,
  type RolloutStatus,
  summary,
} from '../lambdas/core/rollout/status.js';
import type { RolloutRecord } from '../lambdas/store/rollouts.js';

/** The `/status` fields the bridge owns on a CloudRollout. Anything else there is left alone. */
export const ROLLOUT_OWNED_FIELDS = [
  'conditions',
  'observedGeneration',
  'phase',
  'generation',
  'stage',
  'summary',
  'counts',
  'stages',
  'halt',
  'approval',
  'executionArn',
] as const;

export type RolloutCrStatus = Partial<Record<(typeof ROLLOUT_OWNED_FIELDS)[number], unknown>>;

/** The one condition type on a CloudRollout, and its fixed reasons. */
export const SYNCED = 'Synced';
export const RolloutReason = {
  /** The record holds this CR's spec. */
  Mirrored: 'Mirrored',
  /** The spec fails the rollout schema (the webhook normally refuses it first). */
  SpecInvalid: 'SpecInvalid',
  /** The spec changed while the stored rollout is still going: it must be aborted first. */
  RolloutRunning: 'RolloutRunning',
  /** The stored record does not parse. */
  RecordInvalid: 'RecordInvalid',
} as const;
export type RolloutReason = (typeof RolloutReason)[keyof typeof RolloutReason];

export interface SyncedCondition {
  readonly type: typeof SYNCED;
  readonly status: 'True' | 'False';
  readonly reason: RolloutReason;
  readonly message: string;
  readonly observedGeneration: number;
  readonly lastTransitionTime: string;
}

export interface RolloutCounts {
  readonly total: number;
  readonly pending: number;
  readonly inProgress: number;
  readonly succeeded: number;
  readonly failed: number;
  readonly skipped: number;
}

/** Phases after which the rollout does nothing more: a new spec may replace it. */
const FINISHED = new Set<string>(['Completed', 'Aborted']);

/** True while the stored rollout may still change clusters (planned and not Completed or Aborted). */
export const isActive = (record: RolloutRecord): boolean =>
  record.status !== undefined && !FINISHED.has(record.status.phase);

/** What `cloudorch rollout approve` needs to hand a waiting stage its approval. */
export const approveCommand = (id: string, stage: string): string =>
  `cloudorch rollout approve ${id} --stage ${stage}`;

export function countsOf(clusters: readonly RolloutClusterStatus[]): RolloutCounts {
  const n = (state: ClusterState) => clusters.filter((c) => c.state === state).length;
  return {
    total: clusters.length,
    pending: n('pending'),
    inProgress: n('inProgress'),
    succeeded: n('succeeded'),
    failed: n('failed'),
    skipped: n('skipped'),
  };
}

/** The printer column: the first stage not done (`2/3 wave-1`), or `3/3` when all are. */
export function stageColumn(status: RolloutStatus): string {
  const total = status.stages.length;
  const at = status.stages.findIndex((s) => s.state !== 'succeeded' && s.state !== 'skipped');
  const stage = status.stages[at];
  return stage ? `${at + 1}/${total} ${stage.name}` : `${total}/${total}`;
}

/** The record's rollout status as CR fields; absent until an execution planned this generation. */
function progressOf(record: RolloutRecord): RolloutCrStatus {
  const status = record.status;
  const approval = record.approval && {
    stage: record.approval.stage,
    when: record.approval.when,
    requestedAt: record.approval.requestedAt,
    command: approveCommand(record.id, record.approval.stage),
  };
  const base = {
    generation: record.generation,
    ...(record.executionArn ? { executionArn: record.executionArn } : {}),
    ...(approval ? { approval } : {}),
  };
  if (!status || status.generation !== record.generation)
    return { ...base, summary: `waiting for an execution to plan generation ${record.generation}` };
  return {
    ...base,
    phase: status.phase,
    stage: stageColumn(status),
    summary: summary(status),
    counts: countsOf(status.stages.flatMap((s) => s.clusters)),
    stages: status.stages.map((s) => ({ ...s, counts: countsOf(s.clusters) })),
    ...(status.halt ? { halt: status.halt } : {}),
  };
}

/** The `Synced` condition, keeping its lastTransitionTime unless its status flips. */
export function syncedCondition(
  previous: unknown,
  next: Omit<SyncedCondition, 'type' | 'lastTransitionTime'>,
  now: Date,
): SyncedCondition {
  const old = Array.isArray(previous)
    ? (previous as { type?: unknown; status?: unknown; lastTransitionTime?: unknown }[]).find(
        (c) => c?.type === SYNCED,
      )
    : undefined;
  const kept =
    old?.status === next.status && typeof old.lastTransitionTime === 'string'
      ? old.lastTransitionTime
      : now.toISOString();
  return { type: SYNCED, ...next, lastTransitionTime: kept };
}

/**
 * The whole owned status: the record's progress (when there is a record), the condition, and
 * `observedGeneration` when the CR generation the record's spec came from is known.
 */
export function rolloutCrStatus(
  record: RolloutRecord | undefined,
  condition: SyncedCondition,
  observedGeneration: number | undefined,
): RolloutCrStatus {
  return {
    ...(record ? progressOf(record) : {}),
    conditions: [condition],
    ...(observedGeneration !== undefined ? { observedGeneration } : {}),
  };
}
