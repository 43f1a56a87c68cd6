/**
 * What the sweep decides for one cluster: from the record alone when it can, else by observing the
 * cluster and planning as a run would. Starting a run is the only thing a decision can lead to. Most
 * looks are checks (the cluster and the node groups status names, judged against the spec reduced to
 * them); one per full period, and every look at a record whose status cannot guide a check, is a full
 * observation (core/observe-tier.ts). A run always observes fully.
 */
import { ENV, SETTING_DEFAULTS } from '../../config.js';
import { backingOff } from '../../core/backoff.js';
import { Reason } from '../../core/conditions.js';
import type { Observation } from '../../core/observation.js';
import { observeScope } from '../../core/observe-scope.js';
import {
  checkView,
  driftShownWithin,
  knownNodegroups,
  type ObserveTier,
  tierOf,
} from '../../core/observe-tier.js';
import { detectDrift } from '../../core/plan/fields.js';
import { firstAction, plan } from '../../core/plan/plan.js';
import { refOf } from '../../core/provider.js';
import type { CloudClusterSpec } from '../../core/spec/schema.js';
import { validateSpec } from '../../core/spec/validate.js';
import { ownedArnOf } from '../../core/status.js';
import { driftShown } from '../../core/status-drift.js';
import { addonsCondition } from '../../core/status-parts.js';
import { EksBudgetExhaustedError } from '../../store/errors.js';
import { leaseView } from '../../store/lease.js';
import type { ClusterRecord } from '../../store/types.js';
import { type Env, envNumber } from '../compose.js';
import { DEFAULT_CONFIG, depsOf } from '../deps.js';
import { checkHolder } from '../lease-holder.js';
import { emit, log, METRIC } from '../telemetry.js';

/**
 * EKS calls of a full observation of a quiet cluster with its one node group (DescribeCluster,
 * ListNodegroups, DescribeNodegroup): an upper bound of every sweep look at such a cluster.
 */
export const OBSERVE_CALLS = 3;

/**
 * EKS calls of the sweep's check of that cluster (DescribeCluster, DescribeNodegroup): what most
 * looks cost; one look in every fullObservePeriod / sweepPeriod is full ({@link OBSERVE_CALLS}).
 */
export const CHECK_CALLS = 2;

export const readyReason = (r: ClusterRecord) => r.status?.conditions.find((c) => c.type === 'Ready')?.reason;

/** Whether to start a run, why, and with which tier the cluster was observed (absent: it was not). */
export type SweepDecision = { start: boolean; why: string; tier?: ObserveTier };

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
  const lease = leaseView(r.lease, now, leaseTtlMs, r.approval !== undefined);
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
  const holder = await checkHolder(depsOf('sweepShard').executions, r.lease?.executionArn);
  if (holder.ended) return { start: true, why: `dead execution (${holder.detail ?? 'ended'})` };
  return { start: false, why: 'an execution holds the lease' };
}

/** How often the sweep runs and how often it observes a cluster fully (the rest of its looks are checks). */
export interface TierSettings {
  readonly periodSeconds: number;
  readonly fullObservePeriodSeconds: number;
}

export const DEFAULT_TIER_SETTINGS: TierSettings = {
  periodSeconds: SETTING_DEFAULTS.sweepPeriodSeconds,
  fullObservePeriodSeconds: SETTING_DEFAULTS.fullObservePeriodSeconds,
};

/** The full-observation period the stack set (CLOUDORCH_FULL_OBSERVE_PERIOD_SECONDS), else the default. */
export function fullObservePeriodFrom(env: Env): number {
  return envNumber(env, ENV.fullObservePeriod) ?? SETTING_DEFAULTS.fullObservePeriodSeconds;
}

/**
 * What the tier reads and judges against. A check: the cluster and the node groups status names,
 * the tracked updates, and the spec reduced to that (see checkView). Full: what a run reads.
 */
function lookOf(r: ClusterRecord, spec: CloudClusterSpec, tier: ObserveTier) {
  const trackedUpdates = r.trackedUpdates ?? [];
  const names = tier === 'check' ? knownNodegroups(r.status) : undefined;
  if (names) return { spec: checkView(spec), opts: { trackedUpdates, nodegroupNames: names } };
  // What the reconcile reads, so add-on and access drift start a run as node group drift does.
  return { spec, opts: { trackedUpdates, ...observeScope(spec) } };
}

export async function decide(
  r: ClusterRecord,
  tiers: TierSettings = DEFAULT_TIER_SETTINGS,
): Promise<SweepDecision> {
  const { provider, config, now } = depsOf('sweepShard');
  const at = now();
  const quick = decideFromRecord(r, at, config.leaseTtlMs);
  if (quick) return quick;
  if (r.lease) return decideOnLease(r);
  const v = validateSpec(r.spec);
  if (!v.ok) return { start: false, why: 'spec invalid' };
  if (v.spec.paused) return { start: false, why: 'paused' };
  const tier = tierOf(r, at, tiers.periodSeconds, tiers.fullObservePeriodSeconds);
  const { spec, opts } = lookOf(r, v.spec, tier);
  let observation: Observation;
  try {
    observation = await provider.observe(refOf(v.spec), opts);
  } catch (err) {
    // The budget refused the sweep a slot: not an observation failure, the caller yields.
    if (err instanceof EksBudgetExhaustedError) throw err;
    emit(METRIC.ObserveFailures, 1, { Source: 'sweep' });
    log().warn('sweep could not observe a cluster', { clusterId: r.id, error: String(err), tier });
    // A run of its own retries the observation and, if EKS stays unreadable, says so in status:
    // also for a cluster backing off, whose status would otherwise keep its last answer. Once status
    // says ObserveFailed, nothing more is started until an observation succeeds.
    if (observeFailed(r)) return { start: false, why: 'still unobservable', tier };
    return { start: true, why: 'observation failed', tier };
  }
  return { ...judge(r, spec, observation, tier, at), tier };
}

/** The decision from an observation: start a run for anything a run would do or status should say. */
function judge(
  r: ClusterRecord,
  spec: CloudClusterSpec,
  observation: Observation,
  tier: ObserveTier,
  at: Date,
): SweepDecision {
  const { config } = depsOf('sweepShard');
  const ownedArn = ownedArnOf(r.status);
  const d = {
    id: r.id,
    spec,
    generation: r.generation,
    deletionRequested: false,
    ...(ownedArn ? { ownedArn } : {}),
  };
  const ops = plan(d, observation, config.defaults);
  if (observeFailed(r)) return { start: true, why: 'observation recovered' };
  if (backingOff(r.failures, r.generation, at)) return { start: false, why: 'backing off after failures' };
  const drift = detectDrift(spec, observation, config.defaults);
  const blocked = ops.filter((op) => op.kind === 'Impossible');
  // Ownership is read on every check: a lost tag turns a Ready cluster into a run that says so.
  if (blocked.length > 0 && r.status?.ready)
    return { start: true, why: `status is out of date: ${blocked.map((b) => b.field).join(', ')}` };
  if (blocked.length > 0) return { start: false, why: 'blocked: waiting for a change' };
  const action = firstAction(ops);
  // Drift the plan leaves alone (reported only) and status already shows needs no run every period;
  // a check sees part of what status shows, so each of its differences need only be among them.
  const shown = tier === 'check' ? driftShownWithin(r.status, drift) : driftShown(r.status, drift);
  if (drift.length > 0 && (action || !shown))
    return { start: true, why: `drift: ${drift.map((x) => x.field).join(', ')}` };
  if (action) return { start: true, why: action.kind === 'Wait' ? 'in progress' : 'work to do' };
  if (!r.status?.ready) return { start: true, why: 'converged but status not ready' };
  // Add-on health changes no spec field: a DEGRADED add-on on a Ready cluster still needs its status.
  // Only a full look reads add-ons.
  const addons = spec.addons?.length ? addonsCondition(spec, observation, r.generation) : undefined;
  const shownAddons = r.status.conditions.find((c) => c.type === addons?.type);
  if (addons && (shownAddons?.status !== addons.status || shownAddons.message !== addons.message))
    return { start: true, why: `add-ons: ${addons.message}` };
  return { start: false, why: 'in sync' };
}
