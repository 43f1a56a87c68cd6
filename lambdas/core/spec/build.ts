/**
 * The spec's schema builders (see kit.ts for the rules they share): types, the checks on them,
 * lists, maps, objects, and the optional and defaulted fields of an object.
 */
import {
  type Add,
  type AnySchema,
  type Check,
  type Input,
  isPlainObject,
  type Json,
  type KitIssue,
  type Message,
  type Output,
  type Path,
  type Presence,
  runChecks,
  type Schema,
  typed,
  wrongType,
} from './kit.js';

const isString = (v: unknown): v is string => typeof v === 'string';
/** NaN and the infinities are not numbers a spec can hold (JSON has neither). */
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

export const string = (error?: Message, ...checks: Check<string>[]): Schema<string> =>
  typed(isString, 'string', error, { type: 'string' }, checks);

export const number = (error: Message, ...checks: Check<number>[]): Schema<number> =>
  typed(isNumber, 'number', error, { type: 'number' }, checks);

export const boolean = (error: Message): Schema<boolean> =>
  typed((v): v is boolean => typeof v === 'boolean', 'boolean', error, { type: 'boolean' }, []);

/** A whole number within JavaScript's safe integers; every issue says `message`. */
export const int = (message: string): Check<number>[] => [
  {
    run: (v, add) => Number.isInteger(v) || add('invalid_type', message),
    // The safe bounds, unless a minimum or maximum after it narrows them (they replace these).
    json: { type: 'integer', minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
    stop: true,
  },
  { run: (v, add) => v <= Number.MAX_SAFE_INTEGER || add('too_big', message) },
  { run: (v, add) => v >= Number.MIN_SAFE_INTEGER || add('too_small', message) },
];

export const minimum = (n: number, message: string): Check<number> => ({
  run: (v, add) => v >= n || add('too_small', message),
  json: { minimum: n },
});

export const maximum = (n: number, message: string): Check<number> => ({
  run: (v, add) => v <= n || add('too_big', message),
  json: { maximum: n },
});

/** Length in UTF-16 units (a string's or a list's); the JSON Schema word depends on which. */
export const minLength = (n: number, message: string): Check<{ readonly length: number }> => ({
  run: (v, add) => v.length >= n || add('too_small', message),
  json: { minLength: n },
});

export const maxLength = (n: number, message: string): Check<{ readonly length: number }> => ({
  run: (v, add) => v.length <= n || add('too_big', message),
  json: { maxLength: n },
  cap: n,
});

export const regex = (pattern: RegExp, message: string): Check<string> => ({
  run: (v, add) => {
    pattern.lastIndex = 0;
    if (!pattern.test(v)) add('invalid_format', message);
  },
  json: { pattern: pattern.source },
});

/** A rule JSON Schema cannot say, on a well-typed value. */
export const refine = <T>(ok: (v: T) => boolean, message: Message<T>): Check<T> => ({
  run: (v, add) => ok(v) || add('custom', typeof message === 'string' ? message : message(v)),
  refinement: true,
});

/** A rule across the fields of a value: adds issues at paths below it. */
export const rule = <T>(check: (v: T, add: Add) => void): Check<T> => ({
  run: (v, add) => check(v, (path, message) => add('custom', message, path)),
  refinement: true,
});

/** One of `values`: anything else stops the refinements above it, as a wrong type does. */
export function oneOf<const V extends readonly string[]>(values: V, error: Message): Schema<V[number]> {
  const allowed = new Set<unknown>(values);
  return {
    presence: 'required',
    run(input, at, issues) {
      if (!allowed.has(input))
        issues.push({
          path: at,
          code: 'invalid_value',
          message: typeof error === 'string' ? error : error(input),
          stops: true,
        });
      return input as V[number];
    },
    json: () => ({ type: 'string', enum: [...values] }),
  };
}

export function literal<const V extends string>(value: V, error: string): Schema<V> {
  return { ...oneOf([value], error), json: () => ({ type: 'string', const: value }) };
}

export const unknown = (): Schema<unknown> => ({
  presence: 'required',
  run: (input) => input,
  json: () => ({}),
});

/** A list of `item`; `checks` (its length) run even when an item failed. */
export function array<S extends AnySchema>(
  item: S,
  error: Message,
  ...checks: Check<readonly unknown[]>[]
): Schema<Output<S>[], Input<S>[]> {
  const lengthWords = (j: Json | undefined): Json =>
    Object.fromEntries(
      Object.entries(j ?? {}).map(([k, v]) => [
        k === 'minLength' ? 'minItems' : k === 'maxLength' ? 'maxItems' : k,
        v,
      ]),
    );
  return {
    presence: 'required',
    run(input, at, issues) {
      if (!Array.isArray(input)) {
        wrongType(issues, at, error, input);
        return [];
      }
      const over = checks.find((c) => c.cap !== undefined && input.length > c.cap);
      if (over) {
        // Too long: the one issue, read before any item, and it stops the rules above it.
        runChecks<readonly unknown[]>(input, at, issues, [{ ...over, stop: true }], issues.length);
        return [];
      }
      const from = issues.length;
      // By index: a hole is an element that is not there (map would skip it).
      const out: Output<S>[] = [];
      for (let i = 0; i < input.length; i++) out.push(item.run(input[i], [...at, i], issues) as Output<S>);
      runChecks<readonly unknown[]>(out, at, issues, checks, from);
      return out;
    },
    json: () =>
      Object.assign({}, ...checks.map((c) => lengthWords(c.json)), { type: 'array', items: item.json() }),
  };
}

/** A map of string keys to `value`; an own `__proto__` key is not copied (it is reported before). */
export function record<S extends AnySchema>(
  value: S,
  error: Message,
  ...checks: Check<Record<string, Output<S>>>[]
): Schema<Record<string, Output<S>>, Record<string, Input<S>>> {
  return {
    presence: 'required',
    run(input, at, issues) {
      if (!isPlainObject(input) || Object.getOwnPropertySymbols(input).length > 0) {
        wrongType(issues, at, error, input);
        return {};
      }
      const from = issues.length;
      const out: Record<string, Output<S>> = {};
      for (const key of Object.keys(input)) {
        if (key === '__proto__') continue;
        out[key] = value.run(input[key], [...at, key], issues) as Output<S>;
      }
      runChecks(out, at, issues, checks, from);
      return out;
    },
    json: () => ({ type: 'object', propertyNames: { type: 'string' }, additionalProperties: value.json() }),
  };
}

export const optional = <O, I>(s: Schema<O, I, Presence>): Schema<O, I, 'optional'> => ({
  ...s,
  presence: 'optional',
});

/** Absent (or undefined): `make()`, unchecked. `make` builds a fresh value each time. */
export const withDefault = <O, I>(
  s: Schema<O, I, Presence>,
  make: () => NoInfer<O>,
): Schema<O, I, 'default'> => ({
  ...s,
  presence: 'default',
  make,
  json: () => ({ default: make(), ...s.json() }),
});

/** A value nobody may change: its output is frozen (a shallow freeze, as its type says). */
export const readonly = <O, I>(s: Schema<O, I>): Schema<Readonly<O>, Readonly<I>> => ({
  presence: s.presence,
  run(input, at, issues) {
    const from = issues.length;
    const out = s.run(input, at, issues);
    return issues.length === from ? Object.freeze(out) : out;
  },
  json: () => ({ readOnly: true, ...s.json() }),
});

type Fields = Readonly<Record<string, AnySchema>>;
type Flat<T> = { [K in keyof T]: T[K] } & {};
type KeysWhere<F extends Fields, P extends Presence, Yes extends boolean> = {
  [K in keyof F]: (F[K]['presence'] extends P ? true : false) extends Yes ? K : never;
}[keyof F];
export type ObjectOutput<F extends Fields> = Flat<
  { [K in KeysWhere<F, 'optional', false>]: Output<F[K]> } & {
    [K in KeysWhere<F, 'optional', true>]?: Output<F[K]> | undefined;
  }
>;
export type ObjectInput<F extends Fields> = Flat<
  { [K in KeysWhere<F, 'required', true>]: Input<F[K]> } & {
    [K in KeysWhere<F, 'required', false>]?: Input<F[K]> | undefined;
  }
>;

/** What an object says when the value is not one, and (optionally) when it has unknown keys. */
export type ObjectError = string | { readonly notObject: string; readonly unknownKeys: string };

/** An object with `fields` and no other key; `checks` are its rules across fields. */
export function object<F extends Fields>(
  fields: F,
  error: ObjectError,
  ...checks: Check<ObjectOutput<F>>[]
): Schema<ObjectOutput<F>, ObjectInput<F>> & { readonly fields: F } {
  const entries = Object.entries(fields);
  const known = new Set(Object.keys(fields));
  const notObject = typeof error === 'string' ? error : error.notObject;
  const unknownKeys = typeof error === 'string' ? undefined : error.unknownKeys;
  return {
    presence: 'required',
    fields,
    run(input, at, issues) {
      if (!isPlainObject(input)) {
        wrongType(issues, at, notObject, input);
        return {} as ObjectOutput<F>;
      }
      const from = issues.length;
      const out: Record<string, unknown> = {};
      for (const [key, field] of entries) {
        const v = input[key];
        if (v === undefined && field.presence === 'optional') continue;
        if (v === undefined && field.make) out[key] = field.make();
        else out[key] = field.run(v, [...at, key], issues);
      }
      const extra = Object.keys(input).filter((k) => !known.has(k));
      if (extra.length > 0) unrecognized(issues, at, extra, unknownKeys);
      runChecks(out as ObjectOutput<F>, at, issues, checks, from);
      return out as ObjectOutput<F>;
    },
    json: () => {
      const required = entries.filter(([, f]) => f.presence === 'required').map(([k]) => k);
      return {
        type: 'object',
        properties: Object.fromEntries(entries.map(([k, f]) => [k, f.json()])),
        ...(required.length > 0 ? { required } : {}),
        additionalProperties: false,
      };
    },
  };
}

/** Unknown keys describe the input, not a wrong value: they do not stop the refinements. */
function unrecognized(issues: KitIssue[], at: Path, keys: string[], message: string | undefined): void {
  issues.push({
    path: at,
    code: 'unrecognized_keys',
    keys,
    message: message ?? `unknown keys: ${keys.map((k) => JSON.stringify(k)).join(', ')}`,
    stops: false,
  });
}

/** `s`, its valid output turned by `f` (a field renamed, a unit converted). */
export const map = <O, I, P extends Presence, R>(s: Schema<O, I, P>, f: (o: O) => R): Schema<R, I, P> => ({
  presence: s.presence,
  run(input, at, issues) {
    const from = issues.length;
    const out = s.run(input, at, issues);
    return (issues.length === from ? f(out) : out) as R;
  },
  json: () => s.json(),
});

export type Parsed<T> = { readonly value: T } | { readonly problem: string };

/** A value read by `parse` (a duration, a percentage): its problem is the value's one issue. */
export const parsedBy = <T>(parse: (input: unknown) => Parsed<T>): Schema<T, unknown> => ({
  presence: 'required',
  run(input, at, issues) {
    const r = parse(input);
    if ('value' in r) return r.value;
    issues.push({ path: at, code: 'custom', message: r.problem, stops: true });
    return undefined as T;
  },
  json: () => ({}),
});

/** Absent (or undefined): `input` is read in its place, as a user could have written it. */
export const withInputDefault = <O, I>(
  s: Schema<O, I, Presence>,
  input: NoInfer<I>,
): Schema<O, I, 'default'> => ({
  presence: 'default',
  run: (v, at, issues) => s.run(v === undefined ? input : v, at, issues),
  json: () => ({ default: input, ...s.json() }),
});
