/**
 * Rollout schema plumbing: paths written as a reader finds them (`spec.stages[1].maxConcurrency`),
 * strict objects whose refusal of an unknown field lists the fields allowed, and fields parsed by a
 * plain function (durations, percentages) with one message per field.
 */
import '../zod-locale.js';
import * as z from 'zod/mini';
import type { SpecIssue } from '../spec/issue.js';

/**
 * `spec.stages[1].maxConcurrency`; a key that is not an identifier is quoted: `labels["a/b"]`.
 * `root` '' formats a path from the document's root (`metadata.labels`).
 */
export function fieldOf(path: readonly PropertyKey[], root = 'spec'): string {
  let out = root;
  for (const p of path) {
    const s = String(p);
    if (typeof p === 'number') out += `[${p}]`;
    else if (!/^[A-Za-z_$][\w$]*$/.test(s)) out += `[${JSON.stringify(s)}]`;
    else out += out === '' ? s : `.${s}`;
  }
  return out;
}

export const issueAt = (path: readonly PropertyKey[], rule: string, text: string): SpecIssue => {
  const field = fieldOf(path);
  return { field, rule, message: `${field}: ${text}` };
};

/** A required field left out says `required`, not its type's message about `undefined`. */
function absent(input: unknown, path: readonly PropertyKey[]): boolean {
  let v: unknown = input;
  for (const p of path) {
    if (typeof v !== 'object' || v === null) return false;
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return v === undefined;
}

export function toIssues(error: z.core.$ZodError, input: unknown): SpecIssue[] {
  const issues: SpecIssue[] = [];
  for (const i of error.issues) {
    if (i.code === 'unrecognized_keys') {
      for (const key of i.keys)
        issues.push(issueAt([...i.path, key], 'unknown_field', `unknown field; ${i.message}`));
      continue;
    }
    const missing =
      (i.code === 'invalid_type' || i.code === 'invalid_value') && i.path.length > 0 && absent(input, i.path);
    issues.push(missing ? issueAt(i.path, 'required', 'required') : issueAt(i.path, i.code, i.message));
  }
  return issues;
}

/**
 * An object that refuses unknown fields, saying which it holds: `a stage may hold only name, ...`.
 * `what` names the object in both messages.
 */
export function strict<T extends z.core.$ZodLooseShape>(shape: T, what: string) {
  const keys = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (iss) =>
      iss.code === 'unrecognized_keys'
        ? `${what} may hold only ${keys}`
        : `${what} must be a mapping (${keys})`,
  });
}

export type Parsed<T> = { readonly value: T } | { readonly problem: string };

/** A field read by `parse`: its problem becomes the field's one issue. */
export function parsedBy<T>(parse: (input: unknown) => Parsed<T>) {
  return z.pipe(
    z.unknown(),
    z.transform((input: unknown, ctx) => {
      const r = parse(input);
      if ('value' in r) return r.value;
      ctx.issues.push({ code: 'custom', message: r.problem, input });
      return z.NEVER;
    }),
  );
}

/** A custom issue from a refinement, at `path` below the refined value. */
export function report(ctx: { issues: z.core.$ZodRawIssue[] }, input: unknown) {
  return (path: PropertyKey[], message: string) => ctx.issues.push({ code: 'custom', path, message, input });
}
