/** Label selectors with Kubernetes semantics: each case says which rule it checks. */
import { describe, expect, it } from 'vitest';
import {
  describeSelector,
  type LabelSelector,
  matchesSelector,
} from '../../../lambdas/core/rollout/selector.js';

const labels = { env: 'prod', tier: 'web', region: 'eu' };

describe('matchesSelector', () => {
  it.each<[string, LabelSelector, boolean]>([
    ['matchLabels, all equal', { matchLabels: { env: 'prod', tier: 'web' } }, true],
    ['matchLabels, one differs', { matchLabels: { env: 'prod', tier: 'db' } }, false],
    ['matchLabels, key absent', { matchLabels: { team: 'a' } }, false],
    [
      'In, value listed',
      { matchExpressions: [{ key: 'env', operator: 'In', values: ['dev', 'prod'] }] },
      true,
    ],
    ['In, value not listed', { matchExpressions: [{ key: 'env', operator: 'In', values: ['dev'] }] }, false],
    ['In, key absent', { matchExpressions: [{ key: 'team', operator: 'In', values: ['a'] }] }, false],
    [
      'NotIn, value listed',
      { matchExpressions: [{ key: 'env', operator: 'NotIn', values: ['prod'] }] },
      false,
    ],
    [
      'NotIn, key absent (Kubernetes: matches)',
      { matchExpressions: [{ key: 'team', operator: 'NotIn', values: ['a'] }] },
      true,
    ],
    ['Exists', { matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, true],
    ['Exists, absent', { matchExpressions: [{ key: 'team', operator: 'Exists' }] }, false],
    ['DoesNotExist', { matchExpressions: [{ key: 'team', operator: 'DoesNotExist' }] }, true],
    ['DoesNotExist, present', { matchExpressions: [{ key: 'env', operator: 'DoesNotExist' }] }, false],
    [
      'labels and expressions are ANDed',
      { matchLabels: { env: 'prod' }, matchExpressions: [{ key: 'region', operator: 'In', values: ['us'] }] },
      false,
    ],
    ['empty selector matches everything (Kubernetes; the schema refuses it)', {}, true],
  ])('%s', (_why, selector, expected) => expect(matchesSelector(labels, selector)).toBe(expected));

  it('reads own labels only: a key named like an Object member is not there unless set', () => {
    expect(matchesSelector({}, { matchExpressions: [{ key: 'constructor', operator: 'Exists' }] })).toBe(
      false,
    );
    expect(matchesSelector({}, { matchLabels: { toString: 'x' } })).toBe(false);
  });
});

describe('describeSelector', () => {
  it('writes the selector as kubectl -l does', () => {
    expect(
      describeSelector({
        matchLabels: { env: 'prod' },
        matchExpressions: [
          { key: 'tier', operator: 'In', values: ['a', 'b'] },
          { key: 'z', operator: 'NotIn', values: ['c'] },
          { key: 'x', operator: 'Exists' },
          { key: 'legacy', operator: 'DoesNotExist' },
        ],
      }),
    ).toBe('env=prod,tier in (a,b),z notin (c),x,!legacy');
  });
});
