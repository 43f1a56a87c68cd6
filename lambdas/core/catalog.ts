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

/**
 * The CPU architecture of an instance type, from its family: Graviton families have a `g` after the
 * generation digit (m6g, t4g, c7gn); the allow-list's other families are x86_64.
 */
export function architectureOf(instanceType: string): 'arm64' | 'x86_64' {
  const family = instanceType.split('.')[0] ?? '';
  return /^[a-z]+\d+[a-z]*g[a-z]*$/.test(family) && !/^[gp]\d/.test(family) ? 'arm64' : 'x86_64';
}

/** GPU families (g*, p*): they need the NVIDIA AMI variant, and the policy's GPU-taint rule reads this. */
export function isGpuInstanceType(instanceType: string): boolean {
  return /^[gp]\d/.test(instanceType.split('.')[0] ?? '');
}

/** The architecture an EKS AMI type runs on. */
export function architectureOfAmi(amiType: string): 'arm64' | 'x86_64' {
  return amiType.includes('ARM_64') ? 'arm64' : 'x86_64';
}
