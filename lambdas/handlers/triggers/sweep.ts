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

import { backingOff } from '../../core/backoff.js';
import { Reason } from '../../core/conditions.js';
import { observeScope } from '../../core/observe-scope.js';
import { detectDrift } from '../../core/plan/fields.js';
import { firstAction, plan } from '../../core/plan/plan.js';
import { refOf } from '../../core/provider.js';
import { validateSpec } from '../../core/spec/validate.js';
import { ownedArnOf } from '../../core/status.js';
import { driftShown } from '../../core/status-drift.js';
import { addonsCondition } from '../../core/status-parts.js';
import { leaseView } from '../../store/lease.js';
import type { InvalidItem } from '../../store/record.js';
import type { ClusterRecord } from '../../store/types.js';
import { DEFAULT_CONFIG, depsOf } from '../deps.js';
import { executionName, timeBucket } from '../execution-name.js';
import { checkHolder } from '../lease-holder.js';
import { emit, log, METRIC } from '../telemetry.js';

export interface SweepOptions {
  readonly segment: number;
  readonly totalSegments: number;
  /** The schedule's period: one sweep execution per cluster per period at most. */
  readonly periodSeconds: number;
  readonly concurrency: number;
}

/**
 * EKS calls of observing a quiet cluster with its one node group (DescribeCluster, ListNodegroups,
 * DescribeNodegroup): what capacity estimates divide the per-region rate by.
 */
export const OBSERVE_CALLS = 3;

const readyReason = (r: ClusterRecord) => r.status?.conditions.find((c) => c.type === 'Ready')?.reason;

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

export type SweepDecision = { start: false; why: string } | { start: true; why: string };

/** The last run could not observe EKS: it is observed again even while backing off, to restore the truth. */
const observeFailed = (r: ClusterRecord) => readyReason(r) === Reason.ObserveFailed;

/**
 * A deletion asked for after the last failure is new work: it is not held back by a backoff that
 * was earned before it (a failing cluster must still be deletable within a sweep period).
 */
function deletionAfterFailure(r: ClusterRecord): boolean {
  return (
    r.deletionRequestedAt !== undefined &&
    r.failures !== undefined &&
    Date.parse(r.deletionRequestedAt) > Date.parse(r.failures.lastAt)
  );
}

/** What the sweep can decide from the record alone, without calling anything. */
export function decideFromRecord(
  r: ClusterRecord,
  now: Date,
  leaseTtlMs: number = DEFAULT_CONFIG.leaseTtlMs,
): SweepDecision | undefined {
  const lease = leaseView(r.lease, now, leaseTtlMs);
  if (lease === 'expired') return { start: true, why: 'dead execution (lease expired)' };
  if (lease === 'implausible')
    return { start: true, why: 'lease not written by CloudOrch (expires too late)' };
  if (lease === 'live') return undefined; // the caller asks whether its execution still runs
  if (r.deletionRequestedAt) {
    if (backingOff(r.failures, r.generation, now) && !deletionAfterFailure(r))
      return { start: false, why: 'backing off after failures' };
    return { start: true, why: 'deletion pending' };
  }
  if (!r.status || r.status.observedGeneration !== r.generation)
    return { start: true, why: 'status is stale' };
  if (!validateSpec(r.spec).ok) return { start: false, why: 'spec invalid: waiting for a spec change' };
  return undefined;
}

/** A live-looking lease: the cluster is busy unless the execution it names has ended. */
async function decideOnLease(r: ClusterRecord): Promise<SweepDecision> {
  const holder = await checkHolder(depsOf('sweep').executions, r.lease?.executionArn);
  if (holder.ended) return { start: true, why: `dead execution (${holder.detail ?? 'ended'})` };
  return { start: false, why: 'an execution holds the lease' };
}

async function decide(r: ClusterRecord): Promise<SweepDecision> {
  const { provider, config, now } = depsOf('sweep');
  const at = now();
  const quick = decideFromRecord(r, at, config.leaseTtlMs);
  if (quick) return quick;
  if (r.lease) return decideOnLease(r);
  const v = validateSpec(r.spec);
  if (!v.ok) return { start: false, why: 'spec invalid' };
  if (v.spec.paused) return { start: false, why: 'paused' };
  let observation: Awaited<ReturnType<typeof provider.observe>>;
  try {
    observation = await provider.observe(
      refOf(v.spec),
      // What the reconcile reads, so add-on and access drift start a run as node group drift does.
      { trackedUpdates: r.trackedUpdates ?? [], ...observeScope(v.spec) },
    );
  } catch (err) {
    emit(METRIC.ObserveFailures, 1, { Source: 'sweep' });
    log().warn('sweep could not observe a cluster', { clusterId: r.id, error: String(err) });
    // A run of its own retries the observation and, if EKS stays unreadable, says so in status:
    // also for a cluster backing off, whose status would otherwise keep its last answer. Once status
    // says ObserveFailed, nothing more is started until an observation succeeds.
    if (observeFailed(r)) return { start: false, why: 'still unobservable' };
    return { start: true, why: 'observation failed' };
  }
  const ownedArn = ownedArnOf(r.status);
  const d = {
    id: r.id,
    spec: v.spec,
    generation: r.generation,
    deletionRequested: false,
    ...(ownedArn ? { ownedArn } : {}),
  };
  const ops = plan(d, observation, config.defaults);
  if (observeFailed(r)) return { start: true, why: 'observation recovered' };
  if (backingOff(r.failures, r.generation, at)) return { start: false, why: 'backing off after failures' };
  const drift = detectDrift(v.spec, observation, config.defaults);
  const blocked = ops.filter((op) => op.kind === 'Impossible');
  // Ownership is read on every check: a lost tag turns a Ready cluster into a run that says so.
  if (blocked.length > 0 && r.status?.ready)
    return { start: true, why: `status is out of date: ${blocked.map((b) => b.field).join(', ')}` };
  if (blocked.length > 0) return { start: false, why: 'blocked: waiting for a change' };
  const action = firstAction(ops);
  // Drift the plan leaves alone (reported only) and status already shows needs no run every period.
  if (drift.length > 0 && (action || !driftShown(r.status, drift)))
    return { start: true, why: `drift: ${drift.map((x) => x.field).join(', ')}` };
  if (action) return { start: true, why: action.kind === 'Wait' ? 'in progress' : 'work to do' };
  if (!r.status?.ready) return { start: true, why: 'converged but status not ready' };
  // Add-on health changes no spec field: a DEGRADED add-on on a Ready cluster still needs its status.
  const addons = v.spec.addons?.length ? addonsCondition(v.spec, observation, r.generation) : undefined;
  const shown = r.status.conditions.find((c) => c.type === addons?.type);
  if (addons && (shown?.status !== addons.status || shown.message !== addons.message))
    return { start: true, why: `add-ons: ${addons.message}` };
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
