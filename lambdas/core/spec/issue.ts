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
  // A stack, not recursion, and paths as links to the parent, built only for a key found: a hostile
  // document nested 100,000 deep must neither overflow the call stack nor copy 100,000 paths.
  type At = { readonly key: PropertyKey; readonly parent: At } | undefined;
  type Step = { readonly at: At; readonly value: unknown; readonly reserved: boolean };
  const pathOf = (at: At): PropertyKey[] => {
    const path: PropertyKey[] = [];
    for (let a = at; a; a = a.parent) path.push(a.key);
    return path.reverse();
  };
  const found: PropertyKey[][] = [];
  const seen = new Set<object>();
  const stack: Step[] = [{ at: undefined, value, reserved: false }];
  for (let step = stack.pop(); step; step = stack.pop()) {
    const { at, value: v } = step;
    if (step.reserved) found.push(pathOf(at));
    if (step.reserved || typeof v !== 'object' || v === null || seen.has(v)) continue;
    seen.add(v);
    const keys: PropertyKey[] = Array.isArray(v) ? [...v.keys()] : Object.getOwnPropertyNames(v);
    // Pushed in reverse, so the walk (and `found`) goes depth-first in key order.
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i] as PropertyKey;
      const reserved = !Array.isArray(v) && RESERVED_OBJECT_KEYS.has(key as string);
      stack.push({
        at: { key, parent: at },
        value: reserved ? undefined : (v as Record<PropertyKey, unknown>)[key],
        reserved,
      });
    }
  }
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
