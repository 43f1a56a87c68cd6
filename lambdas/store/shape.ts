/**
 * The checks the item parsers (record.ts, rollout-record.ts) make, as plain functions. Every reader
 * of the tables parses each item it reads, and several functions load nothing else that needs a
 * schema library: building these checks costs next to nothing at a cold start, where a schema
 * library's schemas cost milliseconds. Messages keep zod's English ("Invalid input: expected
 * number, received string"), as the spec's checks say it, so a reason reads the same everywhere.
 *
 * A check never stops at the first issue: like a schema library it reports every issue, each with
 * the path to its attribute, in the order the shape lists the attributes.
 */

export interface ShapeIssue {
  readonly path: readonly (string | number)[];
  readonly message: string;
}

/** Checks a value at a path, adding what is wrong to `issues`. */
export type Check = (value: unknown, path: readonly (string | number)[], issues: ShapeIssue[]) => void;

/** How zod's English names what it received. */
function received(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number' && Number.isNaN(v)) return 'NaN';
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  return typeof v;
}

const expected = (what: string, v: unknown) => `Invalid input: expected ${what}, received ${received(v)}`;

const isMap = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A condition on an already well-typed value, and what to say when it does not hold. */
export type Refinement<T> = readonly [(v: T) => boolean, string];

/** A type test, then `checks` in turn up to the first that fails (a refinement sees a typed value). */
function typed<T>(is: (v: unknown) => v is T, what: string, checks: readonly Refinement<T>[]): Check {
  return (v, path, issues) => {
    if (!is(v)) return void issues.push({ path, message: expected(what, v) });
    const failed = checks.find(([ok]) => !ok(v));
    if (failed) issues.push({ path, message: failed[1] });
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
    [Number.isInteger, 'Invalid input: expected int, received number'],
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
    v.forEach((x, i) => {
      item(x, [...path, i], issues);
    });
  };
}

/** A map of string keys to values passing `value`; `notMap` replaces the message for a non-map. */
export function mapOf(value: Check | undefined, notMap?: string): Check {
  return (v, path, issues) => {
    if (!isMap(v)) return void issues.push({ path, message: notMap ?? expected('record', v) });
    if (value) for (const [k, x] of Object.entries(v)) value(x, [...path, k], issues);
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
    if (!isMap(v)) return void issues.push({ path, message: expected('object', v) });
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
