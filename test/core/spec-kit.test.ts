/**
 * The spec's schema kit (lambdas/core/spec/kit.ts, build.ts): the rules every spec and rollout check
 * shares, through the builders and through the real schemas. Replacing the schema library with these
 * plain closures took 13-24 ms off the cold load of the functions that validate a spec
 * (docs/performance.md, "Bundles"); these tests pin down what the spec's validation must still do.
 */
import { describe, expect, it } from 'vitest';
import { failurePolicyOf } from '../../lambdas/core/rollout/failure-policy.js';
import { validateRolloutSpec } from '../../lambdas/core/rollout/schema.js';
import {
  array,
  int,
  map,
  maximum,
  maxLength,
  minLength,
  number,
  object,
  oneOf,
  optional,
  parsedBy,
  readonly,
  record,
  regex,
  rule,
  string,
  withDefault,
  withInputDefault,
} from '../../lambdas/core/spec/build.js';
import type { KitIssue, Schema } from '../../lambdas/core/spec/kit.js';
import { specSchema } from '../../lambdas/core/spec/schema.js';
import { validateSpec } from '../../lambdas/core/spec/validate.js';
import { baseSpecInput } from './support/fixtures.js';

function run<O>(s: Schema<O, unknown, 'required'>, input: unknown): { out: O; issues: KitIssue[] } {
  const issues: KitIssue[] = [];
  const out = s.run(input, [], issues);
  return { out, issues };
}
const said = (issues: readonly KitIssue[]) => issues.map((i) => [i.path.join('.'), i.code, i.message]);

describe('the spec kit', () => {
  it('says one thing about a value of the wrong type, even one with a length', () => {
    const name = string('name must be a string', minLength(1, 'name must not be empty'));
    expect(said(run(name, []).issues)).toEqual([['', 'invalid_type', 'name must be a string']]);
    const list = array(string(), 'a list', minLength(1, 'at least one'));
    expect(said(run(list, '').issues)).toEqual([['', 'invalid_type', 'a list']]);
    // NaN and the infinities are not numbers JSON can hold.
    for (const n of [Number.NaN, Number.POSITIVE_INFINITY])
      expect(said(run(number('a number'), n).issues)).toEqual([['', 'invalid_type', 'a number']]);
  });

  it('runs every check of a well-typed value; a fraction stops the bounds', () => {
    const name = string('', minLength(2, 'too short'), regex(/^[a-z]+$/, 'letters only'));
    expect(said(run(name, '1').issues)).toEqual([
      ['', 'too_small', 'too short'],
      ['', 'invalid_format', 'letters only'],
    ]);
    const count = number('n', ...int('whole'), maximum(3, 'at most 3'));
    expect(said(run(count, 4.5).issues)).toEqual([['', 'invalid_type', 'whole']]);
    expect(said(run(count, 2 ** 60).issues)).toEqual([
      ['', 'too_big', 'whole'],
      ['', 'too_big', 'at most 3'],
    ]);
  });

  it('runs a rule across fields only when nothing below it has a wrong type or value', () => {
    const seen: unknown[] = [];
    const pair = object(
      { a: number('a must be a number'), b: optional(string('b', regex(/^x/, 'b starts with x'))) },
      'an object',
      rule((v, add) => {
        seen.push(v);
        add(['a'], 'rule ran');
      }),
    );
    expect(said(run(pair, { a: 'one' }).issues)).toEqual([['a', 'invalid_type', 'a must be a number']]);
    expect(seen).toEqual([]);
    // A failed format or an unknown key is not a wrong type: the rule still reads typed values.
    expect(said(run(pair, { a: 1, b: 'y', c: 1 }).issues)).toEqual([
      ['b', 'invalid_format', 'b starts with x'],
      ['', 'unrecognized_keys', 'unknown keys: "c"'],
      ['a', 'custom', 'rule ran'],
    ]);
    const item = oneOf(['x'], 'not x');
    const list = array(
      item,
      'a list',
      rule(() => {
        throw new Error('a rule must not run over a value outside its allowlist');
      }),
    );
    expect(said(run(list, ['y']).issues)).toEqual([['0', 'invalid_value', 'not x']]);
  });

  it('says a list is too long without reading its items, and stops the rules above it', () => {
    const ids = array(
      string('ids are strings'),
      'a list',
      maxLength(2, 'at most 2'),
      rule(() => {
        throw new Error('a rule must not run over a list that is too long');
      }),
    );
    expect(said(run(ids, new Array(1_000_000)).issues)).toEqual([['', 'too_big', 'at most 2']]);
    const outer = object(
      { ids },
      'an object',
      rule(() => {
        throw new Error('nor the rules of the object around it');
      }),
    );
    expect(said(run(outer, { ids: [1, 2, 3] }).issues)).toEqual([['ids', 'too_big', 'at most 2']]);
  });

  it('freezes what is read-only, once valid', () => {
    const taint = readonly(object({ key: string('a string') }, 'an object'));
    expect(Object.isFrozen(run(taint, { key: 'a' }).out)).toBe(true);
    const spec = specSchema.parse({
      ...baseSpecInput,
      nodeCount: undefined,
      instanceType: undefined,
      nodeGroups: [
        {
          name: 'a',
          instanceTypes: ['m5.large'],
          nodeCount: 1,
          taints: [{ key: 'k', effect: 'NO_SCHEDULE' }],
        },
      ],
    });
    expect(Object.isFrozen(spec.nodeGroups[0]?.taints[0])).toBe(true);
  });

  it('refuses what is not a plain object (a set, a binary, a date, an object given another prototype)', () => {
    const tags = record(string('values are strings'), 'tags must be a map');
    const fake = Object.create({ inherited: 'x' }) as object;
    const symbolKeyed = { a: 'b', [Symbol('s')]: 'c' };
    for (const v of [new Set(['a']), new Uint8Array(2), new Date(0), fake, symbolKeyed, ['a'], null])
      expect(said(run(tags, v).issues)).toEqual([['', 'invalid_type', 'tags must be a map']]);
    expect(run(tags, Object.assign(Object.create(null) as object, { a: 'b' })).issues).toEqual([]);
  });

  it('fills a default afresh on every parse, and reads an input default as a user would have written it', () => {
    const s = object(
      { tags: withDefault(record(string(), 'a map'), () => ({})), soak: withInputDefault(seconds, '2m') },
      'an object',
    );
    const a = run(s, {}).out;
    const b = run(s, {}).out;
    expect(a).toEqual({ tags: {}, soak: 120 });
    expect(a.tags).not.toBe(b.tags);
    expect(s.json()).toEqual({
      type: 'object',
      properties: {
        tags: {
          default: {},
          type: 'object',
          propertyNames: { type: 'string' },
          additionalProperties: { type: 'string' },
        },
        soak: { default: '2m' },
      },
      additionalProperties: false,
    });
  });

  it('turns an output only when it is valid', () => {
    const doubled = map(number('n'), (n) => n * 2);
    expect(run(doubled, 2)).toEqual({ out: 4, issues: [] });
    expect(said(run(doubled, 'x').issues)).toEqual([['', 'invalid_type', 'n']]);
  });

  it('describes a whole number with its safe bounds, narrowed by the bounds after it', () => {
    expect(number('n', ...int('whole')).json()).toEqual({
      type: 'integer',
      minimum: Number.MIN_SAFE_INTEGER,
      maximum: Number.MAX_SAFE_INTEGER,
    });
    expect(number('n', ...int('whole'), maximum(3, 'at most 3')).json()).toEqual({
      type: 'integer',
      minimum: Number.MIN_SAFE_INTEGER,
      maximum: 3,
    });
  });
});

const seconds = parsedBy<number>((input) =>
  typeof input === 'string' && /^\d+m$/.test(input)
    ? { value: Number.parseInt(input, 10) * 60 }
    : { problem: 'minutes, like "2m"' },
);

describe('the spec and rollout schemas on the kit', () => {
  it('reports every issue of a spec once, by field, in the order of the fields', () => {
    const v = validateSpec({
      ...baseSpecInput,
      clusterName: [],
      nodeCount: 2.5,
      tags: { ok: 1 },
      extra: true,
    });
    expect(v.ok).toBe(false);
    if (v.ok) return;
    expect(v.issues.map((i) => [i.field, i.rule])).toEqual([
      ['spec.clusterName', 'invalid_type'],
      ['spec.nodeCount', 'invalid_type'],
      ['spec.tags.ok', 'invalid_type'],
      ['spec.extra', 'unknown_field'],
    ]);
  });

  it('knows only versions of its own: a name every object inherits is not one', () => {
    const v = validateSpec({ ...baseSpecInput, kubernetesVersion: 'constructor' });
    expect(v.ok ? [] : v.issues.map((i) => i.rule)).toEqual(['invalid_format', 'custom']);
  });

  it('checks a rollout rule even when another rule of the rollout failed below it', () => {
    const v = validateRolloutSpec({
      clusters: ['prod/a', 'prod/a'],
      change: { kubernetesVersion: '1.31' },
      stages: [{ name: 'one' }, { name: 'two' }],
    });
    expect(v.ok ? [] : v.issues.map((i) => i.message)).toEqual([
      'spec.clusters[1]: prod/a is listed twice',
      'spec.stages[0]: stage one has no selector, clusters or share, so it takes every remaining cluster: only the last stage may',
    ]);
  });

  it('reports a list over its maximum once, not once per item', () => {
    const stages = Array.from({ length: 10_000 }, (_, i) => ({ name: `s${i}` }));
    const v = validateRolloutSpec({ clusters: ['prod/a'], change: { kubernetesVersion: '1.31' }, stages });
    expect(v.ok ? [] : v.issues.map((i) => i.message)).toEqual(['spec.stages: at most 20 stages']);
    const subnets = validateSpec({ ...baseSpecInput, network: { subnetIds: Array(17).fill('x') } });
    expect(subnets.ok ? [] : subnets.issues.map((i) => i.message)).toEqual([
      'spec.network.subnetIds: at most 16 subnets are allowed',
    ]);
  });

  it('refuses add-on configuration nested too deep or containing itself, rather than overflow the stack', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 100_000; i++) deep = { d: deep };
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    for (const configurationValues of [deep, cyclic]) {
      const v = validateSpec({ ...baseSpecInput, addons: [{ name: 'vpc-cni', configurationValues }] });
      expect(v.ok ? [] : v.issues.map((i) => i.field)).toEqual(['spec.addons.0.configurationValues']);
      expect(v.ok ? '' : v.issues[0]?.message).toMatch(/nested deeper than 64 levels \(or contains itself\)/);
    }
  });

  it('refuses a rollout spec that is not a plain object when reading its failure policy alone', () => {
    for (const spec of [new Set(), new Date(0), Object.create({ failurePolicy: {} })])
      expect(failurePolicyOf(spec).ok).toBe(false);
    expect(failurePolicyOf({}).ok).toBe(true);
  });

  it('parses a valid spec to the normalised form, for fixtures that know it is valid', () => {
    expect(specSchema.parse(baseSpecInput).nodeGroups).toHaveLength(1);
    expect(() => specSchema.parse({ ...baseSpecInput, region: 'mars-1' })).toThrow(/region: region "mars-1"/);
  });
});
