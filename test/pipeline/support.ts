/** Scenario harness: the embedded control plane with fast EKS and short waits, plus assertions helpers. */

import { afterAll, beforeAll, beforeEach } from 'vitest';
import { OPERATION_CALLS } from '../../lambdas/config.js';
import { POOL_TAG } from '../../lambdas/core/ownership.js';
import {
  type CloudClusterSpec,
  type CloudClusterSpecInput,
  specSchema,
} from '../../lambdas/core/spec/schema.js';
import { addMetricSink, type MetricPoint } from '../../lambdas/handlers/telemetry.js';
import { addonsOf } from '../../local/eks-sim/addon-state.js';
import type { CallCounts } from '../../local/eks-sim/index.js';
import { type ControlPlane, startControlPlane } from '../../local/runtime/control-plane.js';

/** Every EKS call an operation makes (config.ts's table: a new operation is counted without an edit here). */
export const MUTATING = Object.values(OPERATION_CALLS).map((o) => o.call);

export interface Harness {
  cp: ControlPlane;
  /** Set to move the reconciler's clock (policy `now`); undefined = wall clock. */
  clock: { now: Date | undefined };
}

export async function startHarness(extra: Parameters<typeof startControlPlane>[0] = {}): Promise<Harness> {
  const clock: Harness['clock'] = { now: undefined };
  const cp = await startControlPlane({
    simSpeed: 4000,
    waitScale: 0.002,
    retryIntervalMs: 5,
    now: () => clock.now ?? new Date(),
    ...extra,
  });
  return { cp, clock };
}

/** Credentials the local endpoints accept (they check none). */
export const LOCAL_CREDENTIALS = { accessKeyId: 'x', secretAccessKey: 'x' };

/**
 * One control plane for a test file: started before its tests, stopped after them, with simulator
 * calls and faults, the clock and the collected metrics reset before each test.
 */
export function useHarness(
  extra: Parameters<typeof startControlPlane>[0] = {},
  onStop: () => void = () => undefined,
): { harness: () => Harness; metrics: MetricPoint[] } {
  let h: Harness | undefined;
  const metrics: MetricPoint[] = [];
  beforeAll(async () => {
    h = await startHarness(extra);
    addMetricSink((p) => metrics.push(p));
  });
  afterAll(async () => {
    onStop();
    await h?.cp.stop();
  });
  beforeEach(async () => {
    await h!.cp.simAdmin.resetCalls();
    await h!.cp.simAdmin.clearFaults();
    h!.clock.now = undefined;
    metrics.length = 0;
  });
  return { harness: () => h!, metrics };
}

export function spec(clusterName: string, over: Partial<CloudClusterSpecInput> = {}): CloudClusterSpec {
  return specSchema.parse({
    provider: 'aws',
    region: 'us-east-1',
    clusterName,
    kubernetesVersion: '1.34',
    nodeCount: 2,
    instanceType: 't3.medium',
    tags: { team: 'platform', environment: 'dev' },
    deletionPolicy: 'Delete',
    ...over,
  });
}

export function total(calls: CallCounts, ops: readonly string[] = Object.keys(calls)): number {
  return ops.reduce((n, op) => n + (calls[op]?.requests ?? 0), 0);
}

/** Mutating calls that reached EKS's logic (injected throttles and 5xx are not counted). */
export function mutating(calls: CallCounts): Record<string, number> {
  const reached = (op: string) => (calls[op]?.succeeded ?? 0) + (calls[op]?.rejected ?? 0);
  return Object.fromEntries(MUTATING.filter((op) => reached(op) > 0).map((op) => [op, reached(op)]));
}

export async function applyAndSettle(h: Harness, id: string, s: CloudClusterSpec): Promise<void> {
  await h.cp.store.applySpec(id, s);
  await h.cp.settle();
}

export async function statusOf(h: Harness, id: string) {
  return (await h.cp.store.get(id))?.status;
}

export function condition(status: Awaited<ReturnType<typeof statusOf>>, type: string) {
  return status?.conditions.find((c) => c.type === type);
}

/** A node group as the simulator holds it at this instant. */
export interface SimNodegroup {
  readonly name: string;
  readonly status: string;
  /** The pool CloudOrch tagged it with (absent on groups it did not create for a pool). */
  readonly pool: string | undefined;
  readonly version: string;
  readonly instanceTypes: readonly string[];
  readonly capacityType: string;
  readonly scaling: { minSize: number; maxSize: number; desiredSize: number };
  readonly labels: Readonly<Record<string, string>>;
  readonly taints: readonly { key: string; value?: string; effect: string }[];
  readonly tags: Readonly<Record<string, string>>;
}

/** An update the simulator started (UpdateClusterVersion, UpdateNodegroupVersion or -Config), oldest first. */
export interface SimUpdate {
  readonly type: string;
  readonly nodegroupName: string | undefined;
  readonly version: string | undefined;
}

/**
 * The simulator's own state for one cluster, read in process: no EKS call is made or counted, so a
 * test may sample it while a run is going without changing the call counts it asserts. Transitions
 * that are due are applied first, as the next EKS request would.
 */
export function simCluster(h: Harness, name: string) {
  h.cp.sim.state.tick();
  const c = h.cp.sim.state.allClusters().find((x) => x.name === name);
  if (!c) return undefined;
  const nodegroups: SimNodegroup[] = [...c.nodegroups.values()].map((ng) => ({
    name: ng.name,
    status: ng.status,
    pool: ng.tags[POOL_TAG],
    version: ng.version,
    instanceTypes: [...ng.instanceTypes],
    capacityType: ng.capacityType,
    scaling: { ...ng.scaling },
    labels: { ...ng.labels },
    taints: ng.taints.map((t) => ({ ...t })),
    tags: { ...ng.tags },
  }));
  const updates: SimUpdate[] = c.updates.map((u) => ({
    type: u.type,
    nodegroupName: u.nodegroupName,
    version: u.params.find((p) => p.type === 'Version')?.value,
  }));
  return { status: c.status, version: c.version, nodegroups, updates };
}

/**
 * The simulator's record of the updates it started for one cluster (control plane, node groups and
 * add-ons), oldest first, each as `CP 1.33`, `<nodegroup> 1.33` or `addon <name> <version>`. Read in
 * process: no EKS call is made.
 */
export function simUpdateLog(h: Harness, name: string): string[] {
  h.cp.sim.state.tick();
  const c = h.cp.sim.state.allClusters().find((x) => x.name === name);
  if (!c) return [];
  const version = (params: readonly { type: string; value: string }[], type: string) =>
    params.find((p) => p.type === type)?.value ?? '';
  const entries = c.updates
    .filter((u) => u.type === 'VersionUpdate')
    .map((u) => ({ at: u.createdAt, text: `${u.nodegroupName ?? 'CP'} ${version(u.params, 'Version')}` }));
  for (const a of addonsOf(h.cp.sim.state, c).values())
    for (const u of a.updates)
      entries.push({ at: u.createdAt, text: `addon ${a.name} ${version(u.params, 'AddonVersion')}` });
  return entries.sort((x, y) => x.at - y.at).map((e) => e.text);
}

/** One operation the provider applied, with the cluster's node groups as they were just before it. */
export interface AppliedOp {
  readonly kind: string;
  readonly nodegroupName: string | undefined;
  readonly before: readonly SimNodegroup[];
}

/** Records every operation the provider applies for `cluster` until `stop()` restores it. */
export function watchApplies(h: Harness, cluster: string): { log: AppliedOp[]; stop: () => void } {
  const provider = h.cp.deps.provider;
  const apply = provider.apply.bind(provider);
  const log: AppliedOp[] = [];
  provider.apply = async (op) => {
    if (op.clusterName === cluster)
      log.push({
        kind: op.kind,
        nodegroupName: 'nodegroupName' in op ? op.nodegroupName : undefined,
        before: simCluster(h, cluster)?.nodegroups ?? [],
      });
    return apply(op);
  };
  return { log, stop: () => (provider.apply = apply) };
}

/** Samples the cluster's node groups every `everyMs` until `stop()`, which returns the samples. */
export function sampleNodegroups(h: Harness, cluster: string, everyMs = 1) {
  const samples: (readonly SimNodegroup[])[] = [];
  const take = () => samples.push(simCluster(h, cluster)?.nodegroups ?? []);
  take();
  const timer = setInterval(take, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      take();
      return samples;
    },
  };
}
