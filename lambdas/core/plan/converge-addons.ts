/**
 * The add-on stage and its drift. Without `spec.addons` no add-on is managed. With it, each listed add-on exists, at the version its spec entry resolves to
 * for the cluster's current minor, with its settings; add-ons CloudOrch created that left the list go
 * (with `preserve`). Runs after every control-plane step, before the pools catch up, so the order of
 * one version step is: control plane, add-ons, pools.
 */
import { Health } from '../health.js';
import type { ObservedAddon } from '../observation.js';
import { ADDON_VERSION_TAG, OWNER_TAG, ownershipTags } from '../ownership.js';
import type { Addon } from '../spec/addons.js';
import {
  compatible,
  configurationText,
  createdFor,
  minorsAhead,
  podIdentities,
  resolveVersion,
  settingDifferences,
  targetVersion,
} from './addons.js';
import type { DriftItem, FieldContext } from './compare.js';
import type { Decision, PlanContext, Stage } from './converge-types.js';
import { impossible } from './guards.js';
import { withToken } from './tokens.js';
import type { Impossible, MutatingOperation } from './types.js';

export const addonField = (name: string, part?: string): string =>
  part === undefined ? `addons[${name}]` : `addons[${name}].${part}`;

const listed = (ctx: FieldContext): readonly Addon[] => ctx.spec.addons ?? [];
const running = (ctx: FieldContext, name: string): ObservedAddon | undefined =>
  ctx.parts.addons?.find((a) => a.name === name);

/** Add-on statuses in which EKS takes no call on it: wait for it, and act on the others meanwhile. */
const inTransition = (a: ObservedAddon) => a.health === Health.Progressing || a.health === Health.Deleting;

/**
 * What no step can fix: a listed add-on whose `version` resolves to nothing for the cluster's minor or
 * for a minor the control plane still has to pass through (reported before it moves).
 */
export function addonBlockers(ctx: FieldContext): Impossible[] {
  const versionsOf = ctx.parts.addonVersions;
  if (!versionsOf) return [];
  const minors = [ctx.cluster.version, ...minorsAhead(ctx.cluster.version, ctx.spec.kubernetesVersion)];
  return listed(ctx).flatMap((addon) => {
    const versions = versionsOf[addon.name];
    if (!versions) return [];
    const running = ctx.parts.addons?.find((a) => a.name === addon.name)?.version;
    for (const minor of minors) {
      // A pin that runs now is converged at this minor, even once EKS stops listing it.
      if (minor === ctx.cluster.version && running === addon.version) continue;
      const r = resolveVersion(addon, minor, versions);
      if ('reason' in r)
        return [
          impossible(
            addonField(addon.name, 'version'),
            minor === ctx.cluster.version
              ? r.reason
              : `${r.reason}, which the upgrade to ${ctx.spec.kubernetesVersion} passes through`,
            addon.version === 'default' || addon.version === 'latest'
              ? `Check the add-on name and the versions EKS offers (aws eks describe-addon-versions --addon-name ${addon.name}).`
              : `Pin a version compatible with Kubernetes ${minor} (aws eks describe-addon-versions --addon-name ${addon.name} --kubernetes-version ${minor}), or set version: default.`,
          ),
        ];
    }
    return [];
  });
}

/** What converging one listed add-on takes next, if anything (no call on one in transition). */
function addonStep(x: PlanContext, addon: Addon): MutatingOperation | null {
  const versions = x.parts.addonVersions?.[addon.name];
  if (!versions) return null;
  const current = running(x, addon.name);
  // A failed create or delete is EKS's to clear (status says so); a failed update is tried again,
  // and the tracked update's failure holds automatic retries back until a manual reconcile.
  if (
    current &&
    (inTransition(current) || current.status === 'CREATE_FAILED' || current.status === 'DELETE_FAILED')
  )
    return null;
  const target = targetVersion(addon, x.cluster.version, versions, current);
  if ('reason' in target) return null;
  const config = configurationText(addon.configurationValues);
  const settings = {
    ...x.base,
    addonName: addon.name,
    addonVersion: target.version,
    ...(config !== undefined ? { configurationValues: config } : {}),
    ...(addon.serviceAccountRoleArn ? { serviceAccountRoleArn: addon.serviceAccountRoleArn } : {}),
    ...(addon.podIdentityAssociations ? { podIdentityAssociations: podIdentities(addon) } : {}),
    resolveConflicts: addon.resolveConflicts,
  };
  if (!current) {
    const tags = { ...ownershipTags(x.d.id), [ADDON_VERSION_TAG]: addon.version };
    return withToken(x.d, { kind: 'CreateAddon', ...settings, tags } as const, target.version);
  }
  const settingsDiffer = settingDifferences(addon, current).length > 0;
  if (current.version === target.version && !settingsDiffer) return null;
  const reason =
    current.version === target.version
      ? 'settings'
      : compatible(versions, current.version, x.cluster.version)
        ? 'version'
        : 'incompatible';
  const op = { kind: 'UpdateAddon', ...settings, fromVersion: current.version, reason } as const;
  return withToken(x.d, op, `${target.version}:${JSON.stringify(settings)}`);
}

/** The version keyword a listed add-on was converged for, once it runs what that keyword means. */
function versionTag(x: PlanContext, addon: Addon): MutatingOperation | null {
  const current = running(x, addon.name);
  if (!current || inTransition(current) || current.tags[ADDON_VERSION_TAG] === addon.version) return null;
  // Only once it runs what the keyword means now: a tag never records a version it does not run.
  const versions = x.parts.addonVersions?.[addon.name];
  const target = versions ? resolveVersion(addon, x.cluster.version, versions) : undefined;
  if (!target || !('version' in target) || target.version !== current.version) return null;
  return {
    kind: 'TagResource',
    ...x.base,
    resourceArn: current.arn,
    tags: { [ADDON_VERSION_TAG]: addon.version },
  };
}

export const convergeAddons: Stage = (x): Decision | undefined => {
  // Without `addons` CloudOrch manages none; an empty list still removes the ones it created.
  if (x.spec.addons === undefined) return undefined;
  const addons = listed(x);
  for (const addon of addons) {
    const op = addonStep(x, addon);
    if (op) return { next: op };
  }
  const names = new Set(addons.map((a) => a.name));
  const unlisted = (x.parts.addons ?? []).find(
    (a) => !names.has(a.name) && createdFor(x.d.id, a) && a.health !== Health.Deleting,
  );
  if (unlisted) return { next: { kind: 'DeleteAddon', ...x.base, addonName: unlisted.name, preserve: true } };
  for (const addon of addons) {
    const op = versionTag(x, addon);
    if (op) return { next: op };
  }
  return undefined;
};

/** Every difference between the listed add-ons and EKS's, and the created ones that left the list. */
export function addonsDrift(ctx: FieldContext): DriftItem[] {
  const observed = ctx.parts.addons;
  if (!observed || ctx.spec.addons === undefined) return [];
  const items: DriftItem[] = [];
  for (const addon of listed(ctx)) {
    const current = running(ctx, addon.name);
    if (!current) {
      items.push({ field: addonField(addon.name), desired: 'exists', observed: 'not found' });
      continue;
    }
    const versions = ctx.parts.addonVersions?.[addon.name];
    const target = versions ? targetVersion(addon, ctx.cluster.version, versions, current) : undefined;
    if (target && 'version' in target && target.version !== current.version)
      items.push({
        field: addonField(addon.name, 'version'),
        desired: target.version,
        observed: current.version,
      });
    for (const [part, desired, have] of settingDifferences(addon, current))
      items.push({ field: addonField(addon.name, part), desired, observed: have });
  }
  // The record that owns the cluster: only its own add-ons leave with the spec (as the stage decides).
  const owner = ctx.cluster.tags[OWNER_TAG];
  const names = new Set(listed(ctx).map((a) => a.name));
  for (const a of observed)
    if (!names.has(a.name) && owner !== undefined && createdFor(owner, a))
      items.push({ field: addonField(a.name), desired: 'absent (left the spec)', observed: a.status });
  return items;
}
