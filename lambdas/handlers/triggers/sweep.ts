/**
 * sweep (scheduled), the dispatcher: scans one segment of the table, publishes the fleet gauges,
 * groups the records by shard (account, region) and hands runs of up to `shardsPerRun` shards to the
 * shard function (sweep-shard.ts), which decides per cluster whether a run is needed. It calls no
 * EKS API itself. Every item is parsed on its own: a malformed one is reported and never stops the
 * segment; one whose id is a record id goes to the shard run, which starts the one run that marks it.
 */

import { ConditionType, getCondition, Reason } from '../../core/conditions.js';
import {
  groupShards,
  inSegment,
  NO_REGION,
  OWN_ACCOUNT,
  runsOf,
  type Shard,
  shardItemId,
} from '../../core/shard.js';
import type { InvalidItem } from '../../store/record.js';
import type { ClusterRecord } from '../../store/types.js';
import { depsOf } from '../deps.js';
import { timeBucket } from '../execution-name.js';
import { pool } from '../pool.js';
import { emit, log, METRIC } from '../telemetry.js';

export interface SweepOptions {
  readonly segment: number;
  readonly totalSegments: number;
  /** The schedule's period: one sweep execution per cluster per period at most. */
  readonly periodSeconds: number;
  /** Shards per shard run (default 8): many shards in one run overlap their waiting on EKS's rate. */
  readonly shardsPerRun?: number;
  /** Invocations in flight at once (default 8). */
  readonly invokeConcurrency?: number;
  /** What is left of the invocation (Lambda's `getRemainingTimeInMillis`); unbounded without it. */
  readonly remainingMs?: () => number;
}

export const SHARDS_PER_RUN = 8;
const INVOKE_CONCURRENCY = 8;
/**
 * No run is handed over once less than this is left of the invocation: more than one hand-over's
 * worst case (every attempt of the signed Invoke timing out, lambdas/aws/signed-http.ts), so a
 * dispatcher facing an impaired Lambda API ends with the runs it could not hand over counted as
 * errors, instead of being killed at its timeout. The next period hands them over again.
 */
export const INVOKE_RESERVE_MS = 15_000;
/**
 * A run's payload stays below this, well under Lambda's limit for an asynchronous invocation's
 * payload (256 KB when this was set; 1 MB since): about 1,800 clusters of the longest ids in one
 * shard, far more than one shard can check in a period.
 */
export const MAX_RUN_PAYLOAD_BYTES = 200 * 1024;

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
    const reason = getCondition(r.status?.conditions ?? [], ConditionType.Ready)?.reason ?? 'NoStatus';
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

export interface SweepReport {
  /** Items scanned, records and malformed ones. */
  readonly scanned: number;
  /** Items that do not parse as records (reported; a usable id goes to a shard run that marks it). */
  readonly invalid: number;
  /** Shards (account, region) the records fall in. */
  readonly shards: number;
  /** Shard runs handed to the shard function. */
  readonly runs: number;
  /** Runs that could not be handed over, and shards too large for one run: their clusters wait a period. */
  readonly errors: number;
}

/** A malformed item is reported every sweep; true when its id should get the one run that marks it. */
function onInvalid(item: InvalidItem): boolean {
  emit(METRIC.RecordsInvalid, 1);
  log().warn('skipping a malformed record', { clusterId: item.id, reason: item.reason });
  return item.usable && !item.marked;
}

/** Every record of the segment, grouped by shard, and the malformed items to mark. */
async function scan(opts: SweepOptions) {
  const { store, now } = depsOf('sweep');
  const records: { id: string; spec: ClusterRecord['spec'] }[] = [];
  const toMark: string[] = [];
  const byCondition: Record<string, number> = {};
  let scanned = 0;
  let invalid = 0;
  let maxDriftAgeSeconds = 0;
  let next: string | undefined;
  do {
    const page = await store.scanSegment(opts.segment, opts.totalSegments, next ? { next } : {});
    next = page.next;
    scanned += page.records.length + page.invalid.length;
    invalid += page.invalid.length;
    const g = fleetGauges(page.records, now(), page.invalid.length);
    for (const [k, v] of Object.entries(g.byCondition)) byCondition[k] = (byCondition[k] ?? 0) + v;
    maxDriftAgeSeconds = Math.max(maxDriftAgeSeconds, g.maxDriftAgeSeconds);
    for (const item of page.invalid) if (onInvalid(item)) toMark.push(item.id);
    for (const r of page.records) records.push({ id: r.id, spec: r.spec });
  } while (next);
  return { records, toMark, byCondition, scanned, invalid, maxDriftAgeSeconds };
}

/** Malformed items carry no target: their shard is the own account's with no region (no EKS call). */
function withMarks(shards: Shard[], toMark: readonly string[], ownAccountId?: string): Shard[] {
  if (toMark.length === 0) return shards;
  const key = { accountId: ownAccountId ?? OWN_ACCOUNT, region: NO_REGION };
  const i = shards.findIndex((s) => shardItemId(s) === shardItemId(key));
  const ids = [...(shards[i]?.ids ?? []), ...toMark].sort();
  const merged = { ...key, ids };
  return i < 0 ? [...shards, merged] : shards.map((s, j) => (j === i ? merged : s));
}

/**
 * Hands each run to the shard function, 8 at a time, while the invocation has time for another
 * hand-over's worst case; a run not handed over is an error, and the next period hands it over.
 */
async function handOver(
  runs: readonly Shard[][],
  periodBucket: string,
  opts: SweepOptions,
): Promise<{ invoked: number; errors: number }> {
  const { shardInvoker } = depsOf('sweep');
  let invoked = 0;
  let errors = 0;
  const remaining = opts.remainingMs ?? (() => Number.POSITIVE_INFINITY);
  const invoke = async (run: Shard[]) => {
    try {
      await shardInvoker.invoke({ periodBucket, shards: run });
      invoked += 1;
    } catch (err) {
      errors += 1;
      log().warn('sweep could not hand a run to the shard function', {
        shards: run.map(shardItemId),
        error: String(err),
      });
    }
  };
  const open = () => remaining() > INVOKE_RESERVE_MS;
  const taken = await pool(runs, opts.invokeConcurrency ?? INVOKE_CONCURRENCY, invoke, open);
  if (taken < runs.length) {
    errors += runs.length - taken;
    log().error('sweep ran out of time before handing every run over: the next period hands them over', {
      runsLeft: runs.length - taken,
      shards: runs.slice(taken).flat().map(shardItemId),
    });
  }
  return { invoked, errors };
}

export async function sweep(opts: SweepOptions): Promise<SweepReport> {
  const { config, now } = depsOf('sweep');
  const periodBucket = timeBucket(now(), opts.periodSeconds);
  const s = await scan(opts);
  const shards = inSegment(
    withMarks(groupShards(s.records, config.ownAccountId), s.toMark, config.ownAccountId),
    opts.segment,
    opts.totalSegments,
  );
  const { runs, oversized } = runsOf(shards, opts.shardsPerRun ?? SHARDS_PER_RUN, MAX_RUN_PAYLOAD_BYTES);
  let errors = 0;
  for (const o of oversized) {
    errors += 1;
    log().error('a shard holds too many clusters for one shard run: it is not swept', {
      shard: shardItemId(o),
      clusters: o.ids.length,
      remediation: 'Spread its clusters over more accounts or regions.',
    });
  }
  // The fleet's gauges first: a dispatcher that runs out of time still publishes them.
  emit(METRIC.SweepClusters, s.scanned);
  for (const [reason, n] of Object.entries(s.byCondition))
    emit(METRIC.ClustersByCondition, n, { Reason: reason });
  emit(METRIC.DriftOutstandingSeconds, s.maxDriftAgeSeconds, {}, 'Seconds');
  const handed = await handOver(runs, periodBucket, opts);
  return {
    scanned: s.scanned,
    invalid: s.invalid,
    shards: shards.length,
    runs: handed.invoked,
    errors: errors + handed.errors,
  };
}
