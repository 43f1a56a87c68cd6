/**
 * The one data file of allowed regions, instance types and Kubernetes versions. The spec schema,
 * the cost model and the Rego policies (as `data.allowlists`) all read this same file.
 */
import raw from '../../policies/allowlists.json' with { type: 'json' };

export interface VersionSupport {
  readonly released: string;
  readonly endOfStandardSupport: string;
  readonly endOfExtendedSupport: string;
}

export interface Catalog {
  readonly regions: readonly string[];
  readonly instanceTypes: readonly string[];
  readonly kubernetesVersions: Readonly<Record<string, VersionSupport>>;
}

export const catalog: Catalog = raw.allowlists;

export type SupportPhase = 'standard' | 'extended' | 'end-of-life' | 'unknown';

/** Which EKS support window a version is in on a given day (dates are inclusive day boundaries, UTC). */
export function supportPhase(version: string, at: Date, cat: Catalog = catalog): SupportPhase {
  const s = cat.kubernetesVersions[version];
  if (!s) return 'unknown';
  const day = at.toISOString().slice(0, 10);
  if (day < s.endOfStandardSupport) return 'standard';
  if (day < s.endOfExtendedSupport) return 'extended';
  return 'end-of-life';
}
