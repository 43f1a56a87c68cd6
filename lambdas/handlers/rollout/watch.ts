/**
 * Watch one cluster of a stage: Ready at the rollout's generation within the ready timeout, then Ready
 * and undrifted through the health window. The verdict is written to the rollout's status; a failure
 * that takes the failures past the policy's allowance halts the rollout, and so does any of the
 * policy's CloudWatch alarms in ALARM.
 */
import { clusterProgress } from '../../core/rollout/progress.js';
import { clusterFailed, clusterSucceeded, haltFor, withCluster } from '../../core/rollout/transitions.js';
import { depsOf } from '../deps.js';
import { emit, METRIC } from '../telemetry.js';
import type { ClusterRun, WatchInput } from './contracts.js';
import { failurePolicyOrThrow, readRollout } from './read.js';

export async function rolloutWatchStep(input: WatchInput): Promise<ClusterRun> {
  const { rollouts, store, alarms, now } = depsOf('rolloutWatch');
  if (input.run.state !== 'started') return input.run;
  const rec = await readRollout(rollouts, input.id);
  const policy = failurePolicyOrThrow(rec.id, rec.spec);
  const firing = policy.alarms.length > 0 ? await alarms.inAlarm(policy.alarms) : [];
  if (firing.length > 0) {
    const reason = `alarm ${firing.join(', ')} is in ALARM`;
    await rollouts.update(
      rec.id,
      (r) => (r.status ? { status: haltFor(r.status, reason, input.cluster, now()) } : undefined),
      now(),
    );
  }
  const cluster = await store.get(input.cluster);
  const p = clusterProgress({
    status: cluster?.status,
    targetGeneration: input.run.generation,
    startedAtMs: input.run.startedAtMs,
    ...(input.run.readyAtMs !== undefined ? { readyAtMs: input.run.readyAtMs } : {}),
    nowMs: now().getTime(),
    policy,
  });
  if (!cluster || p.verdict === 'failed') {
    const reason = cluster ? p.reason : 'its record was deleted';
    await rollouts.update(
      rec.id,
      (r) =>
        r.status
          ? { status: clusterFailed(r.status, input.stage, input.cluster, reason, policy, now()) }
          : undefined,
      now(),
    );
    emit(METRIC.RolloutClusters, 1, { Outcome: 'Failed' });
    return { state: 'failed', reason };
  }
  if (p.verdict === 'healthy') {
    await rollouts.update(
      rec.id,
      (r) =>
        r.status ? { status: clusterSucceeded(r.status, input.stage, input.cluster, now()) } : undefined,
      now(),
    );
    emit(METRIC.RolloutClusters, 1, { Outcome: 'Succeeded' });
    return { state: 'succeeded' };
  }
  if (p.readyAtMs !== undefined && input.run.readyAtMs === undefined)
    await markReady(input, p.readyAtMs, now());
  return { ...input.run, ...(p.readyAtMs !== undefined ? { readyAtMs: p.readyAtMs } : {}) };
}

/** The first look that finds the cluster Ready at its generation: the health window starts. */
async function markReady(input: WatchInput, readyAtMs: number, now: Date): Promise<void> {
  const { rollouts } = depsOf('rolloutWatch');
  await rollouts.update(
    input.id,
    (r) =>
      r.status
        ? {
            status: withCluster(r.status, input.stage, input.cluster, {
              readyAt: new Date(readyAtMs).toISOString(),
              reason: 'Ready at its generation; watching the health window',
            }),
          }
        : undefined,
    now,
  );
}
