/**
 * The few schema builders the CloudCluster spec needs, as plain closures: each validates (every
 * issue, with its path and rule), applies defaults, and describes itself as JSON Schema for the CRD.
 * A schema library's schemas cost milliseconds to build at every cold start of the functions that
 * validate a spec (see docs/performance.md, "Bundles"); these cost next to nothing.
 *
 * The rules every check shares:
 * - a value of the wrong type gets one issue, and nothing else about it is checked;
 * - a list longer than its maximum gets that one issue: its items are not read (a hostile record
 *   of a million items costs one comparison);
 * - every other check of a well-typed value runs, so one field can have several issues;
 * - a refinement (a rule across fields) runs only when nothing below it failed its type or
 *   allowlist, so it never reads a value that is not there; an unknown key does not stop it;
 * - an object or a map is a plain object (a map with symbol keys is not one), and a strict object
 *   names every key it does not know; an optional field given `undefined` is left out.
 */

export type Path = readonly PropertyKey[];

/** The rule names issues carry (the `rule` of a SpecIssue). */
export type IssueCode =
  | 'invalid_type'
  | 'invalid_value'
  | 'invalid_format'
  | 'too_small'
  | 'too_big'
  | 'custom'
  | 'unrecognized_keys';

export interface KitIssue {
  readonly path: Path;
  readonly code: IssueCode;
  readonly message: string;
  /** For `unrecognized_keys`: the keys the object does not know. */
  readonly keys?: readonly string[];
  /** A wrong type or a value outside an allowlist: the refinements above it do not run. */
  readonly stops: boolean;
}

export type Json = Record<string, unknown>;

/** Where a field stands in its object: required, optional, or filled with a default when absent. */
export type Presence = 'required' | 'optional' | 'default';

export interface Schema<O, I = O, P extends Presence = 'required'> {
  readonly presence: P;
  /** The value with defaults applied; meaningful only when it added no issue. */
  run(input: unknown, at: Path, issues: KitIssue[]): O;
  /** The JSON Schema (draft 2020-12) of what a user may write. */
  json(): Json;
  /** For a defaulted field: a fresh default for an absent value (never checked). */
  readonly make?: () => O;
  /** Type carriers only: never set. */
  readonly '~output'?: O;
  readonly '~input'?: I;
}

export type AnySchema = Schema<unknown, unknown, Presence>;
export type Output<S> = S extends Schema<infer O, unknown, Presence> ? O : never;
export type Input<S> = S extends Schema<unknown, infer I, Presence> ? I : never;

/** What a failed check says: a fixed message, or one made from the value. */
export type Message<T = unknown> = string | ((value: T) => string);
const say = <T>(m: Message<T>, v: T) => (typeof m === 'string' ? m : m(v));

/** How the spec's messages name a received value (a class instance by its constructor's name). */
export function received(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number' && Number.isNaN(v)) return 'NaN';
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  if (typeof v === 'object' && Object.getPrototypeOf(v) !== Object.prototype && 'constructor' in v) {
    const name = (v.constructor as { name?: unknown } | undefined)?.name;
    if (typeof name === 'string') return name;
  }
  return typeof v;
}

/** The message for a value of the wrong type, when a schema has none of its own. */
export const expected = (what: string, v: unknown) =>
  `Invalid input: expected ${what}, received ${received(v)}`;

/**
 * A plain object (prototype Object.prototype or null). A DynamoDB set or binary, a class instance, or
 * an object whose prototype a `__proto__` key replaced is not one.
 */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** A value of the wrong type: one issue, and the refinements above it do not run. */
export function wrongType(issues: KitIssue[], at: Path, error: Message, input: unknown): void {
  issues.push({ path: at, code: 'invalid_type', message: say(error, input), stops: true });
}

/** A schema as a JSON Schema document (draft 2020-12): what the CRD generators convert. */
export const jsonSchemaDocument = (s: AnySchema): Json => ({
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  ...s.json(),
});

/** Whether `issues` gained an issue that stops refinements since index `from`. */
export const stoppedSince = (issues: readonly KitIssue[], from: number) => {
  for (let i = from; i < issues.length; i++) if (issues[i]?.stops) return true;
  return false;
};

/** Adds a refinement's issue at a path below the value it checks. */
export type Add = (path: Path, message: string) => void;

/**
 * A check on a well-typed value. `json` is what it adds to the JSON Schema; `stop` makes a failure
 * end the value's checks and the refinements above it (a number that is not whole is not also
 * compared with bounds, nor read by a rule across fields).
 */
export interface Check<T> {
  readonly run: (value: T, add: (code: IssueCode, message: string, path?: Path) => void) => void;
  readonly json?: Json;
  readonly stop?: boolean;
  /** A refinement: runs only if nothing below failed its type or allowlist. */
  readonly refinement?: boolean;
  /** A list's maximum length: a longer list gets this check's issue alone, and no item is read. */
  readonly cap?: number;
}

/** A value of one JSON type, then each of its checks in order. */
export function typed<T>(
  is: (v: unknown) => v is T,
  what: string,
  error: Message | undefined,
  base: Json,
  checks: readonly Check<T>[],
): Schema<T> {
  return {
    presence: 'required',
    run(input, at, issues) {
      if (!is(input)) {
        wrongType(issues, at, error ?? expected(what, input), input);
        return input as T;
      }
      runChecks(input, at, issues, checks, issues.length);
      return input;
    },
    json: () => Object.assign({ ...base }, ...checks.map((c) => c.json ?? {})),
  };
}

/** Runs `checks` on a typed value; a refinement is skipped once an issue since `from` stops it. */
export function runChecks<T>(
  value: T,
  at: Path,
  issues: KitIssue[],
  checks: readonly Check<T>[],
  from: number,
): void {
  for (const c of checks) {
    if (c.refinement && stoppedSince(issues, from)) continue;
    let failed = false;
    c.run(value, (code, message, path = []) => {
      failed = true;
      issues.push({ path: path.length ? [...at, ...path] : at, code, message, stops: c.stop === true });
    });
    if (failed && c.stop) return;
  }
}
