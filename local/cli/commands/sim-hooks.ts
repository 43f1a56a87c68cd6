/**
 * `cloudorch sim` commands that set what EKS reports on its own (insights, add-on health) and the
 * roles of other simulated accounts. Only against `cloudorch dev`.
 */
import type { Command } from 'commander';
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
import type { Target } from '../target.js';
import { EXIT } from './exit.js';
import { DEFAULT_DRIFT_REGION, driftTarget, type SimTarget, simAt, simOf } from './sim-target.js';

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
async function adminFor(t: SimTarget, o: Output, name: string, region: string | undefined, account?: string) {
  if (!simOf(t, o) || !t.simIn) return undefined;
  const simIn = t.simIn;
  const where = await driftTarget(t, o, name, region, account);
  return where && { ...where, sim: simAt({ simIn }, where) };
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
  readonly account?: string;
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
  const target = await adminFor(t, o, cluster, opts.region, opts.account);
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
  readonly account?: string;
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
  const target = await adminFor(t, o, cluster, opts.region, opts.account);
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
export function registerHooks(sim: Command, o: Cli['o'], withTarget: Cli['withTarget']): void {
  const regionOption = `region of an EKS cluster named directly (default: ${DEFAULT_DRIFT_REGION}; a CloudCluster's own)`;
  const accountOption =
    "account of an EKS cluster named directly (default: the simulator's own; a CloudCluster's own)";
  sim
    .command('insight <cluster>')
    .description('set an upgrade insight on a cluster as EKS would report it, or clear them (--clear)')
    .option('--region <region>', regionOption)
    .option('--account <id>', accountOption)
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
    .option('--account <id>', accountOption)
    .option('--code <code...>', `EKS issue codes (${ADDON_ISSUE_CODES.join(', ')})`)
    .option('--message <text>', "the issues' message")
    .option('--clear', 'clear its health issues (DEGRADED -> ACTIVE)')
    .action((cluster: string, addon: string, opts: AddonHealthOptions) =>
      withTarget((t) => simAddonHealth(t, o(), cluster, addon, opts)),
    );
}
