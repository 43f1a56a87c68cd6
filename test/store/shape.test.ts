/**
 * The item parsers' checks (store/shape.ts) say what zod says for the same schema and input, so a
 * reason reads the same whether a record or a spec was wrong, and every issue is found, in order.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import '../../local/cli/config/zod-locale.js';
import {
  atLeast,
  atMost,
  bool,
  type Check,
  describeIssue,
  int,
  issuesOf,
  listOf,
  mapOf,
  nonEmpty,
  num,
  oneOf,
  optional,
  shape,
  str,
} from '../../lambdas/store/shape.js';

const zodReasons = (schema: z.ZodMiniType, v: unknown) => {
  const r = schema.safeParse(v);
  return r.success
    ? []
    : r.error.issues.map((i) => describeIssue({ path: i.path.map((p) => p as string), message: i.message }));
};
const reasons = (check: Check, v: unknown) => issuesOf(check, v).map(describeIssue);

const pairs: [string, Check, z.ZodMiniType, unknown[]][] = [
  ['string', str(), z.string(), ['a', 1, null, undefined, [], {}, true, new Set(['a']), new Uint8Array(1)]],
  [
    'number',
    num(),
    z.number(),
    [1, 1.5, 'x', Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, null],
  ],
  ['int', int(), z.int(), [1, 1.5, '1', undefined, 2 ** 60, -(2 ** 60)]],
  ['int >= 1', int(atLeast(1)), z.int().check(z.minimum(1)), [0, 1, -3, 0.5, -(2 ** 60)]],
  ['number <= 10', num(atMost(10)), z.number().check(z.maximum(10)), [10, 11]],
  ['non-empty string', str(nonEmpty), z.string().check(z.minLength(1)), ['', 'a']],
  ['boolean', bool, z.boolean(), [true, 'true', 0]],
  ['enum', oneOf(['a', 'b']), z.enum(['a', 'b']), ['a', 'c', 1, undefined]],
  // biome-ignore lint/suspicious/noSparseArray: a hole is what this case is about
  ['list', listOf(str()), z.array(z.string()), [[], ['a', 1, 'b', 2], 'a', null, [, 'a']]],
  [
    'map',
    mapOf(int()),
    z.record(z.string(), z.int()),
    [
      {},
      { a: 1, b: 'x' },
      [],
      'a',
      new Set(['a']),
      new Uint8Array(2),
      new Map([['a', 1]]),
      new Date(0),
      JSON.parse('{"__proto__": "x", "a": 1}'),
      Object.create(null),
    ],
  ],
  ['optional', optional(str()), z.optional(z.string()), [undefined, 'a', 1]],
  [
    'object',
    shape({ a: str(), b: optional(int()), c: listOf(shape({ d: bool })) }),
    z.looseObject({ a: z.string(), b: z.optional(z.int()), c: z.array(z.looseObject({ d: z.boolean() })) }),
    [{ a: 'x', c: [], extra: 1 }, { a: 1, b: 'y', c: [{ d: 1 }, { d: true }, {}] }, 'x', null, []],
  ],
];

describe('shape checks', () => {
  it.each(pairs)('%s: the same issues, paths and messages as zod', (_, check, schema, values) => {
    for (const v of values) expect(reasons(check, v), JSON.stringify(v)).toEqual(zodReasons(schema, v));
  });

  it('an object must be a plain one: a set, a binary or a replaced prototype is not (stricter than zod)', () => {
    const check = shape({ a: optional(str()) });
    expect(reasons(check, new Set())).toEqual(['(item): Invalid input: expected object, received Set']);
    expect(reasons(check, new Uint8Array(1))).toEqual([
      '(item): Invalid input: expected object, received Uint8Array',
    ]);
    // What unmarshalling an attribute named __proto__ makes: its attributes are inherited, not own.
    const inherited = Object.create({ a: 'x' }) as object;
    expect(reasons(check, inherited)).toEqual(['(item): Invalid input: expected object, received Object']);
    expect(reasons(check, Object.create(null))).toEqual([]);
  });

  it('a refinement runs on a well-typed value only, and says its own message', () => {
    const named = str([(s) => s.includes('/'), 'must be <a>/<b>']);
    expect(reasons(named, 'x')).toEqual(['(item): must be <a>/<b>']);
    expect(reasons(named, 3)).toEqual(['(item): Invalid input: expected string, received number']);
    expect(reasons(mapOf(undefined, 'must be a map'), 'x')).toEqual(['(item): must be a map']);
  });
});
