/** The CloudRollout spec: defaults, and every refusal naming its field. Each case says why it exists. */
import { describe, expect, it } from 'vitest';
import { failurePolicyOf } from '../../../lambdas/core/rollout/failure-policy.js';
import { validateRolloutSpec } from '../../../lambdas/core/rollout/schema.js';
import { rolloutInput } from './support/rollout.js';

const stage = (over: Record<string, unknown> = {}) => ({ name: 's', ...over });
const stages = (...s: Record<string, unknown>[]) => ({ stages: s });

function issuesOf(input: unknown) {
  const r = validateRolloutSpec(input);
  if (r.ok) throw new Error('expected the spec to be refused');
  return r.issues;
}

describe('validateRolloutSpec: defaults', () => {
  it('applies the defaults of stages and failure policy, durations in seconds', () => {
    const r = validateRolloutSpec(rolloutInput());
    expect(r.ok && r.spec).toEqual({
      selector: { matchLabels: { env: 'prod' } },
      change: { kubernetesVersion: '1.32' },
      stages: [
        { name: 'canary', clusters: ['prod/a'], approval: 'after', maxConcurrency: 1, soakSeconds: 0 },
        { name: 'rest', maxConcurrency: { percent: 50 }, approval: 'none', soakSeconds: 0 },
      ],
      failurePolicy: { maxFailures: 0, readyTimeoutSeconds: 3_600, healthWindowSeconds: 300, alarms: [] },
    });
  });

  it('reads durations, shares and the failure policy as written', () => {
    const r = validateRolloutSpec(
      rolloutInput({
        ...stages(
          stage({ name: 'a', share: '10%', soak: '2h', maxConcurrency: 3, approval: 'before' }),
          stage(),
        ),
        failurePolicy: { maxFailures: 2, readyTimeout: '30m', healthWindow: '0s', alarms: ['api-5xx'] },
      }),
    );
    expect(r.ok && r.spec.stages[0]).toEqual({
      name: 'a',
      share: { percent: 10 },
      soakSeconds: 7_200,
      maxConcurrency: 3,
      approval: 'before',
    });
    expect(r.ok && r.spec.failurePolicy).toEqual({
      maxFailures: 2,
      readyTimeoutSeconds: 1_800,
      healthWindowSeconds: 0,
      alarms: ['api-5xx'],
    });
  });

  it('takes a list of clusters instead of a selector', () => {
    const r = validateRolloutSpec(rolloutInput({ selector: undefined, clusters: ['prod/a', 'prod/b'] }));
    expect(r.ok).toBe(true);
  });
});

/** Each bad spec: why it is bad, the change to a valid one, the field named, and words of the rule. */
const BAD: ReadonlyArray<[why: string, over: Record<string, unknown>, field: string, rule: RegExp]> = [
  [
    'a share of 0% takes nothing',
    stages(stage({ share: '0%' }), stage({ name: 't' })),
    'spec.stages[0].share',
    /"1%" to "100%"/,
  ],
  [
    'a share over 100%',
    stages(stage({ share: '150%' }), stage({ name: 't' })),
    'spec.stages[0].share',
    /"1%" to "100%"/,
  ],
  [
    'a share that is not a percentage',
    stages(stage({ share: 0.5 }), stage({ name: 't' })),
    'spec.stages[0].share',
    /percentage/,
  ],
  [
    'maxConcurrency 0%',
    stages(stage({ maxConcurrency: '0%' })),
    'spec.stages[0].maxConcurrency',
    /at least 1, or a percentage/,
  ],
  ['maxConcurrency 0', stages(stage({ maxConcurrency: 0 })), 'spec.stages[0].maxConcurrency', /at least 1/],
  [
    'maxConcurrency a fraction',
    stages(stage({ maxConcurrency: 1.5 })),
    'spec.stages[0].maxConcurrency',
    /whole number/,
  ],
  [
    'maxConcurrency 101%',
    stages(stage({ maxConcurrency: '101%' })),
    'spec.stages[0].maxConcurrency',
    /percentage/,
  ],
  [
    'duplicate stage names',
    stages(stage({ name: 'a', share: '10%' }), stage({ name: 'a' })),
    'spec.stages[1].name',
    /used by stages\[0\] too/,
  ],
  [
    'a stage name that is not a DNS label',
    stages(stage({ name: 'Canary' })),
    'spec.stages[0].name',
    /DNS label/,
  ],
  ['no stage', stages(), 'spec.stages', /at least one stage/],
  [
    '21 stages',
    stages(...Array.from({ length: 21 }, (_, i) => stage({ name: `s${i}`, share: '1%' }))),
    'spec.stages',
    /at most 20/,
  ],
  [
    'a catch-all stage before the last',
    stages(stage({ name: 'all' }), stage({ name: 't', share: '10%' })),
    'spec.stages[0]',
    /only the last stage may/,
  ],
  [
    'a stage with both selector and share',
    stages(stage({ share: '10%', selector: { matchLabels: { a: 'b' } } })),
    'spec.stages[0].share',
    /at most one of selector, clusters and share/,
  ],
  ['a soak over 30 days', stages(stage({ soak: '31d' })), 'spec.stages[0].soak', /at most 30d/],
  ['a soak without unit', stages(stage({ soak: '30' })), 'spec.stages[0].soak', /whole number and a unit/],
  [
    'an unknown approval',
    stages(stage({ approval: 'always' })),
    'spec.stages[0].approval',
    /"before", "after" or "none"/,
  ],
  [
    'an unknown stage field',
    stages(stage({ wait: '1m' })),
    'spec.stages[0].wait',
    /a stage may hold only name, selector, clusters, share, maxConcurrency, soak, approval/,
  ],
  [
    'a stage naming a cluster the rollout does not list',
    { selector: undefined, clusters: ['prod/a'], ...stages(stage({ clusters: ['prod/b'] })) },
    'spec.stages[0].clusters[0]',
    /prod\/b is not among the rollout's clusters/,
  ],
  [
    'In without values',
    { selector: { matchExpressions: [{ key: 'env', operator: 'In' }] } },
    'spec.selector.matchExpressions[0].values',
    /In needs at least one value/,
  ],
  [
    'NotIn with an empty list',
    { selector: { matchExpressions: [{ key: 'env', operator: 'NotIn', values: [] }] } },
    'spec.selector.matchExpressions[0].values',
    /NotIn needs at least one value/,
  ],
  [
    'Exists with values',
    { selector: { matchExpressions: [{ key: 'env', operator: 'Exists', values: ['x'] }] } },
    'spec.selector.matchExpressions[0].values',
    /Exists takes no values/,
  ],
  [
    'an unknown operator',
    { selector: { matchExpressions: [{ key: 'env', operator: 'Equals', values: ['x'] }] } },
    'spec.selector.matchExpressions[0].operator',
    /In, NotIn, Exists, DoesNotExist/,
  ],
  [
    'an empty selector would select every cluster',
    { selector: {} },
    'spec.selector',
    /at least one matchLabels entry or match expression/,
  ],
  [
    'a selector of empty parts too',
    { selector: { matchLabels: {}, matchExpressions: [] } },
    'spec.selector',
    /select every cluster/,
  ],
  [
    'a label key Kubernetes refuses',
    { selector: { matchLabels: { 'bad key': 'x' } } },
    'spec.selector.matchLabels["bad key"]',
    /key name/,
  ],
  [
    'both selector and clusters',
    { clusters: ['prod/a'] },
    'spec.clusters',
    /exactly one of selector and clusters/,
  ],
  ['neither selector nor clusters', { selector: undefined }, 'spec', /exactly one of selector and clusters/],
  [
    'a cluster id that is not <namespace>/<name>',
    { selector: undefined, clusters: ['prod'] },
    'spec.clusters[0]',
    /record id <namespace>\/<name>/,
  ],
  [
    'a cluster listed twice',
    { selector: undefined, clusters: ['prod/a', 'prod/a'] },
    'spec.clusters[1]',
    /prod\/a is listed twice/,
  ],
  ['an empty cluster list', { selector: undefined, clusters: [] }, 'spec.clusters', /at least one record id/],
  [
    'maxFailures below 0',
    { failurePolicy: { maxFailures: -1 } },
    'spec.failurePolicy.maxFailures',
    /at least 0/,
  ],
  [
    'a ready timeout of 0s would fail every cluster',
    { failurePolicy: { readyTimeout: '0s' } },
    'spec.failurePolicy.readyTimeout',
    /at least 1s/,
  ],
  [
    'a health window over 30 days',
    { failurePolicy: { healthWindow: '721h' } },
    'spec.failurePolicy.healthWindow',
    /at most 30d/,
  ],
  [
    'an empty alarm name',
    { failurePolicy: { alarms: [''] } },
    'spec.failurePolicy.alarms[0]',
    /must not be empty/,
  ],
  [
    'approvalTimeout is not part of the spec',
    { approvalTimeout: '1h' },
    'spec.approvalTimeout',
    /a rollout spec may hold only selector, clusters, change, stages, failurePolicy/,
  ],
  ['no change', { change: undefined }, 'spec.change', /^spec\.change: required$/],
];

describe('validateRolloutSpec: refusals', () => {
  it.each(BAD)('%s', (_why, over, field, rule) => {
    const issue = issuesOf(rolloutInput(over)).find((i) => i.field === field);
    expect(issue?.message, JSON.stringify(issuesOf(rolloutInput(over)))).toMatch(rule);
    expect(issue?.message.startsWith(`${field}: `)).toBe(true);
  });

  it('refuses what is not a mapping', () => {
    expect(issuesOf(undefined)[0]?.field).toBe('spec');
    expect(issuesOf(['x'])[0]?.message).toMatch(/a rollout spec must be a mapping/);
  });

  it('refuses a reserved key at any depth, alone: what zod says once a record dropped it is about another document', () => {
    const input = JSON.parse(
      '{"selector":{"matchLabels":{"__proto__":"x"}},"change":{"kubernetesVersion":"1.32"},"stages":[{"name":"s"}]}',
    );
    const issues = issuesOf(input);
    expect(issues).toEqual([
      expect.objectContaining({ field: 'spec.selector.matchLabels.__proto__', rule: 'reserved_key' }),
    ]);
  });
});

describe('failurePolicyOf: the policy alone, as the watch and report steps read it', () => {
  it('is the policy the whole spec validates to, defaults included', () => {
    for (const over of [
      {},
      { failurePolicy: { maxFailures: 2, readyTimeout: '30m', alarms: ['api-5xx'] } },
    ]) {
      const whole = validateRolloutSpec(rolloutInput(over));
      const alone = failurePolicyOf(rolloutInput(over));
      expect(alone).toEqual({ ok: true, policy: whole.ok && whole.spec.failurePolicy });
    }
    expect(failurePolicyOf({}).ok).toBe(true);
  });

  it('refuses a spec that is not a mapping, and a reserved key, as the whole spec does', () => {
    for (const spec of [undefined, null, 'x', ['x']]) {
      const r = failurePolicyOf(spec);
      expect(r.ok ? [] : r.issues.map((i) => [i.field, i.rule])).toEqual([['spec', 'invalid_type']]);
    }
    const r = failurePolicyOf(JSON.parse('{"failurePolicy":{"__proto__":{"maxFailures":5}}}'));
    expect(r.ok ? [] : r.issues.map((i) => [i.field, i.rule])).toEqual([
      ['spec.failurePolicy.__proto__', 'reserved_key'],
    ]);
  });

  it('names the field it refuses, the same way the whole spec does', () => {
    for (const [, over, field, rule] of BAD.filter(([, o]) => 'failurePolicy' in o)) {
      const r = failurePolicyOf(rolloutInput(over));
      const issue = r.ok ? undefined : r.issues.find((i) => i.field === field);
      expect(issue?.message).toMatch(rule);
    }
  });
});
