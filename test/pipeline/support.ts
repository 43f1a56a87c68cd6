/** Scenario harness: the embedded control plane with fast EKS and short waits, plus assertions helpers. */

import { afterAll, beforeAll, beforeEach } from 'vitest';
import {
  type CloudClusterSpec,
  type CloudClusterSpecInput,
  specSchema,
} from '../../lambdas/core/spec/schema.js';
import { addMetricSink, type MetricPoint } from '../../lambdas/handlers/telemetry.js';
import type { CallCounts } from '../../local/eks-sim/index.js';
import { type ControlPlane, startControlPlane } from '../../local/runtime/control-plane.js';

export const MUTATING = [
  'CreateCluster',
  'CreateNodegroup',
  'UpdateClusterVersion',
  'UpdateNodegroupVersion',
  'UpdateNodegroupConfig',
  'TagResource',
  'UntagResource',
  'DeleteNodegroup',
  'DeleteCluster',
] as const;

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
