/**
 * The access stage and its drift: the authentication mode (one way: CONFIG_MAP, API_AND_CONFIG_MAP,
 * API), each listed entry with its groups and access policies, and the entries nobody listed: those
 * CloudOrch created go; hand-made ones are drift, removed only under `exclusive`. EKS's own entries
 * (node roles, service-linked roles) are never touched.
 */
import { accessPolicyArn, accessPolicyName } from '../access-policies.js';
import type { ObservedAccessEntry } from '../observation.js';
import { createdByCloudOrch, OWNER_TAG, ownershipTags } from '../ownership.js';
import type { Access, AccessEntry, AccessPolicy } from '../spec/access.js';
import type { DriftItem, FieldContext } from './compare.js';
import type { Decision, PlanContext, Stage } from './converge-types.js';
import { impossible } from './guards.js';
import { withToken } from './tokens.js';
import type { AccessScope, Impossible, MutatingOperation } from './types.js';

/** EKS's order of authentication modes: it moves only forward. */
const MODES = ['CONFIG_MAP', 'API_AND_CONFIG_MAP', 'API'];
/** EKS means CONFIG_MAP when DescribeCluster shows no access config. */
export const modeOf = (ctx: FieldContext): string => ctx.cluster.authenticationMode ?? 'CONFIG_MAP';

export const entryField = (principal: string, part?: string): string =>
  part === undefined ? `access.entries[${principal}]` : `access.entries[${principal}].${part}`;

const scopeOf = (p: AccessPolicy): AccessScope =>
  p.scope === 'namespace'
    ? { type: 'namespace', namespaces: [...(p.namespaces ?? [])].sort() }
    : { type: 'cluster', namespaces: [] };
const scopeText = (s: { type: string; namespaces: readonly string[] }) =>
  s.type === 'namespace' ? `namespace:${[...s.namespaces].sort().join(',')}` : s.type;
const groupsText = (gs: readonly string[]) => [...gs].sort().join(',');

/**
 * Entries EKS makes and owns: node roles' (EC2_LINUX and the other non-STANDARD types), service-linked
 * roles', and the role of any node group of the cluster. No spec or `exclusive` ever removes them.
 */
export function madeByEks(ctx: FieldContext, e: ObservedAccessEntry): boolean {
  return (
    e.type !== 'STANDARD' ||
    e.principalArn.includes(':role/aws-service-role/') ||
    ctx.nodegroups.some((ng) => ng.nodeRole === e.principalArn)
  );
}

/**
 * What becomes of an entry the spec does not list: this record's go, the others only under
 * `exclusive`. The record is the cluster's owner (the stages run only on clusters it owns).
 */
function unlistedFate(ctx: FieldContext, access: Access, e: ObservedAccessEntry) {
  if (madeByEks(ctx, e)) return 'kept';
  const owner = ctx.cluster.tags[OWNER_TAG];
  if (createdByCloudOrch(e.tags) && owner !== undefined && e.tags[OWNER_TAG] === owner) return 'removed';
  return access.exclusive ? 'unlisted' : 'reported';
}

/** The mode the spec wants: the one it names, else at least API_AND_CONFIG_MAP (never back from API). */
function wantedMode(ctx: FieldContext, access: Access): string {
  if (access.authenticationMode) return access.authenticationMode;
  return modeOf(ctx) === 'API' ? 'API' : 'API_AND_CONFIG_MAP';
}

/** The mode can only move forward: a spec asking to go back cannot converge. */
export function accessBlockers(ctx: FieldContext): Impossible[] {
  const access = ctx.spec.access;
  if (!access) return [];
  const out: Impossible[] = [];
  const mode = modeOf(ctx);
  if (MODES.indexOf(wantedMode(ctx, access)) < MODES.indexOf(mode))
    out.push(
      impossible(
        'access.authenticationMode',
        `EKS never moves the authentication mode back (cluster is at ${mode})`,
        `Set access.authenticationMode to "${mode}" (or leave it out).`,
      ),
    );
  for (const entry of access.entries) {
    const e = ctx.parts.accessEntries?.find((o) => o.principalArn === entry.principalArn);
    if (e && e.type !== entry.type)
      out.push(
        impossible(
          entryField(entry.principalArn, 'type'),
          `the entry's type is immutable in EKS (observed ${e.type})`,
          madeByEks(ctx, e)
            ? `This is EKS's own entry for a node role: deleting it cuts those nodes off. Remove it from the spec, or set type: ${e.type}.`
            : `Set type: ${e.type}, or delete the entry (aws eks delete-access-entry) so CloudOrch creates it anew.`,
        ),
      );
  }
  return out;
}

/** The calls one listed entry needs, first one first. */
function entryStep(x: PlanContext, entry: AccessEntry): MutatingOperation | null {
  const e = x.parts.accessEntries?.find((o) => o.principalArn === entry.principalArn);
  const groups = [...(entry.kubernetesGroups ?? [])].sort();
  if (!e) {
    const op = {
      kind: 'CreateAccessEntry',
      ...x.base,
      principalArn: entry.principalArn,
      type: entry.type,
      kubernetesGroups: groups,
      tags: ownershipTags(x.d.id),
    } as const;
    return withToken(x.d, op, `${entry.type}:${groupsText(groups)}`);
  }
  if (e.type !== entry.type) return null;
  if (entry.kubernetesGroups !== undefined && groupsText(e.kubernetesGroups) !== groupsText(groups)) {
    const op = {
      kind: 'UpdateAccessEntry',
      ...x.base,
      principalArn: e.principalArn,
      kubernetesGroups: groups,
    } as const;
    return withToken(x.d, op, groupsText(groups));
  }
  for (const p of entry.policies) {
    const policyArn = accessPolicyArn(p.name);
    const have = e.policies.find((o) => o.policyArn === policyArn);
    const scope = scopeOf(p);
    if (!have || scopeText(have.scope) !== scopeText(scope))
      return {
        kind: 'AssociateAccessPolicy',
        ...x.base,
        principalArn: e.principalArn,
        policyArn,
        accessScope: scope,
      };
  }
  const wanted = new Set(entry.policies.map((p) => accessPolicyArn(p.name)));
  const extra = e.policies.find((o) => !wanted.has(o.policyArn));
  if (extra)
    return {
      kind: 'DisassociateAccessPolicy',
      ...x.base,
      principalArn: e.principalArn,
      policyArn: extra.policyArn,
    };
  return null;
}

export const convergeAccess: Stage = (x): Decision | undefined => {
  const access = x.spec.access;
  if (!access) return undefined;
  const mode = modeOf(x);
  const wanted = wantedMode(x, access);
  if (MODES.indexOf(wanted) > MODES.indexOf(mode)) {
    const op = {
      kind: 'UpdateClusterConfig',
      ...x.base,
      fromMode: mode,
      authenticationMode: wanted,
    } as const;
    return { next: withToken(x.d, op, wanted) };
  }
  // Entries need an API mode; EKS refuses every entry call under CONFIG_MAP.
  const entries = x.parts.accessEntries;
  if (mode === 'CONFIG_MAP' || !entries) return undefined;
  for (const entry of access.entries) {
    const op = entryStep(x, entry);
    if (op) return { next: op };
  }
  const listedArns = new Set(access.entries.map((e) => e.principalArn));
  for (const e of entries) {
    if (listedArns.has(e.principalArn)) continue;
    const fate = unlistedFate(x, access, e);
    if (fate === 'removed' || fate === 'unlisted')
      return { next: { kind: 'DeleteAccessEntry', ...x.base, principalArn: e.principalArn, reason: fate } };
  }
  return undefined;
};

/** Every difference between the spec's access and EKS's: mode, entries, groups, policies, hand-made entries. */
export function accessDrift(ctx: FieldContext): DriftItem[] {
  const access = ctx.spec.access;
  if (!access) return [];
  const items: DriftItem[] = [];
  const mode = modeOf(ctx);
  const wanted = wantedMode(ctx, access);
  if (mode !== wanted) items.push({ field: 'access.authenticationMode', desired: wanted, observed: mode });
  const entries = ctx.parts.accessEntries;
  if (!entries || mode === 'CONFIG_MAP') return items;
  for (const entry of access.entries) {
    const e = entries.find((o) => o.principalArn === entry.principalArn);
    if (!e) {
      items.push({ field: entryField(entry.principalArn), desired: 'exists', observed: 'not found' });
      continue;
    }
    if (e.type !== entry.type)
      items.push({ field: entryField(e.principalArn, 'type'), desired: entry.type, observed: e.type });
    if (
      entry.kubernetesGroups !== undefined &&
      groupsText(e.kubernetesGroups) !== groupsText(entry.kubernetesGroups)
    )
      items.push({
        field: entryField(e.principalArn, 'kubernetesGroups'),
        desired: groupsText(entry.kubernetesGroups),
        observed: groupsText(e.kubernetesGroups),
      });
    const want = entry.policies
      .map((p) => `${p.name}@${scopeText(scopeOf(p))}`)
      .sort()
      .join(';');
    const have = e.policies
      .map((o) => `${accessPolicyName(o.policyArn)}@${scopeText(o.scope)}`)
      .sort()
      .join(';');
    if (want !== have)
      items.push({ field: entryField(e.principalArn, 'policies'), desired: want, observed: have });
  }
  const listedArns = new Set(access.entries.map((e) => e.principalArn));
  for (const e of entries) {
    if (listedArns.has(e.principalArn) || madeByEks(ctx, e)) continue;
    const policies = e.policies.map((o) => accessPolicyName(o.policyArn)).join(', ');
    items.push({
      field: entryField(e.principalArn),
      desired: 'absent (not in the spec)',
      observed: `${e.type}${policies ? ` with ${policies}` : ''}${unlistedFate(ctx, access, e) === 'reported' ? ' (made outside CloudOrch; kept: access.exclusive is false)' : ''}`,
    });
  }
  return items;
}
