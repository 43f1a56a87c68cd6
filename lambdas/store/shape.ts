/**
 * The checks the item parsers (record.ts, rollout-record.ts) make, as plain functions. Every reader
 * of the tables parses each item it reads, and several functions load nothing else that needs a
 * schema library: building these checks costs next to nothing at a cold start, where a schema
 * library's schemas cost milliseconds. Messages keep zod's English ("Invalid input: expected
 * number, received string"), as the spec's kit says it (core/spec/kit.ts), so a reason reads the
 * same everywhere.
 *
 * A check never stops at the first issue: like a schema library it reports every issue, each with
 * the path to its attribute, in the order the shape lists the attributes. Maps and objects must be
 * plain objects (stricter than zod for an object whose prototype was replaced), so a record's
 * attributes are always its own.
 */

import { expected, isPlainObject } from '../core/spec/kit.js';

export interface ShapeIssue {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

/** Checks a value at a path, adding what is wrong to `issues`. */
export type Check = (value: unknown, path: readonly (string | number)[], issues: ShapeIssue[]) => void;

/**
 * A condition on an already well-typed value, what to say when it does not hold, and whether the
 * checks after it are then skipped (as zod skips them after a non-integer).
 */
export type Refinement<T> = readonly [(v: T) => boolean, string, 'stop'?];

/** A type test, then every one of `checks`, as zod runs them (a refinement sees a typed value only). */
function typed<T>(is: (v: unknown) => v is T, what: string, checks: readonly Refinement<T>[]): Check {
  return (v, path, issues) => {
    if (!is(v)) return void issues.push({ path, message: expected(what, v) });
    for (const [ok, message, stop] of checks) {
      if (ok(v)) continue;
      issues.push({ path, message });
      if (stop) return;
    }
  };
}

const isString = (v: unknown): v is string => typeof v === 'string';
/** zod's z.number() refuses NaN and the infinities. */
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

export const str = (...checks: Refinement<string>[]): Check => typed(isString, 'string', checks);

export const num = (...checks: Refinement<number>[]): Check => typed(isNumber, 'number', checks);

/** A safe integer (zod's z.int()). */
export const int = (...checks: Refinement<number>[]): Check =>
  num(
    [Number.isInteger, 'Invalid input: expected int, received number', 'stop'],
    [(v) => v <= Number.MAX_SAFE_INTEGER, `Too big: expected int to be <=${Number.MAX_SAFE_INTEGER}`],
    [(v) => v >= Number.MIN_SAFE_INTEGER, `Too small: expected int to be >=${Number.MIN_SAFE_INTEGER}`],
    ...checks,
  );

export const bool: Check = typed((v): v is boolean => typeof v === 'boolean', 'boolean', []);

export const atLeast = (n: number): Refinement<number> => [
  (v) => v >= n,
  `Too small: expected number to be >=${n}`,
];

export const atMost = (n: number): Refinement<number> => [
  (v) => v <= n,
  `Too big: expected number to be <=${n}`,
];

export const nonEmpty: Refinement<string> = [
  (v) => v.length >= 1,
  'Too small: expected string to have >=1 characters',
];

export function oneOf(values: readonly string[]): Check {
  const allowed = new Set<unknown>(values);
  const message = `Invalid option: expected one of ${values.map((v) => JSON.stringify(v)).join('|')}`;
  return (v, path, issues) => {
    if (!allowed.has(v)) issues.push({ path, message });
  };
}

export function listOf(item: Check): Check {
  return (v, path, issues) => {
    if (!Array.isArray(v)) return void issues.push({ path, message: expected('array', v) });
    // By index: a hole is an element that is not there (forEach would skip it).
    for (let i = 0; i < v.length; i++) item(v[i], [...path, i], issues);
  };
}

/**
 * A map of string keys to values passing `value`; `notMap` replaces the message for a non-map. An own
 * `__proto__` key is skipped, as zod skips it.
 */
export function mapOf(value: Check | undefined, notMap?: string): Check {
  return (v, path, issues) => {
    if (!isPlainObject(v)) return void issues.push({ path, message: notMap ?? expected('record', v) });
    if (value) for (const [k, x] of Object.entries(v)) if (k !== '__proto__') value(x, [...path, k], issues);
  };
}

/** Absent (or undefined) passes. */
export const optional =
  (check: Check): Check =>
  (v, path, issues) => {
    if (v !== undefined) check(v, path, issues);
  };

/** An object with these attributes; others are allowed and kept (a newer writer may add some). */
export function shape(fields: Readonly<Record<string, Check>>): Check {
  const entries = Object.entries(fields);
  return (v, path, issues) => {
    if (!isPlainObject(v)) return void issues.push({ path, message: expected('object', v) });
    for (const [k, check] of entries) check(v[k], [...path, k], issues);
  };
}

/** Every issue of `value` against `check`. */
export function issuesOf(check: Check, value: unknown): ShapeIssue[] {
  const issues: ShapeIssue[] = [];
  check(value, [], issues);
  return issues;
}

/** An issue as the parsers report it: `<path>: <message>`, the item itself being `(item)`. */
export const describeIssue = (i: ShapeIssue) => `${i.path.map(String).join('.') || '(item)'}: ${i.message}`;
