/**
 * The rollout's bookkeeping between clusters: stage starts and ends, approvals (storing the task
 * token a stage waits on), soaks on the reconciler's clock, a cluster failure the state machine
 * caught, completion and failure. It notifies when a rollout waits for approval, halts or completes.
 */
import type { RolloutStatus } from '../../core/rollout/status.js';
import {
  approvalRequested,
  approvedStage,
  clusterFailed,
  completed,
  endStage,
  failedRollout,
  soakState,
  startStage,
  stopReason,
} from '../../core/rollout/transitions.js';
import type { RolloutRecord } from '../../store/rollouts.js';
import { depsOf } from '../deps.js';
import { emit, METRIC } from '../telemetry.js';
import type { CaughtStepError, GateOutput, ReportInput, SoakOutput } from './contracts.js';
import { failurePolicyOrThrow, readRollout } from './read.js';

const finished = (s: RolloutStatus, stage: string) =>
  s.stages.find((x) => x.name === stage)?.state === 'succeeded';

type Deps = ReturnType<typeof depsOf<'rolloutReport'>>;

/** The message a caught error carries: the step's envelope message when there is one. */
function causeOf(e: CaughtStepError): string {
  try {
    const c = JSON.parse(e.Cause ?? '') as { errorMessage?: string };
    const env = JSON.parse(c.errorMessage ?? '') as { message?: string };
    return env.message ?? c.errorMessage ?? e.Cause ?? e.Error ?? 'unknown error';
  } catch {
    return e.Cause ?? e.Error ?? 'unknown error';
  }
}

async function gate(d: Deps, rec: RolloutRecord, generation: number): Promise<GateOutput> {
  const stop = stopReason(rec, generation);
  if (stop && rec.status?.phase === 'Halted') {
    emit(METRIC.RolloutsHalted);
    await notify(d, rec, `halted: ${rec.status.halt?.reason ?? stop}`);
  }
  return { halted: stop !== undefined, finished: false };
}

async function notify(d: Deps, rec: RolloutRecord, what: string): Promise<void> {
  await d.notifier.publish(
    `CloudOrch rollout ${rec.id} ${what.split(':')[0]}`,
    `Rollout ${rec.id} (generation ${rec.generation}) ${what}.`,
  );
}

type Event<E extends ReportInput['event']> = Extract<ReportInput, { event: E }>;

/** Stores the token the stage waits on and tells people; the task stays open until approval. */
async function awaitApproval(d: Deps, input: Event<'awaitApproval'>): Promise<null> {
  const now = d.now();
  const rec = await d.rollouts.update(
    input.id,
    (r) =>
      r.status
        ? {
            status: approvalRequested(r.status, input.stage, input.when, now),
            approval: {
              stage: input.stage,
              when: input.when,
              token: input.token,
              requestedAt: now.toISOString(),
            },
          }
        : undefined,
    now,
  );
  emit(METRIC.RolloutApprovalsRequested);
  await notify(
    d,
    rec,
    `waits for approval ${input.when} stage ${input.stage}: cloudorch rollout approve ${rec.id} --stage ${input.stage}`,
  );
  return null;
}

/** A cluster step failed in a way its iteration caught: the cluster failed, maybe the rollout halts. */
async function failCluster(d: Deps, input: Event<'clusterFailed'>): Promise<null> {
  const rec = await readRollout(d.rollouts, input.id);
  const policy = failurePolicyOrThrow(rec.id, rec.spec);
  const reason = causeOf(input.error);
  const now = d.now();
  await d.rollouts.update(
    input.id,
    (r) =>
      r.status
        ? { status: clusterFailed(r.status, input.stage, input.cluster, reason, policy, now) }
        : undefined,
    now,
  );
  emit(METRIC.RolloutClusters, 1, { Outcome: 'Failed' });
  return null;
}

export async function rolloutReportStep(input: ReportInput): Promise<GateOutput | SoakOutput | null> {
  const d = depsOf('rolloutReport');
  const { rollouts, now } = d;
  const update = (f: Parameters<typeof rollouts.update>[1]) => rollouts.update(input.id, f, now());
  switch (input.event) {
    case 'stageStart': {
      const rec = await update((r) =>
        !stopReason(r, input.generation) && r.status && !finished(r.status, input.stage)
          ? { status: startStage(r.status, input.stage, now()) }
          : undefined,
      );
      const gated = await gate(d, rec, input.generation);
      return rec.status && finished(rec.status, input.stage) ? { ...gated, finished: true } : gated;
    }
    case 'awaitApproval':
      return awaitApproval(d, input);
    case 'approved': {
      const rec = await update((r) =>
        r.status
          ? { status: approvedStage(r.status, input.stage, input.when, now()), clear: ['approval'] }
          : undefined,
      );
      return gate(d, rec, input.generation);
    }
    case 'stageEnd': {
      const pre = await readRollout(rollouts, input.id);
      const policy = failurePolicyOrThrow(pre.id, pre.spec);
      const rec = await update((r) =>
        r.status ? { status: endStage(r.status, input.stage, policy, now()) } : undefined,
      );
      return gate(d, rec, input.generation);
    }
    case 'soak': {
      const rec = await update((r) =>
        r.status ? { status: soakState(r.status, input.stage, now()).status } : undefined,
      );
      return rec.status ? soakState(rec.status, input.stage, now()).output : { done: true, waitSeconds: 0 };
    }
    case 'clusterFailed':
      return failCluster(d, input);
    case 'complete': {
      const rec = await update((r) => (r.status ? { status: completed(r.status, now()) } : undefined));
      await rollouts.unlock(rec.id, rec.status?.stages.flatMap((s) => s.clusters.map((c) => c.id)) ?? []);
      emit(METRIC.RolloutsCompleted);
      await notify(d, rec, 'completed');
      return null;
    }
    case 'failed': {
      const reason = causeOf(input.error);
      const rec = await update((r) => ({ status: failedRollout(r.status, r.generation, reason, now()) }));
      emit(METRIC.RolloutsHalted);
      await notify(d, rec, `halted: ${reason}`);
      return null;
    }
  }
}
