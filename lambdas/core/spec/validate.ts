/** Turns schema failures into errors that name the field and the rule, for every entry point. */
import { formatIssues, formatPath, reservedKeyMessage, reservedKeyPaths, type SpecIssue } from './issue.js';
import type { KitIssue } from './kit.js';
import { type CloudClusterSpec, specSchema } from './schema.js';

/** Defined in issue.ts (no schema there); every entry point imports them from here or there. */
export { formatIssues, formatPath, reservedKeyMessage, reservedKeyPaths, type SpecIssue };

export type SpecResult = { ok: true; spec: CloudClusterSpec } | { ok: false; issues: SpecIssue[] };

function fieldOf(path: readonly PropertyKey[]): string {
  return formatPath(['spec', ...path]);
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
function missingRequired(input: unknown, i: KitIssue): boolean {
  return (
    (i.code === 'invalid_type' || i.code === 'invalid_value') && i.path.length > 0 && absent(input, i.path)
  );
}

function toIssues(found: readonly KitIssue[], skip: ReadonlySet<string>, input: unknown): SpecIssue[] {
  const issues: SpecIssue[] = [];
  for (const i of found) {
    if (i.code === 'unrecognized_keys') {
      for (const key of i.keys ?? []) {
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
  const rest = r.success ? [] : toIssues(r.issues, new Set(reserved.map((i) => i.field)), input);
  return { ok: false, issues: [...reserved, ...rest] };
}
