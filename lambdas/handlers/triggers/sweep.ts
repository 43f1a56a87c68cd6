/**
 * sweep (scheduled): scans one segment of the table and starts an execution only where there is
 * work: a stale status, a pending deletion, a dead execution (its lease names an execution that
 * ended), drift, lost ownership, a status that no longer holds, or a plan with something to do. It
 * observes and plans each cluster itself with bounded concurrency; the provider's per-region rate
 * limit (every HTTP attempt, retries included) keeps it under the configured EKS call rate. Cost
 * grows with change, not with fleet size. Every item is parsed on its own: a malformed one is
 * reported and skipped, never stops the segment. Failing clusters wait out the backoff stored on
 * their record (core/backoff.ts).
 */

import { Reason } from '../../core/conditions.js';
import type { InvalidItem } from '../../store/record.js';
import type { ClusterRecord } from '../../store/types.js';
import { depsOf } from '../deps.js';
import { executionName, timeBucket } from '../execution-name.js';
import { emit, log, METRIC } from '../telemetry.js';
import { decide, readyReason } from './sweep-decide.js';

export { OBSERVE_CALLS } from './sweep-decide.js';

export interface SweepOptions {
  readonly segment: number;
  readonly totalSegments: number;
  /** The schedule's period: one sweep execution per cluster per period at most. */
  readonly periodSeconds: number;
  readonly concurrency: number;
}

/**
 * Fleet gauges the sweep publishes from what it scanned: clusters by Ready reason, and how long the
 * oldest uncorrected drift has been open. Per cluster, so one correction cannot mask another drift.
 */
export function fleetGauges(
  records: readonly ClusterRecord[],
  now: Date,
  invalid = 0,
): { byCondition: Record<string, number>; maxDriftAgeSeconds: number } {
  const byCondition: Record<string, number> = invalid > 0 ? { [Reason.RecordInvalid]: invalid } : {};
  let maxDriftAgeSeconds = 0;
  for (const r of records) {
    const conds = r.status?.conditions ?? [];
    const reason = readyReason(r) ?? 'NoStatus';
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
  /** Items that do not parse as records (reported, and skipped or handed to a run that marks them). */
  readonly invalid: number;
  readonly reasons: Record<string, number>;
}

/**
 * A malformed item is reported every sweep. One whose id is a record id gets one run that writes a
 * RecordInvalid condition on it (unless one already did); nothing else is done for it.
 */
function onInvalid(item: InvalidItem): boolean {
  emit(METRIC.RecordsInvalid, 1);
  log().warn('skipping a malformed record', { clusterId: item.id, reason: item.reason });
  return item.usable && !item.marked;
}

export async function sweep(opts: SweepOptions): Promise<SweepReport> {
  const { store, executions, now } = depsOf('sweep');
  const bucket = timeBucket(now(), opts.periodSeconds);
  const reasons: Record<string, number> = {};
  let scanned = 0;
  let invalid = 0;
  const byCondition: Record<string, number> = {};
  let maxDriftAgeSeconds = 0;
  let started = 0;
  let errors = 0;
  const start = async (id: string, generation: number, createdAt?: string) => {
    const res = await executions.start(executionName(id, generation, 'sweep', bucket, createdAt), {
      id,
      trigger: 'sweep',
    });
    if (res.started) {
      started += 1;
      emit(METRIC.ExecutionsStarted, 1, { Trigger: 'sweep' });
    }
  };
  let next: string | undefined;
  do {
    const page = await store.scanSegment(opts.segment, opts.totalSegments, next ? { next } : {});
    next = page.next;
    scanned += page.records.length + page.invalid.length;
    invalid += page.invalid.length;
    const g = fleetGauges(page.records, now(), page.invalid.length);
    for (const [k, v] of Object.entries(g.byCondition)) byCondition[k] = (byCondition[k] ?? 0) + v;
    maxDriftAgeSeconds = Math.max(maxDriftAgeSeconds, g.maxDriftAgeSeconds);
    for (const item of page.invalid) {
      try {
        if (onInvalid(item)) await start(item.id, 0);
      } catch (err) {
        errors += 1;
        log().warn('sweep could not start a run for a malformed record', {
          clusterId: item.id,
          error: String(err),
        });
      }
    }
    await pool(page.records, opts.concurrency, async (r) => {
      try {
        const d = await decide(r);
        const key = d.why.split(':')[0]!;
        reasons[key] = (reasons[key] ?? 0) + 1;
        if (d.start) await start(r.id, r.generation, r.createdAt);
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
  return { scanned, started, skipped: scanned - started - errors, errors, invalid, reasons };
}
