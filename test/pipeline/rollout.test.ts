/**
 * Rollout scenarios (issue 17): the real Rollout and Reconcile state machines, handlers, store and
 * EKS simulator. A rollout writes its change cluster by cluster; each cluster's own reconcile does
 * the EKS work; the rollout waits for Ready at that generation and a healthy window.
 */
import { DescribeExecutionCommand, SFNClient } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RolloutSpecInput } from '../../lambdas/core/rollout/schema.js';
import type { RolloutStatus } from '../../lambdas/core/rollout/status.js';
import { approveRollout, type RolloutControl, startRollout } from '../../local/cli/rollout-control.js';
import { type Harness, LOCAL_CREDENTIALS, simCluster, spec, startHarness } from './support.js';

let h: Harness;
let sfn: SFNClient;
let control: RolloutControl;

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
  };
  for (const c of RINGS)
    await h.cp.store.applySpec(`fleet/${c.name}`, spec(c.name, { kubernetesVersion: '1.33' }), {
      labels: { fleet: 'web', ring: c.ring },
    });
  await h.cp.settle();
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
    for (const s of status.stages) for (const c of s.clusters) expect(c.state, c.id).toBe('succeeded');
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
  }, 120_000);
});
