/**
 * Facts about the spec that the planner and the observer read, apart from the schema so that they
 * do not load the spec schema's construction (see docs/performance.md, "Bundles").
 */

/** The pool the flat fields describe. */
export const DEFAULT_POOL = 'default';

/** What an EKS upgrade insight in ERROR does to a control-plane step (`spec.upgrade.readiness`). */
export const UPGRADE_READINESS = ['block', 'warn', 'ignore'] as const;
export type UpgradeReadiness = (typeof UPGRADE_READINESS)[number];

/** The readiness gate of a spec (`block` unless it says otherwise). */
export const readinessOf = (spec: {
  readonly upgrade?: { readonly readiness: UpgradeReadiness } | undefined;
}) => spec.upgrade?.readiness ?? 'block';
