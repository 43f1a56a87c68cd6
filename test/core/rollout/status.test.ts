/** The rollout status and its pure helpers. */
import { describe, expect, it } from 'vitest';
import { InternalError } from '../../../lambdas/core/errors.js';
import type { PlannedStage } from '../../../lambdas/core/rollout/stages.js';
import { initialStatus, shouldHalt, summary, withCluster } from '../../../lambdas/core/rollout/status.js';

const NOW = new Date('2026-12-01T10:00:00Z');
const planned: PlannedStage[] = [
  { name: 'canary', clusters: ['prod/a'], maxConcurrency: 1, soakSeconds: 0, approval: 'after' },
  { name: 'rest', clusters: ['prod/b', 'prod/c'], maxConcurrency: 2, soakSeconds: 600, approval: 'none' },
];

describe('initialStatus', () => {
  it('holds every stage and cluster, pending', () => {
    expect(initialStatus(1, planned, NOW)).toEqual({
      phase: 'Pending',
      generation: 1,
      stages: [
        {
          name: 'canary',
          state: 'pending',
          approval: 'after',
          maxConcurrency: 1,
          soakSeconds: 0,
          clusters: [{ id: 'prod/a', state: 'pending' }],
        },
        {
          name: 'rest',
          state: 'pending',
          approval: 'none',
          maxConcurrency: 2,
          soakSeconds: 600,
          clusters: [
            { id: 'prod/b', state: 'pending' },
            { id: 'prod/c', state: 'pending' },
          ],
        },
      ],
      updatedAt: '2026-12-01T10:00:00.000Z',
    });
  });
});

describe('withCluster', () => {
  it('patches one cluster and leaves the given status alone', () => {
    const before = initialStatus(1, planned, NOW);
    const after = withCluster(before, 'rest', 'prod/c', {
      state: 'inProgress',
      generation: 7,
      startedAt: NOW.toISOString(),
    });
    expect(after.stages[1]?.clusters[1]).toEqual({
      id: 'prod/c',
      state: 'inProgress',
      generation: 7,
      startedAt: NOW.toISOString(),
    });
    expect(after.stages[1]?.clusters[0]).toBe(before.stages[1]?.clusters[0]);
    expect(after.stages[0]).toBe(before.stages[0]);
    expect(before.stages[1]?.clusters[1]?.state).toBe('pending');
  });

  it('refuses a stage or cluster the status does not hold (a caller bug)', () => {
    const s = initialStatus(1, planned, NOW);
    expect(() => withCluster(s, 'nope', 'prod/a', {})).toThrow(InternalError);
    expect(() => withCluster(s, 'canary', 'prod/b', {})).toThrow(
      /stage canary of the rollout status has no cluster prod\/b/,
    );
  });
});

describe('shouldHalt', () => {
  const failed = (n: number) =>
    ['prod/b', 'prod/c']
      .slice(0, n)
      .reduce((s, id) => withCluster(s, 'rest', id, { state: 'failed' }), initialStatus(1, planned, NOW));

  it.each([
    [0, 0, false],
    [1, 0, true],
    [1, 1, false],
    [2, 1, true],
  ])('%d failed with maxFailures %d: halt %s', (n, maxFailures, expected) =>
    expect(shouldHalt(failed(n), { maxFailures })).toBe(expected),
  );
});

describe('summary', () => {
  it('names the phase, the current stage and the counts', () => {
    let s = initialStatus(1, planned, NOW);
    expect(summary(s)).toBe('Pending: stage 1/2 canary pending; 0/3 succeeded');
    s = withCluster(s, 'canary', 'prod/a', { state: 'succeeded' });
    s = {
      ...s,
      phase: 'Running',
      stages: s.stages.map((x, i) =>
        i === 0 ? { ...x, state: 'succeeded' } : { ...x, state: 'inProgress' },
      ),
    };
    s = withCluster(s, 'rest', 'prod/b', { state: 'inProgress' });
    s = withCluster(s, 'rest', 'prod/c', { state: 'failed', reason: 'Ready False' });
    expect(summary(s)).toBe('Running: stage 2/2 rest inProgress; 1/3 succeeded, 1 in progress, 1 failed');
  });

  it('says why a rollout halted, and when every stage is done', () => {
    const s = initialStatus(1, planned, NOW);
    const halted = { ...s, phase: 'Halted' as const, halt: { cluster: 'prod/c', reason: 'Ready False' } };
    expect(summary(halted)).toMatch(/^Halted: .*; halted: prod\/c: Ready False$/);
    const done = {
      ...s,
      phase: 'Completed' as const,
      stages: s.stages.map((x) => ({ ...x, state: 'succeeded' as const })),
    };
    expect(summary(done)).toBe('Completed: 2/2 stages done; 0/3 succeeded');
  });
});
