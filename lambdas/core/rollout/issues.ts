/**
 * Rollout schema plumbing: paths written as a reader finds them (`spec.stages[1].maxConcurrency`),
 * and strict objects whose refusal of an unknown field lists the fields allowed.
 */
import { object } from '../spec/build.js';
import type { SpecIssue } from '../spec/issue.js';
import type { AnySchema, KitIssue } from '../spec/kit.js';

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

export function toIssues(found: readonly KitIssue[], input: unknown): SpecIssue[] {
  const issues: SpecIssue[] = [];
  for (const i of found) {
    if (i.code === 'unrecognized_keys') {
      for (const key of i.keys ?? [])
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
 * `what` names the object in both messages; `checks` are its rules across fields.
 */
export function strict<F extends Readonly<Record<string, AnySchema>>>(
  fields: F,
  what: string,
  ...checks: Parameters<typeof object<F>>[2][]
) {
  const keys = Object.keys(fields).join(', ');
  return object(
    fields,
    { notObject: `${what} must be a mapping (${keys})`, unknownKeys: `${what} may hold only ${keys}` },
    ...checks,
  );
}
