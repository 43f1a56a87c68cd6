/**
 * A cluster's add-ons and access entries as the CLI shows them: what the last run observed
 * (`status.observed.addons`, `status.observed.access`), or what the spec asks for while nothing has
 * been observed yet. The spec is read through validation, as records may predate these fields.
 */

import type { Access } from '../../lambdas/core/spec/access.js';
import type { Addon } from '../../lambdas/core/spec/addons.js';
import { validateSpec } from '../../lambdas/core/spec/validate.js';
import type { AccessSummary, ObservedSummary } from '../../lambdas/core/status.js';
import type { AddonSummary } from '../../lambdas/core/status-parts.js';
import type { ClusterRecord } from '../../lambdas/store/types.js';
import { table } from './format.js';

/** The spec's add-ons and access, normalised; undefined parts when absent or the spec is invalid. */
export function specParts(r: ClusterRecord): { addons?: readonly Addon[]; access?: Access } {
  const v = validateSpec(r.spec);
  if (!v.ok) return {};
  return {
    ...(v.spec.addons ? { addons: v.spec.addons } : {}),
    ...(v.spec.access ? { access: v.spec.access } : {}),
  };
}

/** `coredns v1.11.4-eksbuild.2 DEGRADED (InsufficientNumberOfReplicas)`, or `Missing`. */
export function addonText(a: AddonSummary): string {
  const issues = a.issues?.length ? ` (${a.issues.join(', ')})` : '';
  return a.status === 'Missing'
    ? `${a.name}: Missing (not created yet)`
    : `${a.name}: ${a.version ?? '-'} ${a.status}${issues}`;
}

/**
 * Status is read from the table as it is: an item written there by hand may hold anything. These
 * say whether the observed parts have the shape CloudOrch writes, so one bad item never breaks a
 * listing or a describe.
 */
const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null;
export function wellFormedAddons(x: unknown): x is readonly AddonSummary[] {
  return (
    Array.isArray(x) &&
    x.every(
      (a) =>
        isObject(a) &&
        typeof a['name'] === 'string' &&
        typeof a['status'] === 'string' &&
        (a['issues'] === undefined ||
          (Array.isArray(a['issues']) && a['issues'].every((i) => typeof i === 'string'))),
    )
  );
}
export function wellFormedAccess(x: unknown): x is AccessSummary {
  if (!isObject(x) || typeof x['authenticationMode'] !== 'string') return false;
  const entries = x['entries'];
  return (
    entries === undefined ||
    (Array.isArray(entries) &&
      entries.every(
        (e) =>
          isObject(e) &&
          typeof e['principalArn'] === 'string' &&
          typeof e['type'] === 'string' &&
          Array.isArray(e['policies']) &&
          e['policies'].every((p) => typeof p === 'string'),
      ))
  );
}
const MALFORMED = (field: string) =>
  `  status.observed.${field} is malformed in the table; cloudorch reconcile writes it again`;

/** describe's Add-ons section. */
export function addonsSection(
  observed: readonly AddonSummary[] | undefined,
  spec: readonly Addon[] | undefined,
): string[] {
  if (observed !== undefined && !wellFormedAddons(observed)) return [MALFORMED('addons')];
  if (spec === undefined && observed === undefined) return ['  not managed (the spec lists no addons)'];
  if (observed !== undefined) {
    if (observed.length === 0)
      return ['  none listed; CloudOrch removes the add-ons it created (preserving their resources)'];
    return observed.map((a) => `  ${addonText(a)}`);
  }
  if (spec?.length === 0)
    return ['  none listed; CloudOrch removes the add-ons it created (preserving their resources)'];
  return (spec ?? []).map((a) => `  ${a.name}: not observed yet; the spec asks for ${a.version}`);
}

/** One entry's policies, `-` when it has none. */
const policiesText = (policies: readonly string[]): string =>
  policies.length > 0 ? policies.join('; ') : '-';

/** describe's Access section: the mode, then one aligned row per entry EKS reports. */
export function accessSection(observed: AccessSummary | undefined, spec: Access | undefined): string[] {
  if (observed !== undefined && !wellFormedAccess(observed)) return [MALFORMED('access')];
  if (!spec && !observed) return ['  not managed (the spec has no access)'];
  // A spec that names no mode asks for none in particular: nothing to set beside the observed one.
  const asked: string | undefined = spec?.authenticationMode;
  const mode = observed
    ? `  mode ${observed.authenticationMode}${asked !== undefined && asked !== observed.authenticationMode ? ` (the spec asks for ${asked})` : ''}`
    : `  not observed yet${asked !== undefined ? `; the spec asks for mode ${asked}` : ''}`;
  const exclusive = spec ? `, exclusive: ${spec.exclusive}` : '';
  const lines = [`${mode}${exclusive}`];
  if (!observed?.entries) {
    for (const e of spec?.entries ?? []) lines.push(`  ${e.principalArn}: not observed yet`);
    return lines;
  }
  if (observed.entries.length === 0) return [...lines, '  no access entries'];
  const rows = observed.entries.map((e) => [
    e.principalArn,
    e.type,
    policiesText(e.policies),
    e.listed ? 'listed' : e.type === 'STANDARD' ? 'not listed' : "not listed (EKS's own, never touched)",
  ]);
  return [...lines, ...table([['PRINCIPAL', 'TYPE', 'POLICIES', 'SPEC'], ...rows]).map((l) => `  ${l}`)];
}

/** get -o wide's ADDONS cell: how many are ACTIVE, and each one that is not with its status. */
export function addonsCell(o: ObservedSummary | undefined): string {
  const addons = o?.addons;
  if (!addons) return '-';
  if (!wellFormedAddons(addons)) return 'malformed';
  if (addons.length === 0) return '0';
  const other = addons.filter((a) => a.status !== 'ACTIVE');
  const active = `${addons.length - other.length}/${addons.length} ACTIVE`;
  return other.length === 0 ? active : `${active}; ${other.map((a) => `${a.name}:${a.status}`).join(',')}`;
}

/** get -o wide's ACCESS cell: the mode and the number of entries (unlisted ones counted apart). */
export function accessCell(o: ObservedSummary | undefined): string {
  const access = o?.access;
  if (!access) return '-';
  if (!wellFormedAccess(access)) return 'malformed';
  if (!access.entries) return access.authenticationMode;
  const unlisted = access.entries.filter((e) => !e.listed).length;
  return `${access.authenticationMode} (${access.entries.length} entries${unlisted > 0 ? `, ${unlisted} not listed` : ''})`;
}
