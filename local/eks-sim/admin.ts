/**
 * The admin API under `/_sim/`: drift (change resources behind the reconciler's back), fault
 * injection per operation, clock control, reset, and call counts per operation. It is not part of
 * EKS; its errors are plain `{message}` bodies without `x-amzn-ErrorType`.
 */
import { AccountInputError, checkAccount } from './accounts.js';
import { ADDON_ISSUE_CODES, addonOf, clearAddonHealth, markAddonDegraded } from './addon-state.js';
import {
  clearInsights,
  INSIGHT_CATEGORIES,
  INSIGHT_STATUSES,
  type InsightInput,
  setInsight,
} from './insights.js';
import { type HealthIssue, SimError } from './model.js';
import { taintsFrom, updateConfigFrom } from './nodegroup-config.js';
import type { SimState } from './state.js';

export { type CallCount, type CallCounts, Counters, type FaultSpec, Faults } from './faults.js';

import type { Counters, FaultSpec, Faults } from './faults.js';

const bad = (message: string) => new SimError(400, 'AdminBadRequest', message);

function issues(v: unknown): HealthIssue[] {
  if (!Array.isArray(v)) throw bad('healthIssues must be a list of {code, message}');
  return v.map((i) => ({ code: String(i.code), message: String(i.message ?? i.code) }));
}

type Body = Record<string, unknown>;

/** A drift value is checked with EKS's rules but refused as an admin error, not an EKS one. */
function asAdmin<T>(parse: () => T): T {
  try {
    return parse();
  } catch (e) {
    if (e instanceof SimError) throw bad(e.message);
    throw e;
  }
}

function driftCluster(state: SimState, region: string, name: string, b: Body, account?: string): unknown {
  const c = state.cluster(region, name, account);
  if (typeof b.version === 'string') c.version = b.version;
  if (typeof b.status === 'string') c.status = b.status;
  if (b.tags !== undefined) c.tags = { ...(b.tags as Record<string, string>) };
  if (b.healthIssues !== undefined) c.healthIssues = issues(b.healthIssues);
  return { ok: true };
}

function driftNodegroup(
  state: SimState,
  region: string,
  name: string,
  ngName: string,
  b: Body,
  account?: string,
): unknown {
  const ng = state.nodegroup(state.cluster(region, name, account), ngName);
  if (typeof b.version === 'string') ng.version = b.version;
  if (typeof b.status === 'string') ng.status = b.status;
  if (typeof b.capacityType === 'string') ng.capacityType = b.capacityType;
  if (Array.isArray(b.instanceTypes)) ng.instanceTypes = b.instanceTypes.map(String);
  if (b.scaling !== undefined) ng.scaling = { ...ng.scaling, ...(b.scaling as object) };
  if (b.tags !== undefined) ng.tags = { ...(b.tags as Record<string, string>) };
  if (b.labels !== undefined) ng.labels = { ...(b.labels as Record<string, string>) };
  if (b.taints !== undefined) ng.taints = asAdmin(() => taintsFrom(b.taints, 'taints', {}));
  if (b.updateConfig !== undefined) {
    ng.updateConfig = asAdmin(() => updateConfigFrom(b.updateConfig, ng.scaling.maxSize, {}));
  }
  if (b.healthIssues !== undefined) {
    ng.healthIssues = issues(b.healthIssues);
    if (ng.status === 'ACTIVE' && ng.healthIssues.length > 0) ng.status = 'DEGRADED';
  }
  return { ok: true };
}

export interface AdminContext {
  readonly state: SimState;
  readonly faults: Faults;
  readonly counters: Counters;
}

/** One admin request: `segs` are the decoded path segments after `_sim` (and after `accounts/{account}`). */
interface AdminRequest {
  readonly ctx: AdminContext;
  readonly segs: readonly string[];
  readonly body: Body;
  /** The account of a cluster route under `accounts/{account}/regions/...`; else the default account. */
  readonly account?: string;
}

type AdminHandler = (req: AdminRequest) => unknown;

function resetAll({ ctx, body }: AdminRequest): unknown {
  const seed = typeof body.seed === 'number' ? body.seed : ctx.state.config.seed;
  ctx.state.reset(seed);
  ctx.faults.reset(seed);
  ctx.counters.reset();
  return { ok: true };
}

function setFaults({ ctx, body }: AdminRequest): unknown {
  try {
    ctx.faults.set(body as Record<string, FaultSpec>);
  } catch (e) {
    throw bad((e as Error).message);
  }
  return { ok: true };
}

function advanceClock({ ctx, body }: AdminRequest): unknown {
  if (typeof body.ms !== 'number' || body.ms < 0) throw bad('ms must be a non-negative number');
  ctx.state.advance(body.ms);
  return { ok: true, now: ctx.state.now() };
}

/** A compact view of every cluster with its node groups and updates; not an EKS shape. */
function stateSnapshot({ ctx: { state } }: AdminRequest): unknown {
  return {
    now: state.now(),
    clusters: state.allClusters().map((c) => ({
      // Only another account's clusters say which: the single-account snapshot is unchanged.
      ...(c.account === state.config.accountId ? {} : { account: c.account }),
      region: c.region,
      name: c.name,
      status: c.status,
      version: c.version,
      nodegroups: [...c.nodegroups.values()].map((ng) => ({
        name: ng.name,
        status: ng.status,
        version: ng.version,
      })),
      updates: c.updates.map((u) => ({
        id: u.id,
        type: u.type,
        status: u.status,
        nodegroupName: u.nodegroupName,
      })),
    })),
  };
}

function deleteClusterBehindBack({ ctx: { state }, segs, account }: AdminRequest): unknown {
  const region = segs[1]!;
  const cluster = segs[3]!;
  state.cluster(region, cluster, account);
  state.clusters(region, account).delete(cluster);
  return { ok: true };
}

function failNextUpdate({ ctx: { state }, segs, body, account }: AdminRequest): unknown {
  const c = state.cluster(segs[1]!, segs[3]!, account);
  if (typeof body.errorCode !== 'string') throw bad('errorCode is required');
  // The scope: a node group, an add-on (`addon:<name>`, failed by UpdateAddon), or the control plane ('').
  const scope =
    typeof body.addonName === 'string'
      ? `addon:${addonOf(state, c, body.addonName).name}`
      : typeof body.nodegroupName === 'string'
        ? state.nodegroup(c, body.nodegroupName).name
        : '';
  c.failNext.set(scope, body.errorCode);
  return { ok: true };
}

function clearCalls({ ctx }: AdminRequest): unknown {
  ctx.counters.reset();
  return { ok: true };
}

function clearFaults({ ctx }: AdminRequest): unknown {
  ctx.faults.set({});
  return { ok: true };
}

const optional = (b: Body, key: string): string | undefined => {
  const v = b[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw bad(`${key} must be a string`);
  return v;
};

function oneOf<T extends string>(v: string | undefined, key: string, allowed: readonly T[]): T | undefined {
  if (v === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(v)) throw bad(`${key} must be one of ${allowed.join(', ')}`);
  return v as T;
}

/** An insight as the admin API takes it: name and status required, the rest defaulted by setInsight. */
function insightInput(b: Body): InsightInput {
  const name = optional(b, 'name');
  const status = oneOf(optional(b, 'status'), 'status', INSIGHT_STATUSES);
  if (name === undefined || status === undefined) throw bad('name and status are required');
  const category = oneOf(optional(b, 'category'), 'category', INSIGHT_CATEGORIES);
  const text = (k: 'id' | 'reason' | 'kubernetesVersion' | 'description' | 'recommendation') => {
    const v = optional(b, k);
    return v === undefined ? {} : { [k]: v };
  };
  return {
    name,
    status,
    ...(category ? { category } : {}),
    ...text('id'),
    ...text('reason'),
    ...text('kubernetesVersion'),
    ...text('description'),
    ...text('recommendation'),
    ...(b.additionalInfo !== undefined ? { additionalInfo: b.additionalInfo as Record<string, string> } : {}),
    ...(Array.isArray(b.resources)
      ? { resources: b.resources as NonNullable<InsightInput['resources']> }
      : {}),
    ...(Array.isArray(b.deprecationDetails)
      ? { deprecationDetails: b.deprecationDetails as NonNullable<InsightInput['deprecationDetails']> }
      : {}),
  };
}

function putInsight({ ctx: { state }, segs, body, account }: AdminRequest): unknown {
  const input = insightInput(body);
  state.cluster(segs[1]!, segs[3]!, account); // a missing cluster is EKS's 404, not a bad admin value
  const rec = asAdmin(() => setInsight(state, segs[1]!, segs[3]!, input, account));
  return { ok: true, id: rec.id, kubernetesVersion: rec.kubernetesVersion };
}

function deleteInsights({ ctx: { state }, segs, body, account }: AdminRequest): unknown {
  clearInsights(state, segs[1]!, segs[3]!, optional(body, 'id'), account);
  return { ok: true };
}

/** Replaces an add-on's health issues: each `{code, message?}` uses EKS's AddonIssueCode values. */
function degradeAddon({ ctx: { state }, segs, body, account }: AdminRequest): unknown {
  const [region, cluster, addon] = [segs[1]!, segs[3]!, segs[5]!];
  if (!Array.isArray(body.issues) || body.issues.length === 0)
    throw bad('issues must be a non-empty list of {code, message}');
  const parsed = body.issues.map((i: unknown) => {
    const o = (typeof i === 'object' && i !== null ? i : {}) as Body;
    const code = oneOf(optional(o, 'code'), 'code', ADDON_ISSUE_CODES);
    if (code === undefined) throw bad('every issue needs a code');
    const message = optional(o, 'message');
    return { code, ...(message === undefined ? {} : { message }) };
  });
  clearAddonHealth(state, region, cluster, addon, account);
  let status = '';
  for (const issue of parsed)
    status = markAddonDegraded(state, region, cluster, addon, issue, account).status;
  return { ok: true, status };
}

function healAddon({ ctx: { state }, segs, account }: AdminRequest): unknown {
  return { ok: true, status: clearAddonHealth(state, segs[1]!, segs[3]!, segs[5]!, account).status };
}

/** An account's input refused by the registry, answered as a bad admin request. */
function accountInput<T>(run: () => T): T {
  try {
    return run();
  } catch (e) {
    if (e instanceof AccountInputError) throw bad(e.message);
    throw e;
  }
}

/** Creates (or replaces) a role AssumeRole may assume; `externalId` makes its trust policy require one. */
function putRole({ ctx: { state }, segs, body }: AdminRequest): unknown {
  const externalId = optional(body, 'externalId');
  const role = accountInput(() => state.accounts.putRole(segs[1]!, segs[3]!, externalId, state.rng));
  return { ok: true, arn: role.arn };
}

function deleteRole({ ctx: { state }, segs }: AdminRequest): unknown {
  if (!accountInput(() => state.accounts.deleteRole(segs[1]!, segs[3]!))) {
    throw new SimError(404, 'AdminNotFound', `no role ${segs[3]} in account ${segs[1]}`);
  }
  return { ok: true };
}

function setQuota({ ctx: { state }, segs, body }: AdminRequest): unknown {
  const n = body.clustersPerRegion;
  if (typeof n !== 'number') throw bad('clustersPerRegion must be a number');
  accountInput(() => state.accounts.setQuota(segs[1]!, n));
  return { ok: true };
}

/** Every known account with its roles and its clusters per region; not an EKS shape. */
function listAccounts({ ctx: { state } }: AdminRequest): unknown {
  const clusters = state.allClusters();
  return {
    accounts: state.accounts.known().map((account) => {
      const perRegion: Record<string, number> = {};
      for (const c of clusters)
        if (c.account === account) perRegion[c.region] = (perRegion[c.region] ?? 0) + 1;
      return {
        account,
        clustersPerRegion: state.accounts.quota(account, state.config.clustersPerRegion),
        roles: state.accounts.rolesOf(account).map((r) => ({
          name: r.name,
          arn: r.arn,
          ...(r.externalId === undefined ? {} : { externalId: r.externalId }),
        })),
        clusters: perRegion,
      };
    }),
  };
}

/** Keyed by method and path with region, cluster and node group names replaced by `:`. */
const ADMIN_ROUTES: ReadonlyMap<string, AdminHandler> = new Map<string, AdminHandler>([
  ['GET health', () => ({ ok: true })],
  ['POST reset', resetAll],
  ['GET calls', ({ ctx }) => ({ calls: ctx.counters.snapshot() })],
  ['DELETE calls', clearCalls],
  ['GET faults', ({ ctx }) => ({ faults: ctx.faults.get() })],
  ['PUT faults', setFaults],
  ['DELETE faults', clearFaults],
  ['POST clock/advance', advanceClock],
  ['GET state', stateSnapshot],
  [
    'PATCH regions/:/clusters/:',
    ({ ctx, segs, body, account }) => driftCluster(ctx.state, segs[1]!, segs[3]!, body, account),
  ],
  ['DELETE regions/:/clusters/:', deleteClusterBehindBack],
  [
    'PATCH regions/:/clusters/:/node-groups/:',
    ({ ctx, segs, body, account }) => driftNodegroup(ctx.state, segs[1]!, segs[3]!, segs[5]!, body, account),
  ],
  ['POST regions/:/clusters/:/fail-next-update', failNextUpdate],
  ['PUT regions/:/clusters/:/insights', putInsight],
  ['DELETE regions/:/clusters/:/insights', deleteInsights],
  ['PUT regions/:/clusters/:/addons/:/health', degradeAddon],
  ['DELETE regions/:/clusters/:/addons/:/health', healAddon],
  ['GET accounts', listAccounts],
  ['PUT accounts/:/roles/:', putRole],
  ['DELETE accounts/:/roles/:', deleteRole],
  ['PUT accounts/:/quota', setQuota],
]);

/** Path segments followed by a name (replaced by `:` in the route key). */
const NAMED = new Set(['regions', 'clusters', 'node-groups', 'addons', 'accounts', 'roles']);

/** Routes `/_sim/...`; `segs` are the decoded path segments after `_sim`. */
export function handleAdmin(ctx: AdminContext, method: string, segs: string[], b: Body): unknown {
  // `accounts/{account}/regions/...` is a cluster route acting on that account's clusters.
  const scoped = segs[0] === 'accounts' && segs[2] === 'regions';
  const account = scoped ? accountInput(() => checkAccount(segs[1]!)) : undefined;
  const rest = scoped ? segs.slice(2) : segs;
  const route = `${method} ${rest.map((s, i) => (NAMED.has(rest[i - 1] ?? '') ? ':' : s)).join('/')}`;
  const handler = ADMIN_ROUTES.get(route);
  if (!handler) throw new SimError(404, 'AdminNotFound', `no admin route ${method} /_sim/${segs.join('/')}`);
  return handler({ ctx, segs: rest, body: b, ...(account === undefined ? {} : { account }) });
}
