/**
 * The simulator's add-on compatibility table, in DescribeAddonVersions' shape. The version numbers are
 * SIMULATOR DATA, not AWS's catalog: they are generated per Kubernetes minor the simulator supports
 * (its `supportedVersions`, the catalog of policies/allowlists.json) so that every minor has several
 * `vX.Y.Z-eksbuild.N` versions and exactly one `defaultVersion: true`, as EKS's table has.
 *
 * Each add-on releases three versions per minor. A release made for minor i also runs on the `window - 1`
 * minors before it (newer add-ons support older clusters, as EKS's do), so kube-proxy (window 1) must move
 * at every minor while vpc-cni keeps working across several. The default for a minor is the middle
 * release made for it: EKS's default is usually not the newest compatible version.
 */

interface AddonSpec {
  readonly type: string;
  readonly window: number;
  /** Version of release `j` (0-2) made for the minor at catalog index `i`. */
  readonly version: (minor: string, i: number, j: number) => string;
  readonly requiresIamPermissions: boolean;
}

const SPECS: Readonly<Record<string, AddonSpec>> = {
  'vpc-cni': {
    type: 'networking',
    window: 4,
    version: (_m, i, j) => `v1.${15 + i}.${j}-eksbuild.${j + 1}`,
    requiresIamPermissions: true,
  },
  coredns: {
    type: 'networking',
    window: 2,
    version: (_m, i, j) => `v1.${9 + Math.floor(i / 2)}.${(i % 2) * 3 + j}-eksbuild.${j + 1}`,
    requiresIamPermissions: false,
  },
  'kube-proxy': {
    type: 'networking',
    window: 1,
    version: (m, _i, j) => `v${m}.${j * 2}-eksbuild.${j + 1}`,
    requiresIamPermissions: false,
  },
  'aws-ebs-csi-driver': {
    type: 'storage',
    window: 4,
    version: (_m, i, j) => `v1.${25 + i}.${j}-eksbuild.1`,
    requiresIamPermissions: true,
  },
  'eks-pod-identity-agent': {
    type: 'security',
    window: 3,
    version: (_m, i, j) => `v1.3.${i * 3 + j}-eksbuild.1`,
    requiresIamPermissions: false,
  },
};

export const ADDON_NAMES: readonly string[] = Object.keys(SPECS);

export interface Compatibility {
  readonly clusterVersion: string;
  readonly platformVersions: readonly string[];
  readonly defaultVersion: boolean;
}

export interface AddonVersion {
  readonly addonVersion: string;
  readonly compatibilities: readonly Compatibility[];
}

/** Every version of an add-on, newest first (EKS lists them so), with the minors each runs on. */
export function addonVersions(name: string, minors: readonly string[]): AddonVersion[] {
  const spec = SPECS[name];
  if (!spec) return [];
  const out: AddonVersion[] = [];
  minors.forEach((minor, i) => {
    for (let j = 0; j < 3; j++) {
      const from = Math.max(0, i - spec.window + 1);
      const compatibilities = minors.slice(from, i + 1).map((clusterVersion, k) => ({
        clusterVersion,
        platformVersions: ['*'],
        defaultVersion: from + k === i && j === 1,
      }));
      out.push({ addonVersion: spec.version(minor, i, j), compatibilities });
    }
  });
  return out.reverse();
}

/** The AddonInfo wire shape, its versions narrowed to one minor when `kubernetesVersion` is given. */
export function addonInfo(
  name: string,
  minors: readonly string[],
  kubernetesVersion?: string,
): Record<string, unknown> {
  const spec = SPECS[name] as AddonSpec;
  const versions = addonVersions(name, minors)
    .map((v) => ({
      ...v,
      compatibilities: v.compatibilities.filter(
        (c) => kubernetesVersion === undefined || c.clusterVersion === kubernetesVersion,
      ),
    }))
    .filter((v) => v.compatibilities.length > 0);
  return {
    addonName: name,
    type: spec.type,
    addonVersions: versions.map((v) => ({
      addonVersion: v.addonVersion,
      architecture: ['amd64', 'arm64'],
      computeTypes: ['ec2'],
      compatibilities: v.compatibilities,
      requiresConfiguration: false,
      requiresIamPermissions: spec.requiresIamPermissions,
    })),
    publisher: 'eks',
    owner: 'aws',
  };
}

export const addonType = (name: string): string | undefined => SPECS[name]?.type;

export function isCompatible(
  name: string,
  version: string,
  minor: string,
  minors: readonly string[],
): boolean {
  return addonVersions(name, minors).some(
    (v) => v.addonVersion === version && v.compatibilities.some((c) => c.clusterVersion === minor),
  );
}

export function defaultVersion(name: string, minor: string, minors: readonly string[]): string | undefined {
  return addonVersions(name, minors).find((v) =>
    v.compatibilities.some((c) => c.clusterVersion === minor && c.defaultVersion),
  )?.addonVersion;
}
