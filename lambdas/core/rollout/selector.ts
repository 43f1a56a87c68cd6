/**
 * Label selectors with Kubernetes semantics (metav1.LabelSelector): every `matchLabels` pair and
 * every expression must hold. Kept free of the schema so that a matcher loads no validator.
 */
import type { Labels } from '../labels.js';

export const SELECTOR_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;
export type SelectorOperator = (typeof SELECTOR_OPERATORS)[number];

export interface SelectorRequirement {
  readonly key: string;
  readonly operator: SelectorOperator;
  /** Non-empty for In and NotIn, absent for Exists and DoesNotExist (the schema holds this). */
  readonly values?: readonly string[] | undefined;
}

export interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>> | undefined;
  readonly matchExpressions?: readonly SelectorRequirement[] | undefined;
}

/** Own keys only: a label named `constructor` is a label, not Object's. */
const labelOf = (labels: Labels, key: string): string | undefined =>
  Object.hasOwn(labels, key) ? labels[key] : undefined;

function requirementHolds(labels: Labels, r: SelectorRequirement): boolean {
  const value = labelOf(labels, r.key);
  switch (r.operator) {
    case 'In':
      return value !== undefined && (r.values ?? []).includes(value);
    case 'NotIn':
      return value === undefined || !(r.values ?? []).includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
  }
}

/**
 * Whether `labels` satisfy the selector. As in Kubernetes, an empty selector matches everything;
 * the rollout schema refuses one, so that a forgotten term never selects the whole fleet.
 */
export function matchesSelector(labels: Labels, selector: LabelSelector): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {}))
    if (labelOf(labels, key) !== value) return false;
  return (selector.matchExpressions ?? []).every((r) => requirementHolds(labels, r));
}

/** The selector as `kubectl -l` writes it: `env=prod,tier in (a,b),!legacy`. */
export function describeSelector(selector: LabelSelector): string {
  const terms = Object.entries(selector.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const r of selector.matchExpressions ?? []) {
    const values = `(${(r.values ?? []).join(',')})`;
    if (r.operator === 'In') terms.push(`${r.key} in ${values}`);
    else if (r.operator === 'NotIn') terms.push(`${r.key} notin ${values}`);
    else terms.push(r.operator === 'Exists' ? r.key : `!${r.key}`);
  }
  return terms.join(',');
}
