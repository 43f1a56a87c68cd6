/** The -l selector parser and matcher: kubectl's syntax and Kubernetes' semantics, case by case. */
import { describe, expect, it } from 'vitest';
import { matches, parseSelector, SelectorError } from '../../local/cli/select.js';

describe('parseSelector', () => {
  it.each([
    ['app=web', [{ key: 'app', op: 'in', values: ['web'] }]],
    ['app==web', [{ key: 'app', op: 'in', values: ['web'] }]],
    ['app!=web', [{ key: 'app', op: 'notin', values: ['web'] }]],
    ['app', [{ key: 'app', op: 'exists' }]],
    ['!app', [{ key: 'app', op: 'absent' }]],
    ['env in (a, b)', [{ key: 'env', op: 'in', values: ['a', 'b'] }]],
    ['env notin (a)', [{ key: 'env', op: 'notin', values: ['a'] }]],
    [
      'app=,example.com/team',
      [
        { key: 'app', op: 'in', values: [''] },
        { key: 'example.com/team', op: 'exists' },
      ],
    ],
    [
      'a=1, b in (x,y),!c',
      [
        { key: 'a', op: 'in', values: ['1'] },
        { key: 'b', op: 'in', values: ['x', 'y'] },
        { key: 'c', op: 'absent' },
      ],
    ],
  ])('%s', (text, expected) => expect(parseSelector(text)).toEqual(expected));

  it.each(['', ' ', '\t '])('an empty selector %j selects everything, as in kubectl', (text) => {
    expect(parseSelector(text)).toEqual([]);
    expect(matches(parseSelector(text), { app: 'web' })).toBe(true);
    expect(matches(parseSelector(text), {})).toBe(true);
  });

  it.each([
    ['app=web,', '', 'a trailing comma leaves an empty term'],
    ['env in (a', 'env in (a', 'an unclosed set'],
    ['env in ()', 'env in ()', 'an empty set'],
    ['-app=x', '-app=x', 'a key breaking the label rules'],
    ['app=a b', 'app=a b', 'a value with a space'],
    ['app=web,x>1', 'x>1', 'numeric comparisons are refused, not ignored'],
    ['app=web=x', 'app=web=x', 'two operators'],
  ])('refuses %j, naming the term (%s)', (text, term) => {
    let caught: unknown;
    try {
      parseSelector(text);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(SelectorError);
    expect((caught as SelectorError).term).toBe(term);
    expect((caught as SelectorError).message).toContain(`term ${JSON.stringify(term)}`);
  });
});

describe('matches', () => {
  const labels = { app: 'web', tier: '1' };
  it.each([
    ['app=web', true],
    ['app=db', false],
    ['app!=db', true],
    ['missing!=x', true], // != and notin also match a record without the key, as in Kubernetes
    ['missing notin (x)', true],
    ['missing in (x)', false],
    ['tier', true],
    ['!tier', false],
    ['app in (db,web),tier notin (2)', true],
    ['app=web,!tier', false],
  ])('%s -> %s', (text, expected) => expect(matches(parseSelector(text), labels)).toBe(expected));
});
