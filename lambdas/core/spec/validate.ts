/** Turns schema failures into errors that name the field and the rule, for every entry point. */
import type * as z from 'zod/mini';
import { RESERVED_OBJECT_KEYS } from './rules.js';
import { type CloudClusterSpec, specSchema } from './schema.js';

export interface SpecIssue {
  /** Dotted path from the spec root, e.g. `spec.tags.team`. */
  readonly field: string;
  /** The rule that failed, from the validator (e.g. `too_big`, `invalid_type`, `unrecognized_keys`). */
  readonly rule: string;
  readonly message: string;
}

export type SpecResult = { ok: true; spec: CloudClusterSpec } | { ok: false; issues: SpecIssue[] };

// Control, format and line-separator characters would make a field unreadable or split the line.
const UNPRINTABLE = /[\p{C}\p{Zl}\p{Zp}]/u;

/** A dotted path; an empty segment or one with unprintable characters is JSON-quoted: `tags["a\tb"]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    const s = String(p);
    out += s === '' || UNPRINTABLE.test(s) ? `[${JSON.stringify(s)}]` : out === '' ? s : `.${s}`;
  }
  return out;
}

function fieldOf(path: readonly PropertyKey[]): string {
  return formatPath(['spec', ...path]);
}

/**
 * Paths of every reserved object key (`__proto__`, `constructor`, `prototype`) in a parsed value,
 * at any depth. Run on the parsed input before anything copies it: object builders (zod's record
 * among them) drop a `__proto__` key silently. Shared (aliased) and cyclic values are walked once.
 */
export function reservedKeyPaths(value: unknown): PropertyKey[][] {
  const found: PropertyKey[][] = [];
  const seen = new Set<object>();
  const walk = (v: unknown, path: PropertyKey[]): void => {
    if (typeof v !== 'object' || v === null || seen.has(v)) return;
    seen.add(v);
    if (Array.isArray(v)) {
      for (const [i, item] of v.entries()) walk(item, [...path, i]);
      return;
    }
    for (const key of Object.getOwnPropertyNames(v)) {
      if (RESERVED_OBJECT_KEYS.has(key)) found.push([...path, key]);
      else walk((v as Record<string, unknown>)[key], [...path, key]);
    }
  };
  walk(value, []);
  return found;
}

/** The message for a reserved key at `field`, the same at every entry point. */
export function reservedKeyMessage(key: PropertyKey): string {
  return `${JSON.stringify(String(key))} is not allowed as a key (JavaScript reserves it; it would be dropped or misread)`;
}

/** Whether `path` leads to nothing in `input` (a field left out, not one with a wrong value). */
function absent(input: unknown, path: readonly PropertyKey[]): boolean {
  let v: unknown = input;
  for (const p of path) {
    if (typeof v !== 'object' || v === null) return false;
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return v === undefined;
}

/**
 * A required field left out fails its type or its allowlist; saying `required` is the one rule for
 * all of them, rather than each field's own message about the value `undefined`.
 */
function missingRequired(input: unknown, i: z.core.$ZodIssue): boolean {
  return (
    (i.code === 'invalid_type' || i.code === 'invalid_value') && i.path.length > 0 && absent(input, i.path)
  );
}

function toIssues(error: z.core.$ZodError, skip: ReadonlySet<string>, input: unknown): SpecIssue[] {
  const issues: SpecIssue[] = [];
  for (const i of error.issues) {
    if (i.code === 'unrecognized_keys') {
      for (const key of i.keys) {
        const field = fieldOf([...i.path, key]);
        if (skip.has(field)) continue;
        issues.push({
          field,
          rule: 'unknown_field',
          message: `${field}: unknown field (check the spelling; see the README for the spec fields)`,
        });
      }
      continue;
    }
    const field = fieldOf(i.path);
    if (missingRequired(input, i)) issues.push({ field, rule: 'required', message: `${field}: required` });
    else issues.push({ field, rule: i.code, message: `${field}: ${i.message}` });
  }
  return issues;
}

export function validateSpec(input: unknown): SpecResult {
  const reserved: SpecIssue[] = reservedKeyPaths(input).map((path) => {
    const field = fieldOf(path);
    return { field, rule: 'reserved_key', message: `${field}: ${reservedKeyMessage(path.at(-1) ?? '')}` };
  });
  const r = specSchema.safeParse(input);
  if (r.success && reserved.length === 0) return { ok: true, spec: r.data };
  const rest = r.success ? [] : toIssues(r.error, new Set(reserved.map((i) => i.field)), input);
  return { ok: false, issues: [...reserved, ...rest] };
}

/** One line per issue, for CLI output and status messages. */
export function formatIssues(issues: readonly SpecIssue[]): string {
  return issues.map((i) => i.message).join('; ');
}
