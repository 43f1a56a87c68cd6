/** One cluster's progress after a rollout wrote its change, read from its status alone. */
import { describe, expect, it } from 'vitest';
import {
  type Condition,
  type ConditionStatus,
  ConditionType,
  Reason,
} from '../../../lambdas/core/conditions.js';
import { clusterProgress, type ProgressInput } from '../../../lambdas/core/rollout/progress.js';
import type { ClusterStatus } from '../../../lambdas/core/status.js';

const G = 5;
const T0 = Date.parse('2026-12-01T10:00:00Z');
const MIN = 60_000;
const policy = { readyTimeoutSeconds: 3_600, healthWindowSeconds: 300 };

const cond = (type: ConditionType, status: ConditionStatus, reason: Reason, generation = G): Condition => ({
  type,
  status,
  reason,
  message: `${reason} message`,
  lastTransitionTime: '2026-12-01T09:00:00Z',
  observedGeneration: generation,
});

const statusOf = (...conditions: Condition[]): ClusterStatus => ({
  conditions,
  observedGeneration: Math.max(0, ...conditions.map((c) => c.observedGeneration)),
  ready: conditions.some((c) => c.type === ConditionType.Ready && c.status === 'True'),
  synced: conditions.some((c) => c.type === ConditionType.Synced && c.status === 'True'),
  updatedAt: '2026-12-01T10:00:00Z',
});

const ready = (generation = G) => cond(ConditionType.Ready, 'True', Reason.Reconciled, generation);

const progress = (status: ClusterStatus | undefined, over: Partial<ProgressInput> = {}) =>
  clusterProgress({ status, targetGeneration: G, startedAtMs: T0, nowMs: T0 + MIN, policy, ...over });

describe('clusterProgress: before Ready at the generation', () => {
  it.each<[string, ClusterStatus | undefined]>([
    ['no status yet', undefined],
    ['no Ready condition', statusOf()],
    ['Ready True at an older generation (the change is not applied yet)', statusOf(ready(G - 1))],
    [
      'Ready Unknown: EKS could not be read',
      statusOf(cond(ConditionType.Ready, 'Unknown', Reason.ObserveFailed)),
    ],
    ['Progressing', statusOf(cond(ConditionType.Ready, 'False', Reason.Progressing))],
    ['a transient error is retried', statusOf(cond(ConditionType.Ready, 'False', Reason.TransientError))],
    [
      'a failure at an older generation is not this change',
      statusOf(cond(ConditionType.Ready, 'False', Reason.PermanentError, G - 1)),
    ],
  ])('waits: %s', (_why, status) => {
    const p = progress(status);
    expect(p.verdict).toBe('waiting');
    expect(p.reason).toMatch(/^waiting for Ready at generation 5/);
    expect(p.readyAtMs).toBeUndefined();
  });

  it.each([
    Reason.PermanentError,
    Reason.PolicyViolation,
    Reason.ImpossibleChange,
    Reason.SpecInvalid,
    Reason.RecordInvalid,
    Reason.NotOwned,
    Reason.UpgradeInsightsFailing,
  ])('fails at once on %s at the generation, with that reason', (reason) => {
    const p = progress(statusOf(cond(ConditionType.Ready, 'False', reason)));
    expect(p.verdict).toBe('failed');
    expect(p.reason).toBe(`Ready False at generation 5 (${reason}: ${reason} message)`);
  });

  it('fails a paused cluster: the change would never be applied', () => {
    const p = progress(statusOf(ready(G - 1), cond(ConditionType.Synced, 'False', Reason.Paused)));
    expect(p).toEqual({
      verdict: 'failed',
      reason: 'reconciliation is paused at generation 5: the change is not applied',
    });
  });

  it('fails once the ready timeout elapses, saying what Ready was', () => {
    const status = statusOf(cond(ConditionType.Ready, 'False', Reason.Progressing));
    expect(progress(status, { nowMs: T0 + 60 * MIN - 1 }).verdict).toBe('waiting');
    const p = progress(status, { nowMs: T0 + 60 * MIN });
    expect(p.verdict).toBe('failed');
    expect(p.reason).toMatch(
      /^not Ready at generation 5 within 1h: Ready False at generation 5 \(Progressing/,
    );
  });

  it('an absent status times out too, never succeeds', () => {
    expect(progress(undefined, { nowMs: T0 + 61 * MIN }).reason).toBe(
      'not Ready at generation 5 within 1h: no Ready condition yet',
    );
  });
});

describe('clusterProgress: the health window', () => {
  it('starts watching when Ready is first seen, and returns when', () => {
    expect(progress(statusOf(ready()))).toEqual({
      verdict: 'watching',
      reason: 'Ready for 0s of the 5m health window',
      readyAtMs: T0 + MIN,
    });
  });

  it('a newer generation Ready counts (someone changed the spec again on top)', () => {
    expect(progress(statusOf(ready(G + 1))).verdict).toBe('watching');
  });

  it('is healthy once Ready held for the window', () => {
    const readyAtMs = T0 + MIN;
    expect(progress(statusOf(ready()), { readyAtMs, nowMs: readyAtMs + 5 * MIN - 1 }).verdict).toBe(
      'watching',
    );
    expect(progress(statusOf(ready()), { readyAtMs, nowMs: readyAtMs + 5 * MIN })).toEqual({
      verdict: 'healthy',
      reason: 'Ready for the health window (5m)',
      readyAtMs,
    });
  });

  it('a window of 0s is healthy as soon as Ready', () => {
    expect(progress(statusOf(ready()), { policy: { ...policy, healthWindowSeconds: 0 } }).verdict).toBe(
      'healthy',
    );
  });

  it.each<[string, ClusterStatus | undefined, RegExp]>([
    [
      'Ready turned False',
      statusOf(cond(ConditionType.Ready, 'False', Reason.AddonUnhealthy)),
      /Ready did not hold.*AddonUnhealthy/,
    ],
    [
      'Ready turned Unknown',
      statusOf(cond(ConditionType.Ready, 'Unknown', Reason.ObserveFailed)),
      /Ready Unknown/,
    ],
    ['the status is gone', undefined, /no Ready condition/],
    [
      'drift shows',
      statusOf(ready(), cond(ConditionType.Drifted, 'True', Reason.DriftDetected)),
      /^drift during the health window: DriftDetected message$/,
    ],
  ])('fails while watching when %s', (_why, status, reason) => {
    const p = progress(status, { readyAtMs: T0, nowMs: T0 + 2 * MIN });
    expect(p.verdict).toBe('failed');
    expect(p.reason).toMatch(reason);
    expect(p.readyAtMs).toBe(T0);
  });

  it('pending differences are not drift', () => {
    const status = statusOf(ready(), cond(ConditionType.Drifted, 'False', Reason.NoDrift));
    expect(progress(status, { readyAtMs: T0, nowMs: T0 + 2 * MIN }).verdict).toBe('watching');
  });
});
