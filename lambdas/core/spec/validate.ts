/** Turns schema failures into errors that name the field and the rule, for every entry point. */
import type { z } from 'zod';
import { type CloudClusterSpec, specSchema } from './schema.js';

export interface SpecIssue {
  /** Dotted path from the spec root, e.g. `spec.tags.team`. */
  readonly field: string;
  /** The rule that failed, from the validator (e.g. `too_big`, `invalid_type`, `unrecognized_keys`). */
  readonly rule: string;
  readonly message: string;
}

export type SpecResult = { ok: true; spec: CloudClusterSpec } | { ok: false; issues: SpecIssue[] };

function fieldOf(path: readonly PropertyKey[]): string {
  return ['spec', ...path.map(String)].join('.');
}

function toIssues(error: z.ZodError): SpecIssue[] {
  const issues: SpecIssue[] = [];
  for (const i of error.issues) {
    if (i.code === 'unrecognized_keys') {
      for (const key of i.keys) {
        issues.push({
          field: fieldOf([...i.path, key]),
          rule: 'unknown_field',
          message: `${fieldOf([...i.path, key])}: unknown field (check the spelling; see the README for the spec fields)`,
        });
      }
      continue;
    }
    const field = fieldOf(i.path);
    issues.push({ field, rule: i.code, message: `${field}: ${i.message}` });
  }
  return issues;
}

export function validateSpec(input: unknown): SpecResult {
  const r = specSchema.safeParse(input);
  return r.success ? { ok: true, spec: r.data } : { ok: false, issues: toIssues(r.error) };
}

/** One line per issue, for CLI output and status messages. */
export function formatIssues(issues: readonly SpecIssue[]): string {
  return issues.map((i) => i.message).join('; ');
}
