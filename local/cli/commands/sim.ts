/** `cloudorch sim`: change the EKS simulator behind CloudOrch's back. Only against `cloudorch dev`. */

import type { ObservedNodegroup } from '../../../lambdas/core/observation.js';
import { createdByCloudOrch } from '../../../lambdas/core/ownership.js';
import { poolOfNodegroup } from '../../../lambdas/core/plan/pools.js';
import { LOCAL_TARGET_ROLE } from '../../runtime/target-role.js';
import type { Cli } from '../cli.js';
import type { Output } from '../format.js';
import type { Target } from '../target.js';
import { EXIT } from './exit.js';
import { registerHooks, simRole } from './sim-hooks.js';
import { DEFAULT_DRIFT_REGION, driftTarget, simAt, simOf } from './sim-target.js';

export {
  type AddonHealthOptions,
  type InsightOptions,
  simAddonHealth,
  simInsight,
  simRole,
} from './sim-hooks.js';
export { DEFAULT_DRIFT_REGION, type SimTarget } from './sim-target.js';

export interface DriftOptions {
  /** Region of an EKS cluster named directly; a CloudCluster's own region otherwise. */
  readonly region?: string;
  /** Account of an EKS cluster named directly; a CloudCluster's own account otherwise. */
  readonly account?: string;
  readonly nodes?: string;
  /** The pool whose node group --nodes drifts (a CloudCluster's pool name). */
  readonly pool?: string;
  /** The node group --nodes drifts, by its EKS name. */
  readonly nodegroup?: string;
  readonly tag?: string[];
  readonly status?: string;
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
  const simIn = t.simIn;
  const where = await driftTarget(t, o, name, opts.region, opts.account);
  if (!where) return EXIT.error;
  const { clusterName, region, accountId } = where;
  // The admin API addresses clusters by region and account: one bound to the dev's own would miss the others.
  const sim = simAt({ simIn }, where);
  const obs = await t.provider.observe({ clusterName, region, ...(accountId ? { accountId } : {}) });
  if (!obs.cluster) {
    o.err(
      `error: cluster ${clusterName} does not exist in the simulator in ${region}${accountId ? ` (account ${accountId})` : ''}`,
    );
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
    .option(
      '--account <id>',
      "account of an EKS cluster named directly (default: the simulator's own; a CloudCluster's own)",
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
