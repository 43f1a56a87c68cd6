/**
 * Add-on versions and settings: what `version` resolves to for a Kubernetes minor (from EKS's
 * DescribeAddonVersions), whether a running version is compatible, and how a running add-on differs
 * from its spec entry. Pure; the add-on stage (converge-addons.ts) and the drift rule both read it.
 */
import type { AddonVersion, ObservedAddon } from '../observation.js';
import { ADDON_VERSION_TAG, createdByCloudOrch, OWNER_TAG } from '../ownership.js';
import type { Addon } from '../spec/addons.js';
import { compareVersions, nextMinor } from '../version.js';
import type { PodIdentity } from './types.js';

/** `v1.19.0-eksbuild.2` as numbers, for ordering; unknown shapes sort first. */
function versionKey(v: string): number[] {
  const m = /^v(\d+)\.(\d+)\.(\d+)(?:-eksbuild\.(\d+))?$/.exec(v);
  return m ? [1, Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4] ?? 0)] : [0];
}

function newer(a: string, b: string): boolean {
  const x = versionKey(a);
  const y = versionKey(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d > 0;
  }
  return false;
}

export function compatible(versions: readonly AddonVersion[], version: string, minor: string): boolean {
  return versions.some(
    (v) => v.version === version && v.compatibilities.some((c) => c.clusterVersion === minor),
  );
}

export type Resolution = { readonly version: string } | { readonly reason: string };

/** What the spec's `version` means for a cluster at `minor`, by EKS's table. */
export function resolveVersion(addon: Addon, minor: string, versions: readonly AddonVersion[]): Resolution {
  if (versions.length === 0) return { reason: `EKS offers no add-on named ${addon.name} in this region` };
  const runs = versions.filter((v) => v.compatibilities.some((c) => c.clusterVersion === minor));
  if (addon.version === 'default') {
    const d = runs.find((v) => v.compatibilities.some((c) => c.clusterVersion === minor && c.defaultVersion));
    return d
      ? { version: d.version }
      : { reason: `EKS names no default ${addon.name} version for Kubernetes ${minor}` };
  }
  if (addon.version === 'latest') {
    const latest = runs.reduce<string | undefined>(
      (best, v) => (!best || newer(v.version, best) ? v.version : best),
      undefined,
    );
    return latest
      ? { version: latest }
      : { reason: `EKS offers no ${addon.name} version for Kubernetes ${minor}` };
  }
  if (!versions.some((v) => v.version === addon.version))
    return { reason: `${addon.name} ${addon.version} is not a version EKS offers` };
  return compatible(versions, addon.version, minor)
    ? { version: addon.version }
    : { reason: `${addon.name} ${addon.version} is not compatible with Kubernetes ${minor}` };
}

/**
 * The version an add-on should run at `minor`. A pin is itself. A keyword keeps the running version
 * while the spec's keyword is the one the add-on was converged for and the minor still runs it; a
 * changed keyword, or a minor that no longer runs it, moves it to the keyword's resolution.
 */
export function targetVersion(
  addon: Addon,
  minor: string,
  versions: readonly AddonVersion[],
  current: ObservedAddon | undefined,
): Resolution {
  if (
    current &&
    addon.version === current.tags[ADDON_VERSION_TAG] &&
    (addon.version === 'default' || addon.version === 'latest') &&
    compatible(versions, current.version, minor)
  )
    return { version: current.version };
  return resolveVersion(addon, minor, versions);
}

/**
 * The minors a version step passes through after `from`, up to `to`: each must resolve for every
 * listed add-on before the control plane moves.
 */
export function minorsAhead(from: string, to: string): string[] {
  const out: string[] = [];
  for (let v = from; compareVersions(v, to) < 0; ) {
    v = nextMinor(v);
    out.push(v);
  }
  return out;
}

/** The configuration as CloudOrch sends it: JSON with keys in a stable order. */
export function configurationText(values: Readonly<Record<string, unknown>> | undefined): string | undefined {
  if (values === undefined) return undefined;
  const stable = (x: unknown): unknown =>
    Array.isArray(x)
      ? x.map(stable)
      : x !== null && typeof x === 'object'
        ? Object.fromEntries(
            Object.keys(x)
              .sort()
              .map((k) => [k, stable((x as Record<string, unknown>)[k])]),
          )
        : x;
  return JSON.stringify(stable(values));
}

/** Whether EKS's text means the same configuration (JSON compared parsed; YAML or other text never equal). */
function sameConfiguration(desired: string | undefined, observed: string | undefined): boolean {
  const want = desired ?? '';
  const have = observed ?? '';
  if (want === have) return true;
  try {
    return configurationText(JSON.parse(have || '{}')) === configurationText(JSON.parse(want || '{}'));
  } catch {
    return false;
  }
}

const podKey = (p: { serviceAccount: string; roleArn: string }) => `${p.serviceAccount}=${p.roleArn}`;

export function podIdentities(addon: Addon): PodIdentity[] {
  return (addon.podIdentityAssociations ?? []).map((p) => ({
    serviceAccount: p.serviceAccount,
    roleArn: p.roleArn,
  }));
}

/** Every setting of a running add-on that differs from its spec entry, by name: desired, observed. */
export function settingDifferences(addon: Addon, current: ObservedAddon): [string, string, string][] {
  const out: [string, string, string][] = [];
  const config = configurationText(addon.configurationValues);
  // An absent configurationValues leaves EKS's text alone: only a listed one is converged.
  if (config !== undefined && !sameConfiguration(config, current.configurationValues))
    out.push(['configurationValues', config, current.configurationValues ?? '']);
  const role = addon.serviceAccountRoleArn ?? '';
  if (addon.serviceAccountRoleArn !== undefined && role !== (current.serviceAccountRoleArn ?? ''))
    out.push(['serviceAccountRoleArn', role, current.serviceAccountRoleArn ?? '']);
  if (addon.podIdentityAssociations !== undefined) {
    const want = podIdentities(addon).map(podKey).sort().join(',');
    const have = current.podIdentityAssociations.map(podKey).sort().join(',');
    if (want !== have) out.push(['podIdentityAssociations', want, have]);
  }
  return out;
}

/** Whether CloudOrch created this add-on for this record (only those leave EKS when unlisted). */
export const createdFor = (recordId: string, a: ObservedAddon | { tags: Readonly<Record<string, string>> }) =>
  createdByCloudOrch(a.tags) && a.tags[OWNER_TAG] === recordId;
