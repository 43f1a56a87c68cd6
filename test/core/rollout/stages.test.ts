/** Stage planning: which clusters each stage takes, and every surprise an error naming its cause. */
import { describe, expect, it } from 'vitest';
import { type Candidate, planStages } from '../../../lambdas/core/rollout/stages.js';
import { rollout, rolloutInput } from './support/rollout.js';

/** Twelve prod clusters prod/c01..prod/c12, plus two dev ones the selector leaves out. */
const fleet: Candidate[] = [
  ...Array.from({ length: 12 }, (_, i) => ({
    id: `prod/c${String(i + 1).padStart(2, '0')}`,
    labels: { env: 'prod', tier: i < 4 ? 'web' : 'db' },
  })),
  { id: 'dev/d1', labels: { env: 'dev' } },
  { id: 'dev/d2', labels: { env: 'dev', tier: 'web' } },
];

const plan = (over: Record<string, unknown>, candidates: readonly Candidate[] = fleet) =>
  planStages(rollout(rolloutInput(over)), candidates);

const errorOf = (over: Record<string, unknown>, candidates?: readonly Candidate[]) => {
  const r = plan(over, candidates);
  if (r.ok) throw new Error('expected the plan to fail');
  return r.error;
};

describe('planStages: the worked example', () => {
  it('rolls 12 clusters in 3 stages: a canary with approval after, 5 at concurrency 2, 6 at 50% -> 3', () => {
    const r = plan({
      stages: [
        { name: 'canary', clusters: ['prod/c07'], approval: 'after' },
        { name: 'early', share: '45%', maxConcurrency: 2, soak: '1h' },
        { name: 'rest', maxConcurrency: '50%' },
      ],
    });
    expect(r).toEqual({
      ok: true,
      stages: [
        { name: 'canary', clusters: ['prod/c07'], maxConcurrency: 1, soakSeconds: 0, approval: 'after' },
        {
          name: 'early',
          clusters: ['prod/c01', 'prod/c02', 'prod/c03', 'prod/c04', 'prod/c05'],
          maxConcurrency: 2,
          soakSeconds: 3_600,
          approval: 'none',
        },
        {
          name: 'rest',
          clusters: ['prod/c06', 'prod/c08', 'prod/c09', 'prod/c10', 'prod/c11', 'prod/c12'],
          maxConcurrency: 3,
          soakSeconds: 0,
          approval: 'none',
        },
      ],
    });
  });
});

describe('planStages: how stages take clusters', () => {
  it('a stage selector takes the matching clusters still remaining', () => {
    const r = plan({
      stages: [
        { name: 'one', clusters: ['prod/c01'] },
        { name: 'web', selector: { matchLabels: { tier: 'web' } } },
        { name: 'rest' },
      ],
    });
    expect(r.ok && r.stages[1]?.clusters).toEqual(['prod/c02', 'prod/c03', 'prod/c04']);
    expect(r.ok && r.stages[2]?.clusters.length).toBe(8);
  });

  it('a share is of the clusters still unassigned, rounded up, in id order', () => {
    const r = plan({ stages: [{ name: 'a', share: '1%' }, { name: 'b', share: '50%' }, { name: 'c' }] });
    expect(r.ok && r.stages.map((s) => s.clusters.length)).toEqual([1, 6, 5]);
    expect(r.ok && r.stages[0]?.clusters).toEqual(['prod/c01']);
  });

  it('a percentage of concurrency is at least 1 and is of the stage, not the fleet', () => {
    const r = plan({
      stages: [
        { name: 'a', clusters: ['prod/c01'], maxConcurrency: '10%' },
        { name: 'b', maxConcurrency: '100%' },
      ],
    });
    expect(r.ok && r.stages.map((s) => s.maxConcurrency)).toEqual([1, 11]);
  });

  it('a rollout over a list of clusters takes only those', () => {
    const r = plan({ selector: undefined, clusters: ['prod/c03', 'dev/d1'], stages: [{ name: 'all' }] });
    expect(r.ok && r.stages[0]?.clusters).toEqual(['dev/d1', 'prod/c03']);
  });

  it('plans the same whatever the candidates order', () => {
    const over = { stages: [{ name: 'a', share: '25%' }, { name: 'b' }] };
    expect(plan(over, [...fleet].reverse())).toEqual(plan(over));
  });
});

describe('planStages: errors name what is wrong', () => {
  it('a listed cluster without a record', () => {
    expect(
      errorOf({ selector: undefined, clusters: ['prod/c01', 'prod/gone'], stages: [{ name: 'all' }] }),
    ).toMatch(/clusters that have no record: prod\/gone/);
  });

  it('a selector that selects nothing', () => {
    expect(errorOf({ selector: { matchLabels: { env: 'staging' } } })).toMatch(
      /selector env=staging selects no cluster/,
    );
  });

  it('a stage naming a cluster the rollout does not select', () => {
    expect(errorOf({ stages: [{ name: 'canary', clusters: ['dev/d1'] }, { name: 'rest' }] })).toBe(
      'stage canary names dev/d1, which the rollout does not select',
    );
  });

  it('a stage naming a cluster an earlier stage took', () => {
    expect(
      errorOf({
        stages: [
          { name: 'web', selector: { matchLabels: { tier: 'web' } } },
          { name: 'again', clusters: ['prod/c02'] },
          { name: 'rest' },
        ],
      }),
    ).toBe('stage again names prod/c02, which stage web already takes');
  });

  it('a stage that gets no cluster (an empty canary is a typo, not a plan)', () => {
    expect(
      errorOf({
        stages: [{ name: 'canary', selector: { matchLabels: { tier: 'cache' } } }, { name: 'rest' }],
      }),
    ).toBe('stage canary gets no cluster: its selector tier=cache matches none of the remaining clusters');
  });

  it('a stage after every cluster was taken', () => {
    expect(errorOf({ stages: [{ name: 'all', share: '100%' }, { name: 'rest' }] })).toBe(
      'stage rest gets no cluster: no cluster is left for it',
    );
  });

  it('clusters no stage takes', () => {
    expect(errorOf({ stages: [{ name: 'web', selector: { matchLabels: { tier: 'web' } } }] })).toMatch(
      /^no stage takes prod\/c05, prod\/c06, .*prod\/c12: add a last stage/,
    );
  });

  it('a candidate listed twice', () => {
    expect(errorOf({}, [...fleet, fleet[0] as Candidate])).toBe('cluster prod/c01 is a candidate twice');
  });
});
