/**
 * What an observation reads beside the cluster and its node groups, from the spec alone: add-ons when
 * the spec has `addons` (an empty list still reads them, so the ones CloudOrch created can go), their
 * versions for the listed ones, access entries when it manages access, and upgrade insights while the
 * readiness gate may have to decide (the provider reads them only when the version differs).
 */
import type { ObserveOptions } from './provider.js';
import { readinessOf } from './spec/facts.js';
import type { CloudClusterSpec } from './spec/schema.js';

export function observeScope(spec: CloudClusterSpec): Omit<ObserveOptions, 'trackedUpdates'> {
  return {
    addons: spec.addons !== undefined,
    addonVersionsOf: (spec.addons ?? []).map((a) => a.name),
    accessEntries: spec.access !== undefined,
    ...(readinessOf(spec) !== 'ignore' ? { insightsUnlessAt: spec.kubernetesVersion } : {}),
  };
}
