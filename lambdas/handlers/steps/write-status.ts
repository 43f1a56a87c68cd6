/**
 * WriteStatus: the one step that writes status, only while holding the lease. It records history
 * (plan, policy, operation, error), the updates to track, and releases the record once deletion is
 * complete. Metrics are emitted here, from the same facts the status shows.
 */
import { nextFailures } from '../../core/backoff.js';
import type { Observation } from '../../core/observation.js';
import { ownershipOf } from '../../core/ownership.js';
import { assignPools, type PoolGroups } from '../../core/plan/pools.js';
import { applyKeyOf } from '../../core/plan/tokens.js';
import type { PlanDefaults } from '../../core/plan/types.js';
import type { TrackedUpdate } from '../../core/provider.js';
import type { CloudClusterSpec } from '../../core/spec/schema.js';
import {
  applyOutcome,
  type ClusterStatus,
  type ObservedPool,
  type ObservedSummary,
  type Outcome,
} from '../../core/status.js';
import {
  accessSummary,
  addonSummaries,
  addonsCondition,
  upgradeConditions,
} from '../../core/status-parts.js';
import type { AppliedCounts, ClusterRecord, HistoryEntry } from '../../store/types.js';
import type { ExecutionState } from '../contracts.js';
import { depsOf } from '../deps.js';
import { emit, log, METRIC } from '../telemetry.js';
import { outcomeOf } from './outcome.js';

/** A pool as its current node group shows it; `Missing` when the pool has none yet. */
function observedPool({ pool, current, others }: PoolGroups): ObservedPool {
  const otherNodegroups = others.length > 0 ? { otherNodegroups: others.map((ng) => ng.name) } : {};
  if (!current) return { name: pool.name, status: 'Missing', ...otherNodegroups };
  return {
    name: pool.name,
    nodegroup: current.name,
    status: current.status,
    version: current.version,
    nodeCount: current.scaling.desiredSize,
    minSize: current.scaling.minSize,
    maxSize: current.scaling.maxSize,
    instanceTypes: current.instanceTypes,
    capacityType: current.capacityType,
    labels: current.labels,
    taints: current.taints,
    ...otherNodegroups,
  };
}

/** The pools in spec order, and the groups no pool names (absent when the spec is unknown). */
function poolsOf(spec: CloudClusterSpec | undefined, o: Observation, defaults: PlanDefaults) {
  if (!spec) return {};
  const a = assignPools(spec, o.nodegroups, defaults);
  const names = (ngs: readonly { name: string }[]) => ngs.map((ng) => ng.name);
  return {
    poolCount: spec.nodeGroups.length,
    pools: a.pools.map(observedPool),
    ...(a.foreign.length > 0 ? { foreign: names(a.foreign) } : {}),
    ...(a.orphans.length > 0 ? { orphan: names(a.orphans) } : {}),
  };
}

function summarize(
  observed: ExecutionState['observed'],
  id: string,
  defaults: PlanDefaults,
): ObservedSummary | undefined {
  const o = observed?.observation;
  const c = o?.cluster;
  if (!o || !c) return undefined;
  return {
    health: c.health,
    version: c.version,
    ...(c.endpoint ? { endpoint: c.endpoint } : {}),
    arn: c.arn,
    owned: ownershipOf(c.tags, id) === 'owned',
    nodeCount: o.nodegroups.reduce((n, ng) => n + ng.scaling.desiredSize, 0),
    ...poolsOf(observed.spec, o, defaults),
    ...partsOf(observed.spec, o),
  };
}

/** The listed add-ons and the access entries, as observed (absent when not read). */
function partsOf(spec: CloudClusterSpec | undefined, o: Observation) {
  if (!spec) return {};
  const addons = spec.addons ? addonSummaries(spec, o) : undefined;
  const access = spec.access && o.cluster ? accessSummary(spec, o) : undefined;
  return { ...(addons ? { addons } : {}), ...(access ? { access } : {}) };
}

/** This run's conditions about add-ons and the readiness gate; none when nothing was observed. */
function partConditions(state: ExecutionState, generation: number) {
  const o = state.observed?.observation;
  const spec = state.observed?.spec;
  if (!o || !spec) return undefined;
  const addons = addonsCondition(spec, o, generation);
  const plan = state.plan;
  return [
    ...(addons ? [addons] : []),
    ...(plan ? upgradeConditions(plan.impossible, plan.operations, generation) : []),
  ];
}

/** Outcomes that need a change before another run can help: they count as failed runs (backoff). */
const BLOCKING = new Set<Outcome['kind']>([
  'Failed',
  'Impossible',
  'UpgradeBlocked',
  'DeletionStuck',
  'PolicyDenied',
  'PolicyEngineDegraded',
  'ObserveFailed',
  // Denied for this generation: only a spec change asks again, so sweeps back off meanwhile.
  'ApprovalDenied',
]);

function blockingMessage(o: Outcome): string {
  if ('message' in o) return o.message;
  if (o.kind === 'PolicyDenied')
    return o.violations
      .filter((v) => v.severity === 'error')
      .map((v) => v.rule)
      .join(', ');
  return o.kind;
}

function historyOf(state: ExecutionState, outcome: Outcome, at: string, generation: number): HistoryEntry[] {
  const e = (kind: HistoryEntry['kind'], summary: string): HistoryEntry => ({
    at,
    kind,
    generation,
    summary,
    executionId: state.owner,
  });
  const out: HistoryEntry[] = [];
  if (state.plan && state.plan.descriptions.length > 0)
    out.push(e('plan', state.plan.descriptions.join('; ')));
  const evaluated = state.plan?.action !== 'specInvalid' && state.plan?.action !== 'recordInvalid';
  if (state.policy && !state.policy.allow && evaluated)
    out.push(
      e('policy', state.policy.violations.map((v) => `${v.rule}: ${v.message}`).join('; ') || 'denied'),
    );
  if (state.applied && !state.applied.skipped)
    out.push({
      ...e('operation', `${state.applied.operation} ${state.applied.description}`),
      operation: state.applied.operation,
    });
  if (state.failure) out.push(e('error', `${state.failure.kind}: ${state.failure.message}`));
  else if (BLOCKING.has(outcome.kind)) out.push(e('error', `${outcome.kind}: ${blockingMessage(outcome)}`));
  out.push(e('status', outcome.kind));
  return out;
}

function trackedAfter(
  state: ExecutionState,
  prev: readonly TrackedUpdate[],
  generationChanged: boolean,
): TrackedUpdate[] {
  // A manual reconcile retries what failed: the failed updates it was told to get past are forgotten.
  const base = generationChanged || state.trigger === 'manual' ? [] : [...prev];
  const a = state.applied;
  const op = state.plan?.next;
  if (a?.updateId && op)
    base.push({
      id: a.updateId,
      ...(op.kind === 'UpdateNodegroupVersion' || op.kind === 'UpdateNodegroupConfig'
        ? { nodegroupName: op.nodegroupName }
        : {}),
      ...(op.kind === 'UpdateAddon' ? { addonName: op.addonName } : {}),
    });
  // Keep only the newest few: older updates have settled and are no longer observed.
  return base.slice(-4);
}

/** Counts a successful apply, so a later create of the same target (after it vanished) gets a new token. */
function appliedAfter(
  state: ExecutionState,
  record: ClusterRecord,
  generation: number,
): { applied?: AppliedCounts } {
  const op = state.plan?.next;
  if (!op || !state.applied || state.applied.skipped || !('clientRequestToken' in op)) return {};
  const key = applyKeyOf(op);
  const counts = record.applied?.generation === generation ? record.applied.counts : {};
  return { applied: { generation, counts: { ...counts, [key]: (counts[key] ?? 0) + 1 } } };
}

/** A malformed record gets a RecordInvalid condition, written without touching anything else. */
async function writeInvalid(state: ExecutionState, reason: string, at: Date): Promise<WriteResult> {
  const { store } = depsOf('writeStatus');
  const status = applyOutcome(
    undefined,
    { kind: 'RecordInvalid', message: reason },
    { generation: 0, now: at },
  );
  await store.markInvalid(state.id, state.owner, status);
  emit(METRIC.RecordsInvalid, 1);
  log().warn('record is malformed', { clusterId: state.id, reason });
  return { written: 'RecordInvalid', newerGeneration: false };
}

/** What the state machine's NewerGeneration choice reads: always both fields. */
export interface WriteResult {
  readonly written: string;
  readonly newerGeneration: boolean;
}

export async function writeStatusStep(state: ExecutionState): Promise<WriteResult> {
  const { store, now, config } = depsOf('writeStatus');
  const at = now();
  const parsed = await store.inspect(state.id);
  if (!parsed) return { written: 'record already released', newerGeneration: false };
  if (parsed.kind !== 'record')
    return writeInvalid(state, parsed.kind === 'invalid' ? parsed.invalid.reason : 'a target claim', at);
  const record = parsed.record;
  const generation = state.observed?.generation ?? record.generation;
  const outcome = outcomeOf(state);
  const prev: ClusterStatus | undefined = record.status;
  const observed = summarize(state.observed, state.id, config.defaults);
  const parts = partConditions(state, generation);
  const status = applyOutcome(prev, outcome, {
    ...(parts ? { parts } : {}),
    generation,
    now: at,
    ...(observed ? { observed } : {}),
    ...(observed?.owned && observed.arn ? { ownedArn: observed.arn } : {}),
    ...(state.plan?.estimate ? { estimatedMonthlyCost: state.plan.estimate.monthlyCost } : {}),
    ...(state.plan ? { plan: state.plan.descriptions, drift: state.plan.drift } : {}),
    ...(state.policy && !state.policy.degraded ? { policy: state.policy } : {}),
  });
  await store.writeStatus(state.id, state.owner, {
    status,
    ...appliedAfter(state, record, generation),
    history: historyOf(state, outcome, at.toISOString(), generation),
    intent: null,
    trackedUpdates: trackedAfter(
      state,
      record.trackedUpdates ?? [],
      generation !== (prev?.observedGeneration ?? generation),
    ),
    // Counted per generation and stored, so the sweep's backoff really grows; any other outcome resets it.
    failures: BLOCKING.has(outcome.kind) ? nextFailures(record.failures, generation, at) : null,
  });

  const dims = { Outcome: outcome.kind };
  emit(METRIC.ReconcileSteps, 1, dims);
  const drifted = (s: ClusterStatus | undefined) =>
    s?.conditions.some((c) => c.type === 'Drifted' && c.status === 'True') ?? false;
  if (drifted(status) && !drifted(prev)) emit(METRIC.DriftDetected);
  if (outcome.kind === 'PolicyDenied') emit(METRIC.PolicyDenials);
  if (outcome.kind === 'PolicyEngineDegraded') emit(METRIC.PolicyEngineDegraded);
  if (outcome.kind === 'DeletionStuck') emit(METRIC.DeletionStuck);
  if (outcome.kind === 'ObserveFailed') emit(METRIC.ObserveFailures, 1, { Source: 'status' });
  if (outcome.kind === 'Impossible' && outcome.ownership === 'OwnershipLost') emit(METRIC.OwnershipLost);
  if (outcome.kind === 'Converged' && prev && !prev.ready) {
    const since = Date.parse(
      prev.conditions.find((c) => c.type === 'Ready')?.lastTransitionTime ?? at.toISOString(),
    );
    emit(METRIC.ConvergenceSeconds, Math.max(0, (at.getTime() - since) / 1000), {}, 'Seconds');
  }
  log().info('status written', { outcome: outcome.kind, ready: status.ready, synced: status.synced });

  if (outcome.kind === 'Deleted' || outcome.kind === 'Retained' || outcome.kind === 'ReleasedUntouched') {
    await store.release(state.id, state.owner, state.observed?.spec ?? targetOf(record.spec));
    return { written: 'released', newerGeneration: false };
  }
  // The record may hold a newer spec than the one this execution observed.
  return {
    written: outcome.kind,
    newerGeneration:
      record.generation !== generation ||
      (record.deletionRequestedAt !== undefined) !== (state.observed?.deletionRequested ?? false),
  };
}

/** The claim key of a stored spec, when it names one. */
function targetOf(spec: ClusterRecord['spec']): { region: string; clusterName: string } | undefined {
  const { region, clusterName } = spec as { region?: unknown; clusterName?: unknown };
  return typeof region === 'string' && typeof clusterName === 'string' ? { region, clusterName } : undefined;
}
