/**
 * The fields one spec document changes against another, as a reader names them: `kubernetesVersion`,
 * `nodeGroups[general].instanceTypes`, `tags.wave`. Lists of named items (pools, add-ons) are matched
 * by name, so a reordering is not a change; other lists compare whole.
 */

export interface FieldChange {
  readonly field: string;
  /** Undefined: the field is not set on that side. */
  readonly from: unknown;
  readonly to: unknown;
}

const isObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

const named = (x: unknown): x is Record<string, unknown>[] =>
  Array.isArray(x) && x.every((i) => isObject(i) && typeof i.name === 'string');

const join = (at: string, key: string) =>
  at === '' ? key : /^[A-Za-z_$][\w$]*$/.test(key) ? `${at}.${key}` : `${at}[${JSON.stringify(key)}]`;

function byName(items: readonly Record<string, unknown>[]): Map<string, Record<string, unknown>> {
  return new Map(items.map((i) => [String(i.name), i]));
}

export function specChanges(before: unknown, after: unknown, at = ''): FieldChange[] {
  if (isObject(before) && isObject(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    return keys.flatMap((k) => specChanges(before[k], after[k], join(at, k)));
  }
  if (named(before) && named(after)) {
    const [b, a] = [byName(before), byName(after)];
    const names = [...new Set([...b.keys(), ...a.keys()])];
    return names.flatMap((n) => specChanges(b.get(n), a.get(n), `${at}[${n}]`));
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [{ field: at, from: before, to: after }];
}

/** `1.33`, `["m5.large"]`, `(unset)`. */
export function showValue(v: unknown): string {
  if (v === undefined) return '(unset)';
  return typeof v === 'string' ? v : JSON.stringify(v);
}
