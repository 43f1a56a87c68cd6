/**
 * How every entry point reports a refused field, and the reserved-key check that runs before any
 * schema reads the input. No schema here: the rollout functions that only read a rollout's failure
 * policy use these without loading the CloudCluster spec schema.
 */
import { RESERVED_OBJECT_KEYS } from './rules.js';

export interface SpecIssue {
  /** Dotted path from the spec root, e.g. `spec.tags.team`. */
  readonly field: string;
  /** The rule that failed, from the validator (e.g. `too_big`, `invalid_type`, `unrecognized_keys`). */
  readonly rule: string;
  readonly message: string;
}

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

/**
 * Paths of every reserved object key (`__proto__`, `constructor`, `prototype`) in a parsed value,
 * at any depth. Run on the parsed input before anything copies it: the spec's maps (build.ts,
 * `record`) drop a `__proto__` key. Shared (aliased) and cyclic values are walked once.
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

/** One line per issue, for CLI output and status messages. */
export function formatIssues(issues: readonly SpecIssue[]): string {
  return issues.map((i) => i.message).join('; ');
}
