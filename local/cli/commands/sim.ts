/** `cloudorch sim`: change the EKS simulator behind CloudOrch's back. Only against `cloudorch dev`. */

import type { Command } from 'commander';
import { InternalError } from '../../../lambdas/core/errors.js';
import type { ObservedNodegroup } from '../../../lambdas/core/observation.js';
import { createdByCloudOrch } from '../../../lambdas/core/ownership.js';
import { poolOfNodegroup } from '../../../lambdas/core/plan/pools.js';
import { listItems } from '../../../lambdas/store/list.js';
import type { ClusterRecord } from '../../../lambdas/store/types.js';
import {
  ADDON_ISSUE_CODES,
  type AddonIssueCode,
  INSIGHT_STATUSES,
  type InsightInput,
  SimAdminError,
} from '../../eks-sim/index.js';
import { LOCAL_TARGET_ROLE } from '../../runtime/target-role.js';
import type { Cli } from '../cli.js';
import type { Output } from '../format.js';
import { NameResolutionError, resolveName } from '../resolve.js';
import type { Target } from '../target.js';
import { EXIT } from './exit.js';

/** What the commands that only talk to the admin API need of a target. */
export type SimTarget = Pick<Target, 'store' | 'sim' | 'simIn'>;

function simOf(t: Pick<Target, 'sim'>, o: Output) {
  if (!t.sim)
    o.err('error: `cloudorch sim` only works against `cloudorch dev` (the EKS simulator), never against AWS');
  return t.sim;
}

export interface DriftOptions {
  /** Region of an EKS cluster named directly; a CloudCluster's own region otherwise. */
  readonly region?: string;
  readonly nodes?: string;
  /** The pool whose node group --nodes drifts (a CloudCluster's pool name). */
  readonly pool?: string;
  /** The node group --nodes drifts, by its EKS name. */
  readonly nodegroup?: string;
  readonly tag?: string[];
  readonly status?: string;
}

/** Where `sim drift` acts when it is given no region and names no CloudCluster. */
export const DEFAULT_DRIFT_REGION = 'us-east-1';

/**
 * The EKS cluster a `sim drift` name means: a CloudCluster (by id or bare name, as `describe` and
 * `delete` match) gives its spec's cluster name and region; anything else is an EKS cluster name.
 */
async function driftTarget(
  t: Pick<Target, 'store'>,
  o: Output,
  name: string,
  region: string | undefined,
): Promise<{ clusterName: string; region: string } | undefined> {
  const { records } = await listItems(t.store);
  let r: ClusterRecord;
  try {
    const found = resolveName({ records, invalid: [] }, name, {});
    if (found.kind !== 'record') throw new InternalError('a listing of records found a malformed item');
    r = found.record;
  } catch (err) {
    if (!(err instanceof NameResolutionError)) throw err;
    // Two CloudClusters of that name: which one is meant cannot be guessed.
    if (err.ambiguous) {
      o.err(`error: ${err.message}`);
      return undefined;
    }
    return { clusterName: name, region: region ?? DEFAULT_DRIFT_REGION };
  }
  // A region that contradicts the record would drift some other cluster than the one named.
  if (region !== undefined && region !== r.spec.region) {
    o.err(`error: cloudcluster ${r.id} is in ${r.spec.region}, not ${region}`);
    return undefined;
  }
  return { clusterName: r.spec.clusterName, region: r.spec.region };
}

/** The pool CloudOrch created a group for; undefined for a group created outside CloudOrch. */
const poolOf = (ng: ObservedNodegroup): string | undefined =>
  createdByCloudOrch(ng.tags) ? poolOfNodegroup(ng) : undefined;
const poolText = (ng: ObservedNodegroup) => {
  if (!createdByCloudOrch(ng.tags)) return 'created outside CloudOrch';
  const pool = poolOfNodegroup(ng);
  return pool === undefined ? 'no pool: its pool tag was removed' : `pool ${pool}`;
};

/**
 * The node group `--nodes` drifts: the one named by --nodegroup, or the one serving --pool (an ACTIVE
 * one first, when a replacement is in flight), or the only one. Otherwise why none can be picked.
 */
export function pickNodegroup(
  groups: readonly ObservedNodegroup[],
  opts: Pick<DriftOptions, 'pool' | 'nodegroup'>,
): ObservedNodegroup | string {
  const names = () => groups.map((g) => `${g.name} (${poolText(g)})`).join(', ') || 'none';
  if (opts.pool !== undefined && opts.nodegroup !== undefined) return 'give --pool or --nodegroup, not both';
  if (opts.nodegroup !== undefined)
    return (
      groups.find((g) => g.name === opts.nodegroup) ?? `no node group ${opts.nodegroup}; it has ${names()}`
    );
  if (opts.pool !== undefined) {
    const mine = groups.filter((g) => poolOf(g) === opts.pool);
    return (
      mine.find((g) => g.status === 'ACTIVE') ??
      mine[0] ??
      `no node group serves pool ${opts.pool}; it has ${names()}`
    );
  }
  if (groups.length === 1 && groups[0]) return groups[0];
  return groups.length === 0
    ? 'it has no node group'
    : `it has several node groups: name one with --pool or --nodegroup (${names()})`;
}

export async function simDrift(t: Target, o: Output, name: string, opts: DriftOptions): Promise<number> {
  if (!simOf(t, o) || !t.simIn) return EXIT.error;
  const where = await driftTarget(t, o, name, opts.region);
  if (!where) return EXIT.error;
  const { clusterName, region } = where;
  // The admin API addresses clusters by region: one bound to the dev's own would miss the others.
  const sim = t.simIn(region);
  const obs = await t.provider.observe({ clusterName, region });
  if (!obs.cluster) {
    o.err(`error: cluster ${clusterName} does not exist in the simulator in ${region}`);
    return EXIT.error;
  }
  const tags = Object.fromEntries((opts.tag ?? []).map((kv) => kv.split('=', 2) as [string, string]));
  if (opts.nodes !== undefined) {
    const n = Number(opts.nodes);
    if (!Number.isInteger(n) || n < 0) {
      o.err('error: --nodes must be a whole number');
      return EXIT.error;
    }
    const ng = pickNodegroup(obs.nodegroups, opts);
    if (typeof ng === 'string') {
      o.err(`error: cluster ${clusterName}: ${ng}`);
      return EXIT.error;
    }
    await sim.driftNodegroup(clusterName, ng.name, {
      scaling: { desiredSize: n, maxSize: Math.max(n, ng.scaling.maxSize) },
    });
    o.out(
      `node group ${ng.name} (${poolText(ng)}): desired size ${ng.scaling.desiredSize} -> ${n} (out of band)`,
    );
  }
  if (Object.keys(tags).length > 0) {
    await sim.driftCluster(clusterName, { tags: { ...obs.cluster.tags, ...tags } });
    o.out(`cluster ${clusterName}: tags ${Object.keys(tags).join(', ')} set (out of band)`);
  }
  if (opts.status) {
    await sim.driftCluster(clusterName, { status: opts.status });
    o.out(`cluster ${clusterName}: status ${opts.status} (out of band)`);
  }
  return EXIT.ok;
}

export async function simFaults(
  t: Target,
  o: Output,
  opts: { op?: string[]; throttle?: string; errors?: string; latency?: string; clear?: boolean },
): Promise<number> {
  const sim = simOf(t, o);
  if (!sim) return EXIT.error;
  if (opts.clear) {
    await sim.clearFaults();
    o.out('faults cleared');
    return EXIT.ok;
  }
  const spec = {
    ...(opts.throttle ? { throttleFraction: Number(opts.throttle) } : {}),
    ...(opts.errors ? { errorFraction: Number(opts.errors) } : {}),
    ...(opts.latency ? { latencyMs: Number(opts.latency) } : {}),
  };
  const ops = opts.op?.length ? opts.op : ['*'];
  await sim.setFaults(Object.fromEntries(ops.map((op) => [op, spec])));
  o.out(`faults set on ${ops.join(', ')}: ${JSON.stringify(spec)}`);
  return EXIT.ok;
}

export async function simReset(t: Target, o: Output): Promise<number> {
  const sim = simOf(t, o);
  if (!sim) return EXIT.error;
  await sim.reset();
  o.out('simulator reset: every cluster is gone, counters and faults cleared');
  return EXIT.ok;
}

export async function simCalls(t: Target, o: Output): Promise<number> {
  const sim = simOf(t, o);
  if (!sim) return EXIT.error;
  const calls = await sim.calls();
  for (const [op, c] of Object.entries(calls).sort())
    o.out(
      `${op.padEnd(24)} ${c.requests} requests (${c.throttled} throttled, ${c.serverErrors} 5xx, ${c.rejected} rejected)`,
    );
  return EXIT.ok;
}

/**
 * `sim role`: creates (or deletes) the role CloudOrch assumes in another simulated account, so
 * CloudClusters with that `accountId` can be managed (or fail with AssumeRoleDenied, once deleted).
 */
export async function simRole(
  t: Pick<Target, 'sim'>,
  o: Output,
  account: string,
  opts: { readonly delete?: boolean; readonly externalId?: string },
): Promise<number> {
  const sim = simOf(t, o);
  if (!sim) return EXIT.error;
  if (!/^\d{12}$/.test(account)) {
    o.err('error: the account must be a 12-digit AWS account id');
    return EXIT.error;
  }
  return admin(o, async () => {
    if (opts.delete) {
      await sim.deleteRole(account, LOCAL_TARGET_ROLE);
      o.out(`account ${account}: role ${LOCAL_TARGET_ROLE} deleted`);
      return;
    }
    const arn = await sim.createRole(account, LOCAL_TARGET_ROLE, {
      ...(opts.externalId ? { externalId: opts.externalId } : {}),
    });
    o.out(`account ${account}: CloudOrch can assume ${arn}`);
  });
}

/** The simulator's admin API for the cluster a name means (as `sim drift` resolves it), or why not. */
async function adminFor(t: SimTarget, o: Output, name: string, region: string | undefined) {
  if (!simOf(t, o) || !t.simIn) return undefined;
  const where = await driftTarget(t, o, name, region);
  return where && { ...where, sim: t.simIn(where.region) };
}

/** Runs an admin call, turning the simulator's refusal (no such cluster or add-on, a bad value) into an error line. */
async function admin(o: Output, call: () => Promise<void>): Promise<number> {
  try {
    await call();
    return EXIT.ok;
  } catch (err) {
    if (!(err instanceof SimAdminError)) throw err;
    o.err(`error: ${err.detail}`);
    return EXIT.error;
  }
}

export interface InsightOptions {
  readonly region?: string;
  readonly name?: string;
  readonly status?: string;
  /** The Kubernetes minor the insight is about (default: the cluster's next minor). */
  readonly version?: string;
  readonly description?: string;
  readonly recommendation?: string;
  readonly reason?: string;
  readonly clear?: boolean;
}

const isStatus = (s: string): s is InsightInput['status'] =>
  (INSIGHT_STATUSES as readonly string[]).includes(s);

/** `sim insight`: sets an upgrade insight on a cluster (or clears them all), as EKS would report one. */
export async function simInsight(
  t: SimTarget,
  o: Output,
  cluster: string,
  opts: InsightOptions,
): Promise<number> {
  const target = await adminFor(t, o, cluster, opts.region);
  if (!target) return EXIT.error;
  const { sim, clusterName } = target;
  if (opts.clear) {
    if (opts.name !== undefined || opts.status !== undefined) {
      o.err('error: --clear takes no --name or --status');
      return EXIT.error;
    }
    return admin(o, async () => {
      await sim.clearInsights(clusterName);
      o.out(`cluster ${clusterName}: insights cleared (the standard checks report PASSING)`);
    });
  }
  if (opts.name === undefined || opts.status === undefined || !isStatus(opts.status)) {
    o.err(`error: give --name and --status (${INSIGHT_STATUSES.join(' | ')}), or --clear`);
    return EXIT.error;
  }
  const input: InsightInput = {
    name: opts.name,
    status: opts.status,
    ...(opts.version !== undefined ? { kubernetesVersion: opts.version } : {}),
    ...(opts.description !== undefined ? { description: opts.description } : {}),
    ...(opts.recommendation !== undefined ? { recommendation: opts.recommendation } : {}),
    ...(opts.reason !== undefined ? { reason: opts.reason } : {}),
  };
  return admin(o, async () => {
    const set = await sim.setInsight(clusterName, input);
    o.out(
      `cluster ${clusterName}: insight ${opts.name} ${opts.status} for ${set.kubernetesVersion} (id ${set.id})`,
    );
  });
}

export interface AddonHealthOptions {
  readonly region?: string;
  readonly code?: string[];
  readonly message?: string;
  readonly clear?: boolean;
}

const isIssueCode = (s: string): s is AddonIssueCode => (ADDON_ISSUE_CODES as readonly string[]).includes(s);

/** `sim addon-health`: marks an add-on DEGRADED with EKS issue codes, or clears its health. */
export async function simAddonHealth(
  t: SimTarget,
  o: Output,
  cluster: string,
  addon: string,
  opts: AddonHealthOptions,
): Promise<number> {
  const target = await adminFor(t, o, cluster, opts.region);
  if (!target) return EXIT.error;
  const { sim, clusterName } = target;
  const codes = opts.code ?? [];
  if (opts.clear) {
    if (codes.length > 0) {
      o.err('error: give --code or --clear, not both');
      return EXIT.error;
    }
    return admin(o, async () => {
      const { status } = await sim.clearAddonHealth(clusterName, addon);
      o.out(`add-on ${addon} of ${clusterName}: health cleared, status ${status}`);
    });
  }
  const bad = codes.find((c) => !isIssueCode(c));
  if (codes.length === 0 || bad !== undefined) {
    o.err(
      `error: ${bad === undefined ? 'give --code or --clear' : `unknown issue code ${bad}`}; EKS's codes: ${ADDON_ISSUE_CODES.join(', ')}`,
    );
    return EXIT.error;
  }
  const issues = codes.filter(isIssueCode).map((code) => ({
    code,
    ...(opts.message !== undefined ? { message: opts.message } : {}),
  }));
  return admin(o, async () => {
    const { status } = await sim.degradeAddon(clusterName, addon, issues);
    o.out(`add-on ${addon} of ${clusterName}: ${codes.join(', ')} (status ${status}, out of band)`);
  });
}

/** The commands that set what EKS would report on its own: insights and add-on health. */
function registerHooks(sim: Command, o: Cli['o'], withTarget: Cli['withTarget']): void {
  const regionOption = `region of an EKS cluster named directly (default: ${DEFAULT_DRIFT_REGION}; a CloudCluster's own)`;
  sim
    .command('insight <cluster>')
    .description('set an upgrade insight on a cluster as EKS would report it, or clear them (--clear)')
    .option('--region <region>', regionOption)
    .option('--name <name>', "the insight's name")
    .option('--status <status>', `the insight's status: ${INSIGHT_STATUSES.join(' | ')}`)
    .option('--version <minor>', "the Kubernetes version it is about (default: the cluster's next minor)")
    .option('--description <text>', "the insight's description")
    .option('--recommendation <text>', "the insight's recommendation")
    .option('--reason <text>', 'why it has its status')
    .option('--clear', "remove the insights set (EKS's standard checks come back PASSING)")
    .action((cluster: string, opts: InsightOptions) => withTarget((t) => simInsight(t, o(), cluster, opts)));
  sim
    .command('addon-health <cluster> <addon>')
    .description('mark an add-on DEGRADED with EKS health issue codes, or clear its health (--clear)')
    .option('--region <region>', regionOption)
    .option('--code <code...>', `EKS issue codes (${ADDON_ISSUE_CODES.join(', ')})`)
    .option('--message <text>', "the issues' message")
    .option('--clear', 'clear its health issues (DEGRADED -> ACTIVE)')
    .action((cluster: string, addon: string, opts: AddonHealthOptions) =>
      withTarget((t) => simAddonHealth(t, o(), cluster, addon, opts)),
    );
}

export function registerSim({ program, o, withTarget }: Cli): void {
  const sim = program
    .command('sim')
    .description("change the EKS simulator behind CloudOrch's back (cloudorch dev only)");
  sim
    .command('role <account>')
    .description(`create the role CloudOrch assumes in another account (${LOCAL_TARGET_ROLE}), or delete it`)
    .option('--delete', 'delete it: that account then answers AssumeRoleDenied')
    .option('--external-id <id>', 'require this ExternalId to assume it')
    .action((account: string, opts: { delete?: boolean; externalId?: string }) =>
      withTarget((t) => simRole(t, o(), account, opts)),
    );
  sim
    .command('drift <name>')
    .description(
      'change a cluster out of band (an EKS cluster name, or a CloudCluster: its cluster and region)',
    )
    .option(
      '--region <region>',
      `region of an EKS cluster named directly (default: ${DEFAULT_DRIFT_REGION}; a CloudCluster's own)`,
    )
    .option('--nodes <n>', "set a node group's desired size (with --pool or --nodegroup when it has several)")
    .option('--pool <pool>', 'the pool whose node group --nodes changes')
    .option('--nodegroup <name>', 'the node group --nodes changes, by its EKS name')
    .option('--tag <key=value...>', 'set cluster tags')
    .option('--status <status>', 'force the cluster status')
    .action((name: string, opts: DriftOptions) => withTarget((t) => simDrift(t, o(), name, opts)));
  registerHooks(sim, o, withTarget);
  sim
    .command('faults')
    .description('inject throttling, server errors or latency per EKS operation')
    .option('--op <operation...>', 'operations (default: all)')
    .option('--throttle <fraction>', 'fraction of calls answered 429')
    .option('--errors <fraction>', 'fraction of calls answered 5xx')
    .option('--latency <ms>', 'added latency')
    .option('--clear', 'remove all faults')
    .action(
      (opts: { op?: string[]; throttle?: string; errors?: string; latency?: string; clear?: boolean }) =>
        withTarget((t) => simFaults(t, o(), opts)),
    );
  sim
    .command('reset')
    .description('forget every simulated cluster')
    .action(() => withTarget((t) => simReset(t, o())));
  sim
    .command('calls')
    .description('EKS API calls received, per operation')
    .action(() => withTarget((t) => simCalls(t, o())));
}
