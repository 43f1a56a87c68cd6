/**
 * sweep (scheduled): scans one segment of the table and starts an execution only where there is
 * work: a stale status, a pending deletion, a dead execution (expired lease), drift, or a plan with
 * something to do. It observes and plans each cluster itself with bounded concurrency; the
 * provider's per-region rate limit (every HTTP attempt, retries included) keeps it under the
 * configured EKS call rate. Cost grows with change, not with fleet size. Failing clusters
 * are retried with exponential backoff derived from their history (no requeue storms).
 */

import { detectDrift } from '../../core/plan/fields.js';
import { firstAction, plan } from '../../core/plan/plan.js';
import { validateSpec } from '../../core/spec/validate.js';
import type { ClusterRecord } from '../../store/types.js';
import { deps } from '../deps.js';
import { executionName, timeBucket } from '../execution-name.js';
import { emit, log, METRIC } from '../telemetry.js';

export interface SweepOptions {
  readonly segment: number;
  readonly totalSegments: number;
  /** The schedule's period: one sweep execution per cluster per period at most. */
  readonly periodSeconds: number;
  readonly concurrency: number;
}

const BACKOFF_BASE_MS = 60_000;
const BACKOFF_CAP_MS = 6 * 3_600_000;

/**
 * EKS calls of observing a quiet cluster with its one node group (DescribeCluster, ListNodegroups,
 * DescribeNodegroup): what capacity estimates divide the per-region rate by.
 */
export const OBSERVE_CALLS = 3;

/**
 * Fleet gauges the sweep publishes from what it scanned: clusters by Ready reason, and how long the
 * oldest uncorrected drift has been open. Per cluster, so one correction cannot mask another drift.
 */
export function fleetGauges(
  records: readonly ClusterRecord[],
  now: Date,
): { byCondition: Record<string, number>; maxDriftAgeSeconds: number } {
  const byCondition: Record<string, number> = {};
  let maxDriftAgeSeconds = 0;
  for (const r of records) {
    const conds = r.status?.conditions ?? [];
    const reason = conds.find((c) => c.type === 'Ready')?.reason ?? 'NoStatus';
    byCondition[reason] = (byCondition[reason] ?? 0) + 1;
    const drifted = conds.find((c) => c.type === 'Drifted' && c.status === 'True');
    if (drifted)
      maxDriftAgeSeconds = Math.max(
        maxDriftAgeSeconds,
        (now.getTime() - Date.parse(drifted.lastTransitionTime)) / 1000,
      );
  }
  return { byCondition, maxDriftAgeSeconds };
}

export type SweepDecision = { start: false; why: string } | { start: true; why: string };

/** Exponential backoff from the run of trailing errors in the history. */
export function backoffUntil(r: ClusterRecord): number | undefined {
  const h = r.history ?? [];
  let errors = 0;
  let lastAt: string | undefined;
  for (let i = h.length - 1; i >= 0; i--) {
    const e = h[i]!;
    if (e.kind === 'status') continue;
    if (e.kind !== 'error' || e.generation !== r.generation) break;
    errors += 1;
    lastAt ??= e.at;
  }
  if (errors === 0 || !lastAt) return undefined;
  return Date.parse(lastAt) + Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (errors - 1));
}

/** What the sweep can decide from the record alone, without calling EKS. */
export function decideFromRecord(r: ClusterRecord, now: Date): SweepDecision | undefined {
  if (r.lease && r.lease.expiresAt > now.getTime())
    return { start: false, why: 'an execution holds the lease' };
  if (r.lease) return { start: true, why: 'dead execution (lease expired)' };
  const until = backoffUntil(r);
  if (until !== undefined && until > now.getTime()) return { start: false, why: 'backing off after errors' };
  if (r.deletionRequestedAt) return { start: true, why: 'deletion pending' };
  if (!r.status || r.status.observedGeneration !== r.generation)
    return { start: true, why: 'status is stale' };
  if (!validateSpec(r.spec).ok) return { start: false, why: 'spec invalid: waiting for a spec change' };
  return undefined;
}

async function decide(r: ClusterRecord): Promise<SweepDecision> {
  const { provider, config, now } = deps();
  const quick = decideFromRecord(r, now());
  if (quick) return quick;
  const v = validateSpec(r.spec);
  if (!v.ok) return { start: false, why: 'spec invalid' };
  if (v.spec.paused) return { start: false, why: 'paused' };
  const observation = await provider.observe(
    { clusterName: v.spec.clusterName, region: v.spec.region },
    { trackedUpdates: r.trackedUpdates ?? [] },
  );
  const d = { id: r.id, spec: v.spec, generation: r.generation, deletionRequested: false };
  const action = firstAction(plan(d, observation, config.defaults));
  const drift = detectDrift(v.spec, observation, config.defaults);
  if (drift.length > 0) return { start: true, why: `drift: ${drift.map((x) => x.field).join(', ')}` };
  if (action) return { start: true, why: action.kind === 'Wait' ? 'in progress' : 'work to do' };
  if (!r.status?.ready) return { start: true, why: 'converged but status not ready' };
  return { start: false, why: 'in sync' };
}

async function pool<T>(items: readonly T[], concurrency: number, f: (t: T) => Promise<void>): Promise<void> {
  let i = 0;
  const workers = Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (i < items.length) {
      const item = items[i++]!;
      await f(item);
    }
  });
  await Promise.all(workers);
}

export interface SweepReport {
  readonly scanned: number;
  readonly started: number;
  readonly skipped: number;
  readonly errors: number;
  readonly reasons: Record<string, number>;
}

export async function sweep(opts: SweepOptions): Promise<SweepReport> {
  const { store, executions, now } = deps();
  const bucket = timeBucket(now(), opts.periodSeconds);
  const reasons: Record<string, number> = {};
  let scanned = 0;
  const byCondition: Record<string, number> = {};
  let maxDriftAgeSeconds = 0;
  let started = 0;
  let errors = 0;
  let next: string | undefined;
  do {
    const page = await store.scanSegment(opts.segment, opts.totalSegments, next ? { next } : {});
    next = page.next;
    scanned += page.records.length;
    const g = fleetGauges(page.records, now());
    for (const [k, v] of Object.entries(g.byCondition)) byCondition[k] = (byCondition[k] ?? 0) + v;
    maxDriftAgeSeconds = Math.max(maxDriftAgeSeconds, g.maxDriftAgeSeconds);
    await pool(page.records, opts.concurrency, async (r) => {
      try {
        const d = await decide(r);
        const key = d.why.split(':')[0]!;
        reasons[key] = (reasons[key] ?? 0) + 1;
        if (!d.start) return;
        const res = await executions.start(executionName(r.id, r.generation, 'sweep', bucket), {
          id: r.id,
          trigger: 'sweep',
        });
        if (res.started) {
          started += 1;
          emit(METRIC.ExecutionsStarted, 1, { Trigger: 'sweep' });
        }
      } catch (err) {
        errors += 1;
        log().warn('sweep could not decide for a cluster', { clusterId: r.id, error: String(err) });
      }
    });
  } while (next);
  emit(METRIC.SweepClusters, scanned);
  for (const [reason, n] of Object.entries(byCondition))
    emit(METRIC.ClustersByCondition, n, { Reason: reason });
  emit(METRIC.DriftOutstandingSeconds, maxDriftAgeSeconds, {}, 'Seconds');
  return { scanned, started, skipped: scanned - started - errors, errors, reasons };
}
