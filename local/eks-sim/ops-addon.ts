/**
 * Add-on operations (CreateAddon, DescribeAddon, ListAddons, UpdateAddon, DeleteAddon,
 * DescribeAddonVersions) and the upgrade-insight routes. Add-ons move CREATING/UPDATING -> ACTIVE
 * (DEGRADED with health issues) and DELETING -> gone on the simulator's clock.
 */
import { ADDON_NAMES, addonInfo, defaultVersion, isCompatible } from './addon-catalog.js';
import {
  ADDON_DURATIONS,
  type AddonRec,
  addonJson,
  addonOf,
  addonsOf,
  addonUpdateInProgress,
  addonUpdateJson,
} from './addon-state.js';
import { describeInsight, listInsights } from './insights.js';
import type { ClusterRec, SimError } from './model.js';
import { type AddonAssociation, createAssociations, removeAssociations } from './pod-identity.js';
import { fingerprint, type Handler, optionalString, page, param, stringMap, tokenKey } from './request.js';
import { CLUSTER_PATH, type Route } from './route.js';
import { checkRoleArn, checkTags, inUse, invalidParameter, requireString } from './rules.js';
import type { SimState } from './state.js';

type Extra = SimError['extra'] & { addonName?: string };

const RESOLVE_CONFLICTS = ['NONE', 'OVERWRITE', 'PRESERVE'];

/** `configurationValues` must be a JSON object; EKS also takes YAML, which the simulator does not parse. */
function configurationValuesFrom(b: Readonly<Record<string, unknown>>, extra: Extra): string | undefined {
  const v = optionalString(b, 'configurationValues');
  if (v === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(v);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    // [sim] EKS validates against the add-on's configuration schema; the wording is ours.
    throw invalidParameter(
      'ConfigurationValue provided in request is not supported: not a JSON object',
      extra,
    );
  }
  return v;
}

function resolveConflictsFrom(b: Readonly<Record<string, unknown>>, extra: Extra): string | undefined {
  const v = optionalString(b, 'resolveConflicts');
  if (v !== undefined && !RESOLVE_CONFLICTS.includes(v)) {
    // [sim] the model's enum NONE | OVERWRITE | PRESERVE.
    throw invalidParameter(`resolveConflicts must be one of ${RESOLVE_CONFLICTS.join(', ')}`, extra);
  }
  return v;
}

function roleFrom(b: Readonly<Record<string, unknown>>): string | undefined {
  const role = optionalString(b, 'serviceAccountRoleArn');
  if (role !== undefined) checkRoleArn(role);
  return role;
}

/** The add-ons' namespace: every add-on in the catalog runs in kube-system. */
const ADDON_NAMESPACE = 'kube-system';

/** `podIdentityAssociations` entries, checked as the model's AddonPodIdentityAssociations (both members required). */
function associationsFrom(
  b: Readonly<Record<string, unknown>>,
  extra: Extra,
): AddonAssociation[] | undefined {
  const v = b.podIdentityAssociations;
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) throw invalidParameter('podIdentityAssociations must be a list', extra); // [sim]
  return v.map((p: unknown) => {
    const a = (typeof p === 'object' && p !== null ? p : {}) as Record<string, unknown>;
    const serviceAccount = requireString(a, 'serviceAccount');
    const roleArn = requireString(a, 'roleArn');
    checkRoleArn(roleArn);
    return { serviceAccount, roleArn };
  });
}

function checkClusterReady(c: ClusterRec, extra: Extra): void {
  // [sim] the brief's choice for add-ons (node groups answer InvalidRequestException).
  if (c.status !== 'ACTIVE') throw inUse(`Cluster '${c.name}' is not in ACTIVE status`, extra);
}

function checkVersion(state: SimState, c: ClusterRec, name: string, version: string, extra: Extra): void {
  if (!isCompatible(name, version, c.version, state.config.supportedVersions)) {
    throw invalidParameter('Addon version specified is not supported', extra); // [real] terraform-provider-aws#32238
  }
}

function checkAddonName(name: string, extra: Extra): void {
  // [real] "Addon specified is not supported" (containers-roadmap#1429).
  if (!ADDON_NAMES.includes(name)) throw invalidParameter('Addon specified is not supported', extra);
}

export const createAddon: Handler = (r) => {
  const { state, body: b } = r;
  const c = state.cluster(r.region, param(r, 'name'), r.caller.account);
  const name = requireString(b, 'addonName');
  const extra: Extra = { clusterName: c.name, addonName: name };
  checkAddonName(name, extra);
  const requested = optionalString(b, 'addonVersion');
  resolveConflictsFrom(b, extra);
  const configurationValues = configurationValuesFrom(b, extra);
  const serviceAccountRoleArn = roleFrom(b);
  const tags = stringMap(b.tags, 'tags');
  checkTags(tags);
  const associations = associationsFrom(b, extra);
  return state.idempotent(tokenKey(r, 'CreateAddon', `${c.name}/${name}`), fingerprint(r), () => {
    const addons = addonsOf(state, c);
    if (addons.has(name)) throw inUse('Addon already exists.', extra); // [real] wandb/terraform-aws-wandb#230
    checkClusterReady(c, extra);
    if (requested !== undefined) checkVersion(state, c, name, requested, extra);
    const version = requested ?? (defaultVersion(name, c.version, state.config.supportedVersions) as string);
    const now = state.now();
    const arn = `arn:aws:eks:${r.region}:${c.account}:addon/${c.name}/${name}/${state.rng.uuid()}`;
    const owner = { ownerArn: arn, namespace: ADDON_NAMESPACE };
    const a: AddonRec = {
      name,
      arn,
      clusterName: c.name,
      version,
      status: 'CREATING',
      transition: { at: state.after(ADDON_DURATIONS.create), to: 'ACTIVE' },
      serviceAccountRoleArn,
      configurationValues,
      podIdentityAssociations: createAssociations(state, r.region, c, owner, associations ?? []),
      tags,
      createdAt: now,
      modifiedAt: now,
      issues: [],
      updates: [],
    };
    addons.set(name, a);
    return { addon: addonJson(a) };
  });
};

export const describeAddon: Handler = (r) => {
  const c = r.state.cluster(r.region, param(r, 'name'), r.caller.account);
  return { addon: addonJson(addonOf(r.state, c, param(r, 'addonName'))) };
};

export const listAddons: Handler = (r) => {
  const c = r.state.cluster(r.region, param(r, 'name'), r.caller.account);
  const { items, nextToken } = page([...addonsOf(r.state, c).keys()], r.query);
  return { addons: items, ...(nextToken ? { nextToken } : {}) };
};

/** UpdateAddon's params: only the members the request carried, as EKS reports them. */
function updateParams(b: Readonly<Record<string, unknown>>): { type: string; value: string }[] {
  const p: { type: string; value: string }[] = [];
  for (const [k, type] of [
    ['addonVersion', 'AddonVersion'],
    ['serviceAccountRoleArn', 'ServiceAccountRoleArn'],
    ['resolveConflicts', 'ResolveConflicts'],
    ['configurationValues', 'ConfigurationValues'],
  ] as const) {
    const v = b[k];
    if (typeof v === 'string') p.push({ type, value: v });
  }
  if (b.podIdentityAssociations !== undefined) {
    p.push({ type: 'PodIdentityAssociations', value: JSON.stringify(b.podIdentityAssociations) });
  }
  return p;
}

export const updateAddon: Handler = (r) => {
  const { state, body: b } = r;
  const c = state.cluster(r.region, param(r, 'name'), r.caller.account);
  const a = addonOf(state, c, param(r, 'addonName'));
  const extra: Extra = { clusterName: c.name, addonName: a.name };
  const requested = optionalString(b, 'addonVersion');
  resolveConflictsFrom(b, extra);
  const configurationValues = configurationValuesFrom(b, extra);
  const role = roleFrom(b);
  return state.idempotent(tokenKey(r, 'UpdateAddon', `${c.name}/${a.name}`), fingerprint(r), () => {
    checkClusterReady(c, extra);
    const running = addonUpdateInProgress(a);
    if (running) {
      // [sim] modelled on the [real] cluster message in rules.ts checkNoUpdateInProgress.
      throw inUse(
        `Cannot AddonUpdate because addon ${a.name} currently has update ${running.id} in progress`,
        extra,
      );
    }
    if (a.status !== 'ACTIVE' && a.status !== 'DEGRADED' && a.status !== 'UPDATE_FAILED') {
      throw inUse(`Addon ${a.name} is in ${a.status} status`, extra); // [sim]
    }
    if (requested !== undefined) checkVersion(state, c, a.name, requested, extra);
    const associations = associationsFrom(b, extra);
    const failure = c.failNext.get(`addon:${a.name}`);
    c.failNext.delete(`addon:${a.name}`);
    const u = {
      failure,
      id: state.rng.uuid(),
      status: 'InProgress' as const,
      params: updateParams(b),
      createdAt: state.now(),
      doneAt: state.after(ADDON_DURATIONS.update),
      effect: () => {
        if (requested !== undefined) a.version = requested;
        if (configurationValues !== undefined) a.configurationValues = configurationValues;
        if (role !== undefined) a.serviceAccountRoleArn = role;
        // A new list replaces the add-on's associations ([] removes them all, as EKS documents).
        if (associations !== undefined) {
          removeAssociations(c, a.podIdentityAssociations);
          const owner = { ownerArn: a.arn, namespace: ADDON_NAMESPACE };
          a.podIdentityAssociations = createAssociations(state, r.region, c, owner, associations);
        }
      },
    };
    a.updates.push(u);
    a.status = 'UPDATING';
    return { update: addonUpdateJson(u) };
  });
};

export const deleteAddon: Handler = (r) => {
  const c = r.state.cluster(r.region, param(r, 'name'), r.caller.account);
  const a = addonOf(r.state, c, param(r, 'addonName'));
  if (a.status !== 'DELETING') {
    a.status = 'DELETING';
    a.preserved = r.query.get('preserve') === 'true';
    // [sim] EKS documents only that `preserve` keeps an IAM role; the add-on's associations go either way.
    removeAssociations(c, a.podIdentityAssociations);
    a.podIdentityAssociations = [];
    a.transition = { at: r.state.after(ADDON_DURATIONS.delete), to: null };
  }
  return { addon: addonJson(a) };
};

/** The compatibility table, filtered as EKS filters it; an unknown add-on name yields no add-ons. */
export const describeAddonVersions: Handler = (r) => {
  const q = r.query;
  const minors = r.state.config.supportedVersions;
  const k8s = q.get('kubernetesVersion') ?? undefined;
  const name = q.get('addonName');
  const types = q.getAll('types');
  const publishers = q.getAll('publishers');
  const owners = q.getAll('owners');
  const infos = ADDON_NAMES.filter((n) => name === null || n === name)
    .map((n) => addonInfo(n, minors, k8s))
    .filter(
      (i) =>
        (types.length === 0 || types.includes(i.type as string)) &&
        (publishers.length === 0 || publishers.includes(i.publisher as string)) &&
        (owners.length === 0 || owners.includes(i.owner as string)) &&
        (i.addonVersions as unknown[]).length > 0,
    );
  const { items, nextToken } = page(infos, q);
  return { addons: items, ...(nextToken ? { nextToken } : {}) };
};

const C = CLUSTER_PATH;
const ADDON = [...C, 'addons', ':addonName'] as const;

export const ADDON_ROUTES: readonly Route[] = [
  ['GET', ['addons', 'supported-versions'], 'DescribeAddonVersions', describeAddonVersions],
  ['POST', [...C, 'addons'], 'CreateAddon', createAddon],
  ['GET', [...C, 'addons'], 'ListAddons', listAddons],
  ['GET', ADDON, 'DescribeAddon', describeAddon],
  ['DELETE', ADDON, 'DeleteAddon', deleteAddon],
  ['POST', [...ADDON, 'update'], 'UpdateAddon', updateAddon],
  ['POST', [...C, 'insights'], 'ListInsights', listInsights],
  ['GET', [...C, 'insights', ':id'], 'DescribeInsight', describeInsight],
];
