/**
 * Rollout scenarios (issue 17): the real Rollout and Reconcile state machines, handlers, store and
 * EKS simulator. A rollout writes its change cluster by cluster; each cluster's own reconcile does
 * the EKS work; the rollout waits for Ready at that generation and a healthy window.
 */
import { DescribeExecutionCommand, SFNClient, StopExecutionCommand } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RolloutSpecInput } from '../../lambdas/core/rollout/schema.js';
import type { RolloutStatus } from '../../lambdas/core/rollout/status.js';
import {
  abortRollout,
  approveRollout,
  type RolloutControl,
  resumeRollout,
  startRollout,
} from '../../lambdas/handlers/rollout/control.js';
import { addMetricSink, type MetricPoint } from '../../lambdas/handlers/telemetry.js';
import { reconcileNow } from '../../lambdas/handlers/triggers/reconcile-now.js';
import { type Harness, LOCAL_CREDENTIALS, simCluster, spec, startHarness } from './support.js';

let h: Harness;
let sfn: SFNClient;
let control: RolloutControl;
const metrics: MetricPoint[] = [];
const counted = (name: string, dims: Record<string, string> = {}) =>
  metrics
    .filter((m) => m.name === name && Object.entries(dims).every(([k, v]) => m.dimensions[k] === v))
    .reduce((n, m) => n + m.value, 0);

const RINGS = [
  ...Array.from({ length: 1 }, (_, i) => ({ name: `canary-${i}`, ring: 'canary' })),
  ...Array.from({ length: 5 }, (_, i) => ({ name: `test-${i}`, ring: 'test' })),
  ...Array.from({ length: 6 }, (_, i) => ({ name: `prod-${i}`, ring: 'prod' })),
];

beforeAll(async () => {
  h = await startHarness();
  sfn = new SFNClient({ endpoint: h.cp.endpoints.sfn, region: 'us-east-1', credentials: LOCAL_CREDENTIALS });
  control = {
    rollouts: h.cp.deps.rollouts,
    sfn,
    stateMachineArn: h.cp.rolloutStateMachineArn,
    now: () => new Date(),
    reconcile: async (id) => {
      await reconcileNow({ id });
    },
  };
  for (const c of RINGS)
    await h.cp.store.applySpec(`fleet/${c.name}`, spec(c.name, { kubernetesVersion: '1.33' }), {
      labels: { fleet: 'web', ring: c.ring },
    });
  await h.cp.settle();
  addMetricSink((p) => metrics.push(p));
}, 120_000);

afterAll(async () => {
  sfn?.destroy();
  await h?.cp.stop();
});

async function until<T>(what: string, f: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function ended(executionArn: string): Promise<string> {
  return until('the execution to end', async () => {
    const d = await sfn.send(new DescribeExecutionCommand({ executionArn }));
    return d.status === 'RUNNING' ? undefined : (d.status ?? 'UNKNOWN');
  });
}

const versionOf = (name: string) => simCluster(h, name)?.version;
const ms = (iso: string | undefined) => Date.parse(iso ?? '');

/** The most clusters of one stage in progress at any instant. */
function peakConcurrency(status: RolloutStatus, stage: string): number {
  const s = status.stages.find((x) => x.name === stage);
  const edges = (s?.clusters ?? []).flatMap((c) => [
    { at: ms(c.startedAt), d: 1 },
    { at: ms(c.finishedAt), d: -1 },
  ]);
  let now = 0;
  let peak = 0;
  for (const e of edges.sort((a, b) => a.at - b.at || a.d - b.d)) {
    now += e.d;
    peak = Math.max(peak, now);
  }
  return peak;
}

const THREE_STAGES: RolloutSpecInput = {
  selector: { matchLabels: { fleet: 'web' } },
  change: { kubernetesVersion: '1.34' },
  stages: [
    { name: 'canary', selector: { matchLabels: { ring: 'canary' } }, approval: 'after', soak: '2s' },
    { name: 'test', selector: { matchLabels: { ring: 'test' } }, maxConcurrency: 2, soak: '1s' },
    { name: 'prod', maxConcurrency: '50%' },
  ],
  failurePolicy: { healthWindow: '1s' },
};

describe('a rollout across 12 clusters in 3 stages', () => {
  it('upgrades the canary, waits for approval, then the stages in order at their concurrency, soaking between', async () => {
    await h.cp.deps.rollouts.put('platform/to-1-34', THREE_STAGES as Record<string, unknown>, new Date());
    const { executionArn } = await startRollout(control, 'platform/to-1-34');

    const waiting = await until('the approval after the canary', async () => {
      const r = await h.cp.deps.rollouts.get('platform/to-1-34');
      return r?.approval ? r : undefined;
    });
    expect(waiting.approval).toMatchObject({ stage: 'canary', when: 'after' });
    expect(waiting.status?.phase).toBe('AwaitingApproval');
    expect(versionOf('canary-0')).toBe('1.34');
    for (const c of RINGS.filter((x) => x.ring !== 'canary')) expect(versionOf(c.name), c.name).toBe('1.33');
    expect(h.cp.board.notifications.at(-1)?.message).toMatch(/waits for approval after stage canary/);

    await approveRollout(control, 'platform/to-1-34', 'canary');
    expect(await ended(executionArn)).toBe('SUCCEEDED');

    const done = await h.cp.deps.rollouts.get('platform/to-1-34');
    const status = done?.status as RolloutStatus;
    expect(status.phase).toBe('Completed');
    for (const c of RINGS) expect(versionOf(c.name), c.name).toBe('1.34');
    const [canary, test, prod] = status.stages;
    for (const s of status.stages)
      for (const c of s.clusters) {
        expect(c.state, c.id).toBe('succeeded');
        // Ready at its generation, then the health window, then done.
        expect(ms(c.readyAt), c.id).toBeGreaterThanOrEqual(ms(c.startedAt));
        expect(ms(c.finishedAt) - ms(c.readyAt), c.id).toBeGreaterThanOrEqual(1000);
      }
    // Stages in order, each after the previous one's soak.
    const first = (s: typeof canary) => Math.min(...(s?.clusters ?? []).map((c) => ms(c.startedAt)));
    const last = (s: typeof canary) => Math.max(...(s?.clusters ?? []).map((c) => ms(c.finishedAt)));
    expect(first(test)).toBeGreaterThanOrEqual(last(canary));
    expect(first(test)).toBeGreaterThanOrEqual(ms(canary?.soakUntil));
    expect(first(prod)).toBeGreaterThanOrEqual(ms(test?.soakUntil));
    expect(ms(test?.soakUntil) - last(test)).toBeGreaterThanOrEqual(1000);
    expect(peakConcurrency(status, 'test')).toBeLessThanOrEqual(2);
    expect(peakConcurrency(status, 'prod')).toBeLessThanOrEqual(3);
    expect(peakConcurrency(status, 'prod')).toBeGreaterThan(1);
    expect(h.cp.board.notifications.at(-1)?.subject).toMatch(/completed/);
    expect(await h.cp.deps.rollouts.holder('fleet/prod-0')).toBeUndefined();
    expect((await h.cp.store.get('fleet/prod-0'))?.rollout).toEqual({
      id: 'platform/to-1-34',
      generation: 1,
      stage: 'prod',
    });
    expect(counted('RolloutClusters', { Outcome: 'Succeeded' })).toBe(12);
    expect(counted('RolloutApprovalsRequested')).toBe(1);
    expect(counted('RolloutsCompleted')).toBe(1);
  }, 120_000);
});

const rollout = (id: string) => h.cp.deps.rollouts.get(id);
const statusOf = async (id: string) => (await rollout(id))?.status as RolloutStatus;
const clustersIn = (s: RolloutStatus, stage: string) =>
  s.stages.find((x) => x.name === stage)?.clusters ?? [];

async function begin(id: string, over: Partial<RolloutSpecInput>): Promise<string> {
  await h.cp.deps.rollouts.put(id, { ...THREE_STAGES, ...over } as Record<string, unknown>, new Date());
  return (await startRollout(control, id)).executionArn;
}

/** Approves every stage that waits, until the execution ends. */
async function approveAll(id: string, executionArn: string): Promise<string> {
  return until('the execution to end, approving as it goes', async () => {
    const r = await rollout(id);
    if (r?.approval) await approveRollout(control, id);
    const d = await sfn.send(new DescribeExecutionCommand({ executionArn }));
    return d.status === 'RUNNING' ? undefined : (d.status ?? 'UNKNOWN');
  });
}

describe('a rollout that meets trouble', () => {
  it('halts on an EKS failure in stage 2, leaves the rest untouched, and completes on resume once the fault clears', async () => {
    await h.cp.simAdmin.failNextUpdate('test-1', 'InsufficientFreeAddresses');
    const id = 'platform/to-1-35';
    const arn = await begin(id, {
      change: { kubernetesVersion: '1.35' },
      failurePolicy: { healthWindow: '1s', readyTimeout: '20s' },
    });
    expect(await approveAll(id, arn)).toBe('FAILED');
    const halted = await statusOf(id);
    expect(halted.phase).toBe('Halted');
    expect(halted.halt).toMatchObject({ cluster: 'fleet/test-1' });
    expect(clustersIn(halted, 'test').find((c) => c.id === 'fleet/test-1')?.state).toBe('failed');
    for (const c of clustersIn(halted, 'prod')) expect(c.state, c.id).toBe('pending');
    for (const c of RINGS.filter((x) => x.ring === 'prod')) expect(versionOf(c.name), c.name).toBe('1.34');
    expect(h.cp.board.notifications.at(-1)?.subject).toMatch(/halted/);

    const approvals = counted('RolloutApprovalsRequested');
    const { executionArn } = await resumeRollout(control, id);
    expect(await approveAll(id, executionArn)).toBe('SUCCEEDED');
    // The canary stage finished before the halt: the resumed attempt neither soaks nor asks again.
    expect(counted('RolloutApprovalsRequested')).toBe(approvals);
    expect((await statusOf(id)).phase).toBe('Completed');
    for (const c of RINGS) expect(versionOf(c.name), c.name).toBe('1.35');
  }, 180_000);

  it('aborts mid-stage: the execution stops, later clusters are never changed, and the status says so', async () => {
    const id = 'platform/retag';
    const arn = await begin(id, {
      change: { tags: { wave: 'abort-test' } },
      stages: [
        { name: 'canary', selector: { matchLabels: { ring: 'canary' } } },
        { name: 'test', selector: { matchLabels: { ring: 'test' } }, maxConcurrency: 1 },
        { name: 'prod', maxConcurrency: '50%' },
      ],
      failurePolicy: { healthWindow: '2s' },
    });
    await until('a test cluster in progress', async () => {
      const s = (await rollout(id))?.status;
      return s && clustersIn(s, 'test').some((c) => c.state === 'inProgress') ? true : undefined;
    });
    await abortRollout(control, id);
    expect(await ended(arn)).toBe('ABORTED');
    const s = await statusOf(id);
    expect(s.phase).toBe('Aborted');
    expect(clustersIn(s, 'test').filter((c) => c.state === 'pending').length).toBeGreaterThanOrEqual(3);
    for (const c of clustersIn(s, 'prod')) expect(c.state).toBe('pending');
    for (const c of RINGS.filter((x) => x.ring === 'prod'))
      expect((await h.cp.store.get(`fleet/${c.name}`))?.spec.tags['wave'], c.name).toBeUndefined();
    expect(await h.cp.deps.rollouts.holder('fleet/prod-0')).toBeUndefined();
  }, 120_000);

  it('halts when an alarm of its failure policy goes into ALARM', async () => {
    h.cp.board.setAlarm('web-5xx', 'OK');
    const id = 'platform/alarmed';
    const arn = await begin(id, {
      change: { tags: { wave: 'alarm-test' } },
      stages: [
        { name: 'canary', selector: { matchLabels: { ring: 'canary' } } },
        { name: 'test', selector: { matchLabels: { ring: 'test' } }, maxConcurrency: 1 },
        { name: 'prod', maxConcurrency: '50%' },
      ],
      failurePolicy: { healthWindow: '2s', alarms: ['web-5xx'] },
    });
    await until('a test cluster in progress', async () => {
      const s = (await rollout(id))?.status;
      return s && clustersIn(s, 'test').some((c) => c.state === 'inProgress') ? true : undefined;
    });
    h.cp.board.setAlarm('web-5xx', 'ALARM');
    expect(await ended(arn)).toBe('FAILED');
    const s = await statusOf(id);
    expect(s.phase).toBe('Halted');
    expect(s.halt?.reason).toMatch(/web-5xx is in ALARM/);
    for (const c of clustersIn(s, 'prod')) expect(c.state).toBe('pending');
    h.cp.board.setAlarm('web-5xx', 'OK');
    await abortRollout(control, id);
  }, 120_000);

  it('refuses a second rollout on clusters a running one holds, naming it', async () => {
    const first = 'platform/first';
    const arn = await begin(first, {
      change: { tags: { wave: 'first' } },
      stages: [{ name: 'all', approval: 'before' }],
    });
    await until('the first rollout to wait for approval', async () =>
      (await rollout(first))?.approval ? true : undefined,
    );
    const secondArn = await begin('platform/second', {
      change: { tags: { wave: 'second' } },
      stages: [{ name: 'all' }],
    });
    expect(await ended(secondArn)).toBe('FAILED');
    const s = await statusOf('platform/second');
    expect(s.phase).toBe('Halted');
    expect(s.halt?.reason).toMatch(/is in rollout platform\/first/);
    for (const c of RINGS)
      expect((await h.cp.store.get(`fleet/${c.name}`))?.spec.tags['wave']).not.toBe('second');
    await abortRollout(control, first);
    expect(await ended(arn)).toBe('ABORTED');
  }, 120_000);

  it('resumes a rollout whose execution is gone mid-run (a killed control plane), and refuses while one runs', async () => {
    const id = 'platform/orphaned';
    const arn = await begin(id, {
      change: { tags: { wave: 'orphaned' } },
      stages: [{ name: 'all', maxConcurrency: 1 }],
      failurePolicy: { healthWindow: '1s' },
    });
    await until('a cluster in progress', async () => {
      const s = (await rollout(id))?.status;
      return s && clustersIn(s, 'all').some((c) => c.state === 'inProgress') ? true : undefined;
    });
    await expect(resumeRollout(control, id)).rejects.toThrow(/its execution still runs/);
    // A second start (a repeated apply, a restarted bridge) finds the running execution.
    expect(await startRollout(control, id)).toEqual({ executionArn: arn, started: false });
    // The execution disappears without a word to the record, as a kill -9 of `cloudorch dev` leaves it.
    await sfn.send(new StopExecutionCommand({ executionArn: arn }));
    expect((await statusOf(id)).phase).toBe('Running');
    const { executionArn } = await resumeRollout(control, id);
    expect(await ended(executionArn)).toBe('SUCCEEDED');
    const s = await statusOf(id);
    expect(s.phase).toBe('Completed');
    for (const c of clustersIn(s, 'all')) expect(c.state, c.id).toBe('succeeded');
  }, 120_000);
});
