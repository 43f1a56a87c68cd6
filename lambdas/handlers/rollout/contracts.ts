/**
 * What the Rollout state machine hands its steps and gets back (rollout-definition.ts wires them).
 * Every step input carries the rollout id and the generation the execution runs, so a step of an
 * execution whose rollout changed under it acts on nothing.
 */
import type { PlannedStage } from '../../core/rollout/stages.js';

export interface RolloutRef {
  readonly id: string;
  readonly generation: number;
}

export interface RolloutPlanInput {
  readonly id: string;
  /** This execution: `cloudorch rollout abort` stops it. */
  readonly executionArn: string;
}

export interface RolloutPlanOutput extends RolloutRef {
  readonly stages: readonly PlannedStage[];
}

export interface ClusterStepInput extends RolloutRef {
  readonly stage: string;
  readonly cluster: string;
}

/**
 * A cluster's run through its stage. `started`: the change is written (or was already there) and the
 * cluster is being watched; `done`: it succeeded in an earlier attempt; `skipped`: the rollout halted
 * or was aborted before it started; `succeeded` / `failed`: the watch ended.
 */
export type ClusterRun =
  | {
      readonly state: 'started';
      readonly generation: number;
      readonly startedAtMs: number;
      readonly readyAtMs?: number;
    }
  | { readonly state: 'done' | 'skipped' | 'succeeded' | 'failed'; readonly reason?: string };

export interface WatchInput extends ClusterStepInput {
  readonly run: ClusterRun;
}

/** A caught step error, as the state machine's Catch hands it on. */
export interface CaughtStepError {
  readonly Error?: string;
  readonly Cause?: string;
}

export type ReportInput =
  | (RolloutRef & { readonly event: 'stageStart' | 'stageEnd' | 'soak'; readonly stage: string })
  | (RolloutRef & { readonly event: 'approved'; readonly stage: string; readonly when: 'before' | 'after' })
  | (RolloutRef & {
      readonly event: 'awaitApproval';
      readonly stage: string;
      readonly when: 'before' | 'after';
      readonly token: string;
    })
  | (ClusterStepInput & { readonly event: 'clusterFailed'; readonly error: CaughtStepError })
  | (RolloutRef & { readonly event: 'complete' })
  | { readonly event: 'failed'; readonly id: string; readonly error: CaughtStepError };

/** What StageStart, StageEnd and an approval tell the stage: stop here. */
export interface GateOutput {
  readonly halted: boolean;
  /** The stage finished in an earlier attempt of this generation (only StageStart says true). */
  readonly finished: boolean;
}

export interface SoakOutput {
  readonly done: boolean;
  readonly waitSeconds: number;
}
