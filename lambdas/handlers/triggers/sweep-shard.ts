/**
 * sweepShard: one run of a few sweep shards, each an (account, region), all at once. Per shard it
 * takes the shard's lease (a shard already running is skipped and counted: two runs of one shard
 * never overlap), reads its records, and checks them from where the last run stopped (the cursor)
 * with bounded concurrency until the window closes, starting an execution only where `decide` finds
 * work. Then it stores the cursor and releases the lease. A shard that could not check all of its
 * clusters in the window is degraded: its clusters are checked less often than once a period
 * (SweepCadenceSeconds says how often), and SweepShardsDegraded raises the alarm. EKS calls go
 * through the provider, so the (account, region) budget paces them. One shard's failure, or one
 * malformed record, hurts only itself.
 */
import { randomUUID } from 'node:crypto';
import { cadenceOf, fromCursor, type ShardKey, shardItemId } from '../../core/shard.js';
import { EksBudgetExhaustedError } from '../../store/errors.js';
import type { ShardRunPayload } from '../contracts.js';
import { depsOf } from '../deps.js';
import { executionName } from '../execution-name.js';
import { pool } from '../pool.js';
import { emit, log, METRIC } from '../telemetry.js';
import { decide } from './sweep-decide.js';

export interface ShardRunOptions {
  /** The sweep period: a shard that checks all its clusters in a window is checked once per period. */
  readonly periodSeconds: number;
  /** Clusters of one shard checked at once. */
  readonly concurrency: number;
  /** How long this run checks clusters (the period less a margin, see core/shard.ts `windowMs`). */
  readonly windowMs: number;
  /** How long the lease holds: at least as long as this run can last, so a crashed run frees it. */
  readonly leaseMs: number;
  /** Seconds between two full observations of a cluster (the other looks are checks). */
  readonly fullObservePeriodSeconds: number;
}

export interface ShardResult {
  readonly shard: string;
  /** Another run held the lease: nothing was checked. */
  readonly skipped: boolean;
  readonly clusters: number;
  readonly checked: number;
  readonly started: number;
  readonly errors: number;
  /** Items that do not parse as records (a usable id gets the one run that marks it). */
  readonly invalid: number;
  readonly degraded: boolean;
  readonly cadenceSeconds?: number;
  /** Decisions by why (the text before any colon). */
  readonly reasons: Record<string, number>;
}

export interface ShardRunReport {
  readonly shards: readonly ShardResult[];
}

/** What one shard's run did, counted as it goes. */
class Tally {
  clusters = 0;
  checked = 0;
  started = 0;
  errors = 0;
  invalid = 0;
  readonly reasons: Record<string, number> = {};
  reason(why: string): void {
    const key = why.split(':')[0] ?? why;
    this.reasons[key] = (this.reasons[key] ?? 0) + 1;
  }
}

async function start(t: Tally, name: string, id: string): Promise<void> {
  const { executions } = depsOf('sweepShard');
  const res = await executions.start(name, { id, trigger: 'sweep' });
  if (res.started) {
    t.started += 1;
    emit(METRIC.ExecutionsStarted, 1, { Trigger: 'sweep' });
  }
}

/** Reads the shard's records and checks them from the cursor until the deadline; the new cursor. */
async function check(
  key: ShardKey,
  ids: readonly string[],
  cursor: string | undefined,
  bucket: string,
  deadline: number,
  opts: ShardRunOptions,
  t: Tally,
): Promise<string | undefined> {
  const { store, now } = depsOf('sweepShard');
  const { records, invalid } = await store.getMany(ids);
  t.invalid = invalid.length;
  for (const item of invalid) {
    log().warn('sweep shard found a malformed record', { clusterId: item.id, reason: item.reason });
    if (!item.usable || item.marked) continue;
    try {
      await start(t, executionName(item.id, 0, 'sweep', bucket), item.id);
    } catch (err) {
      t.errors += 1;
      log().warn('sweep could not start a run for a malformed record', {
        clusterId: item.id,
        error: String(err),
      });
    }
  }
  const byId = new Map(records.map((r) => [r.id, r]));
  const order = fromCursor([...byId.keys()], cursor);
  t.clusters = order.length;
  // The budget refused a slot (reconciles hold the queue): the shard yields, and the clusters it did
  // not get to are checked first next period.
  let yielded: number | undefined;
  const tiers = {
    periodSeconds: opts.periodSeconds,
    fullObservePeriodSeconds: opts.fullObservePeriodSeconds,
  };
  const taken = await pool(
    order.map((id, index) => ({ id, index })),
    opts.concurrency,
    async ({ id, index }) => {
      const r = byId.get(id);
      if (!r) return;
      try {
        const d = await decide(r, tiers);
        t.reason(d.why);
        if (d.start) await start(t, executionName(r.id, r.generation, 'sweep', bucket, r.createdAt), r.id);
      } catch (err) {
        if (err instanceof EksBudgetExhaustedError) {
          yielded = Math.min(yielded ?? index, index);
          return;
        }
        t.errors += 1;
        log().warn('sweep could not decide for a cluster', { clusterId: r.id, error: String(err) });
      }
    },
    () => yielded === undefined && now().getTime() < deadline,
  );
  const done = yielded ?? taken;
  t.checked = done;
  if (yielded !== undefined) t.reason('yielded to reconciles (EKS budget queue full)');
  log().debug('sweep shard checked', { shard: shardItemId(key), checked: done, of: order.length });
  return done > 0 ? order[done - 1] : cursor;
}

function report(key: ShardKey, t: Tally, periodSeconds: number): ShardResult {
  const dims = { Account: key.accountId, Region: key.region };
  const c = cadenceOf(t.clusters, t.checked, periodSeconds);
  // Series per (account, region) only for a degraded shard: a custom metric is billed per dimension
  // set, and 200 shards would otherwise publish 800 series every period. The counts go out per run.
  if (!c.complete) {
    if (c.effectiveSeconds !== undefined)
      emit(METRIC.SweepCadenceSeconds, c.effectiveSeconds, dims, 'Seconds');
    emit(METRIC.SweepShardsDegraded, 1, dims);
  }
  if (!c.complete)
    log().warn('sweep shard could not check all of its clusters in one period', {
      shard: shardItemId(key),
      clusters: t.clusters,
      checked: t.checked,
      cadenceSeconds: c.effectiveSeconds,
    });
  return {
    shard: shardItemId(key),
    skipped: false,
    clusters: t.clusters,
    checked: t.checked,
    started: t.started,
    errors: t.errors,
    invalid: t.invalid,
    degraded: !c.complete,
    ...(c.effectiveSeconds !== undefined ? { cadenceSeconds: c.effectiveSeconds } : {}),
    reasons: t.reasons,
  };
}

async function runShard(
  shard: ShardRunPayload['shards'][number],
  bucket: string,
  holder: string,
  deadline: number,
  opts: ShardRunOptions,
): Promise<ShardResult> {
  const { shardLeases, now } = depsOf('sweepShard');
  const key: ShardKey = {
    accountId: shard.accountId,
    region: shard.region,
    ...(shard.segment ? { segment: shard.segment } : {}),
  };
  const t = new Tally();
  // Counted before anything can fail: a shard that checks nothing is degraded, never complete.
  t.clusters = shard.ids.length;
  const at = now();
  let lease: Awaited<ReturnType<typeof shardLeases.take>>;
  try {
    lease = await shardLeases.take(key, holder, at.getTime() + opts.leaseMs, at);
  } catch (err) {
    t.errors += 1;
    log().warn('sweep shard could not take its lease', { shard: shardItemId(key), error: String(err) });
    return report(key, t, opts.periodSeconds);
  }
  if (!lease.taken) {
    // Its last run still holds it: this period's checks of the shard do not happen (degraded).
    log().info('sweep shard is already running: skipped', { shard: shardItemId(key) });
    return { ...report(key, t, opts.periodSeconds), skipped: true };
  }
  let cursor = lease.cursor;
  try {
    cursor = await check(key, shard.ids, lease.cursor, bucket, deadline, opts, t);
  } catch (err) {
    t.errors += 1;
    log().warn('sweep shard could not check its clusters', { shard: shardItemId(key), error: String(err) });
  } finally {
    try {
      if (!(await shardLeases.release(key, holder, cursor, now())))
        log().warn('sweep shard lost its lease before releasing it', { shard: shardItemId(key) });
    } catch (err) {
      // The lease then expires by itself; the next run starts from the previous cursor.
      log().warn('sweep shard could not release its lease', { shard: shardItemId(key), error: String(err) });
    }
  }
  return report(key, t, opts.periodSeconds);
}

export async function sweepShard(payload: ShardRunPayload, opts: ShardRunOptions): Promise<ShardRunReport> {
  const { now } = depsOf('sweepShard');
  const deadline = now().getTime() + opts.windowMs;
  const holder = `${payload.periodBucket}:${randomUUID()}`;
  const shards = await Promise.all(
    payload.shards.map((s) => runShard(s, payload.periodBucket, holder, deadline, opts)),
  );
  // The fleet's counts, without dimensions: the degraded count is what the alarm watches.
  emit(METRIC.SweepShardsDegraded, shards.filter((s) => s.degraded).length);
  emit(
    METRIC.SweepShardClusters,
    shards.reduce((n, s) => n + s.clusters, 0),
  );
  emit(
    METRIC.SweepShardChecked,
    shards.reduce((n, s) => n + s.checked, 0),
  );
  return { shards };
}

/** A run's results added up (local mode, which awaits the runs it hands over). */
export function totals(reports: readonly ShardRunReport[]) {
  const all = reports.flatMap((r) => r.shards);
  const sum = (f: (s: ShardResult) => number) => all.reduce((n, s) => n + f(s), 0);
  const reasons: Record<string, number> = {};
  for (const s of all) for (const [k, v] of Object.entries(s.reasons)) reasons[k] = (reasons[k] ?? 0) + v;
  return {
    checked: sum((s) => s.checked),
    started: sum((s) => s.started),
    errors: sum((s) => s.errors),
    skippedShards: sum((s) => (s.skipped ? 1 : 0)),
    degradedShards: sum((s) => (s.degraded ? 1 : 0)),
    reasons,
  };
}
