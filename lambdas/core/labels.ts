/**
 * Kubernetes labels (metadata.labels): the same key and value rules as the API server, so a label a
 * CloudCluster custom resource can carry is one a record can carry, and the other way round.
 * Labels are stored beside the spec, never in it: changing them writes no generation and starts no
 * reconciliation.
 */

export type Labels = Readonly<Record<string, string>>;

/** A label name, and a non-empty value: alphanumerics at both ends, `-`, `_`, `.` between. */
const NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const NAME_MAX = 63;
/** A key prefix is a DNS subdomain: lowercase DNS labels joined by dots. */
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const PREFIX_MAX = 253;
const VALUE_MAX = 63;

/** Why `key` is not a label key, or undefined when it is one. */
export function labelKeyProblem(key: string): string | undefined {
  const slash = key.indexOf('/');
  const prefix = slash < 0 ? undefined : key.slice(0, slash);
  const name = slash < 0 ? key : key.slice(slash + 1);
  if (prefix !== undefined) {
    if (prefix.length === 0 || prefix.length > PREFIX_MAX || !SUBDOMAIN.test(prefix))
      return `key prefix ${JSON.stringify(prefix)} must be a DNS subdomain (lowercase letters, digits, '-' and '.', at most ${PREFIX_MAX} characters)`;
  }
  if (name.length === 0 || name.length > NAME_MAX || !NAME.test(name))
    return `key name ${JSON.stringify(name)} must be 1-${NAME_MAX} characters: letters, digits, '-', '_' and '.', starting and ending with a letter or digit`;
  return undefined;
}

/** Why `value` is not a label value, or undefined when it is one (the empty value is one). */
export function labelValueProblem(value: string): string | undefined {
  if (value === '') return undefined;
  if (value.length > VALUE_MAX || !NAME.test(value))
    return `value ${JSON.stringify(value)} must be at most ${VALUE_MAX} characters: letters, digits, '-', '_' and '.', starting and ending with a letter or digit`;
  return undefined;
}

export interface LabelIssue {
  /** `metadata.labels` or `metadata.labels.<key>`. */
  readonly field: string;
  readonly message: string;
}

/** The labels, or every problem found, each naming its field. */
export function validateLabels(
  value: unknown,
): { ok: true; labels: Labels } | { ok: false; issues: LabelIssue[] } {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return {
      ok: false,
      issues: [{ field: 'metadata.labels', message: 'must be a mapping of keys to strings' }],
    };
  const issues: LabelIssue[] = [];
  const labels: Record<string, string> = {};
  for (const [key, v] of Object.entries(value)) {
    const field = `metadata.labels.${key}`;
    const keyProblem = labelKeyProblem(key);
    if (keyProblem) issues.push({ field, message: keyProblem });
    if (typeof v !== 'string') issues.push({ field, message: 'value must be a string (quote it in YAML)' });
    else {
      const valueProblem = labelValueProblem(v);
      if (valueProblem) issues.push({ field, message: valueProblem });
      labels[key] = v;
    }
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, labels };
}

/** Same keys with the same values (key order does not matter). */
export function sameLabels(a: Labels, b: Labels): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && b[k] === a[k]);
}
