/**
 * The EKS provider: the only code that talks to EKS, on `@aws-sdk/client-eks`.
 *
 * Contract (in addition to {@link ClusterProvider}'s):
 * - `observe` reads DescribeCluster, ListNodegroups + DescribeNodegroup (or, given `nodegroupNames`,
 *   DescribeNodegroup of exactly those, without listing: the sweep's check), (when asked) ListAddons + DescribeAddon
 *   (+ DescribePodIdentityAssociation per association), DescribeUpdate for every tracked update, and
 *   ListUpdates only for a resource whose status is UPDATING without a tracked update in progress
 *   (someone else started it, or its id was lost). On request it also reads add-on versions
 *   (`addonVersionsOf`), access entries with their policies (`accessEntries`) and upgrade insights
 *   (`insightsUnlessAt`, only when the cluster's version differs). The number of EKS calls per
 *   observation is bounded by {@link observeCallBound}; each call may be retried within the budget of
 *   {@link EKS_RETRY_BUDGET}. A list longer than its page limit is an error, never a truncated observation.
 * - A resource that vanishes between two calls of one observation is reported as gone (a cluster as
 *   `null`, a node group or add-on left out); a tracked update EKS no longer knows is left out.
 * - `apply` sends exactly one call per operation (see ops.ts); empty or no-op updates are refused.
 * - Every error leaves as one of the core's classes (`classifyAwsError`).
 *
 * @example
 * const provider = new EksProvider();                                      // AWS, default credentials
 * const local = new EksProvider({ endpoint: sim.url, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
 * const obs = await provider.observe({ clusterName: 'dev', region: 'eu-west-1' });
 */
import {
  DescribeClusterCommand,
  DescribeNodegroupCommand,
  type EKSClient,
  ListNodegroupsCommand,
  type Nodegroup,
} from '@aws-sdk/client-eks';
import { ENV } from '../config.js';
import { PermanentError } from '../core/errors.js';
import type { Observation } from '../core/observation.js';
import type { MutatingOperation } from '../core/plan/types.js';
import type { ApplyResult, ClusterProvider, ClusterRef, ObserveOptions } from '../core/provider.js';
import { UNREACHABLE_TARGET } from '../core/target.js';
import { type EksClientOptions, EksClients, targetRoleArn } from './clients.js';
import { call, unlessGone } from './eks-calls.js';
import { explainDenied } from './errors.js';
import { readAccessEntries } from './observe-access.js';
import { describeAddons, listAddons, readAddonVersions } from './observe-addons.js';
import { readInsights } from './observe-insights.js';
import { OBSERVE_LIMITS, PAGE_SIZE } from './observe-limits.js';
import { applyOperation } from './ops.js';
import { allPages, TooManyPagesError, tokenParam } from './paging.js';
import { required, selectUpdate, toObservedCluster, toObservedNodegroup } from './to-observation.js';
import { toObservedAddon } from './to-observed-parts.js';
import { readUpdates, scopeOf, type UpdateTarget } from './updates.js';

export { OBSERVE_LIMITS, type ObservedParts, observeCallBound } from './observe-limits.js';

/** No deployment defaults here: the planner resolves them into the operations it plans. */
export interface EksProviderOptions extends EksClientOptions {
  /** The role to assume for targets in the stack's own account (tests; the stack uses none). */
  readonly assumeRoleArn?: string;
  /**
   * The role name this function assumes in another target account (`spec.accountId`), as
   * `arn:aws:iam::<account>:role/<name>`. Absent: targets in other accounts are refused.
   */
  readonly targetRoleName?: string;
  /** The stack's own account: a target naming it explicitly is refused (leave accountId out). */
  readonly ownAccountId?: string;
  /** A shared client cache (one per process); by default the provider owns one. */
  readonly clients?: EksClients;
}

function listNodegroups(client: EKSClient, clusterName: string): Promise<string[]> {
  return allPages(
    OBSERVE_LIMITS.maxNodegroupPages,
    async (nextToken) => {
      const out = await client.send(
        new ListNodegroupsCommand({ clusterName, maxResults: PAGE_SIZE, ...tokenParam(nextToken) }),
      );
      return { items: out.nodegroups ?? [], nextToken: out.nextToken };
    },
    () =>
      new TooManyPagesError(
        `cluster ${clusterName}'s node group list`,
        OBSERVE_LIMITS.maxNodegroupPages,
        'TooManyNodegroups',
        'CloudOrch manages clusters within the EKS quota of 30 managed node groups; remove the extra node groups.',
      ),
  );
}

/**
 * The cluster's node groups: listed and described, or (the sweep's check) described by the names
 * given, without a list. A group that vanished since it was listed or named (DescribeNodegroup: not
 * found) is left out; `undefined` when the list found the cluster gone. By name, a cluster gone since
 * DescribeCluster leaves every group out: its check plans their creation and so starts a run, whose
 * full look finds the cluster gone.
 */
async function readNodegroups(
  client: EKSClient,
  clusterName: string,
  byName: readonly string[] | undefined,
): Promise<Nodegroup[] | undefined> {
  const names = byName ? [...new Set(byName)] : await unlessGone(() => listNodegroups(client, clusterName));
  if (!names) return undefined;
  const nodegroups: Nodegroup[] = [];
  for (const nodegroupName of names) {
    const out = await unlessGone(() =>
      client.send(new DescribeNodegroupCommand({ clusterName, nodegroupName })),
    );
    if (out) nodegroups.push(required(out.nodegroup, 'nodegroup'));
  }
  return nodegroups;
}

export class EksProvider implements ClusterProvider {
  readonly clients: EksClients;
  private readonly roleArn: string | undefined;

  private readonly targetRoleName: string | undefined;
  private readonly ownAccountId: string | undefined;

  constructor(opts: EksProviderOptions = {}) {
    this.clients = opts.clients ?? new EksClients(opts);
    this.roleArn = opts.assumeRoleArn;
    this.targetRoleName = opts.targetRoleName;
    this.ownAccountId = opts.ownAccountId;
  }

  /** The client for a target: its region, and the role in its account when that is not the stack's. */
  private client(region: string, accountId?: string): EKSClient {
    return this.clients.forRegion(
      region,
      accountId === undefined ? this.roleArn : this.targetRole(accountId, region),
    );
  }

  private targetRole(accountId: string, region: string): string {
    if (accountId === this.ownAccountId)
      throw new PermanentError(`spec.accountId ${accountId} is the stack's own account`, {
        code: UNREACHABLE_TARGET.ownAccount,
        remediation:
          "Leave spec.accountId out for clusters in CloudOrch's own account: one cluster has one target, and a record naming the account would be a second one.",
      });
    if (!this.targetRoleName)
      throw new PermanentError(`cluster in account ${accountId}: this deployment manages no other account`, {
        code: UNREACHABLE_TARGET.noTargetAccounts,
        remediation: `This deployment reaches no other account: its functions have no target role name (${ENV.targetRoleName}). Leave spec.accountId out to manage the cluster in CloudOrch's own account.`,
      });
    return targetRoleArn(accountId, this.targetRoleName, region);
  }

  async observe(ref: ClusterRef, opts: ObserveOptions = {}): Promise<Observation> {
    try {
      return await this.observeWith(this.client(ref.region, ref.accountId), ref, opts);
    } catch (e) {
      throw this.explainAssumeDenied(ref.accountId, ref.region, e);
    }
  }

  private async observeWith(client: EKSClient, ref: ClusterRef, opts: ObserveOptions): Promise<Observation> {
    const observedAt = new Date().toISOString();
    const gone: Observation = { cluster: null, nodegroups: [], observedAt };
    const name = ref.clusterName;
    const described = await unlessGone(() => client.send(new DescribeClusterCommand({ name })));
    // EKS's add-on catalog needs no cluster: a plan for a cluster still to create shows its add-ons.
    if (!described)
      return opts.addonVersionsOf?.length
        ? { ...gone, addonVersions: await call(() => readAddonVersions(client, opts.addonVersionsOf ?? [])) }
        : gone;
    const cluster = toObservedCluster(required(described.cluster, 'cluster'));
    const byName = opts.nodegroupNames !== undefined;
    const nodegroups = await readNodegroups(client, name, opts.nodegroupNames);
    if (!nodegroups) return gone;
    // Add-ons only when asked (the spec has `addons`): a cluster without them costs no add-on call.
    const addonNames = opts.addons ? await unlessGone(() => listAddons(client, name)) : [];
    if (!addonNames) return gone;
    const addons = await call(() => describeAddons(client, name, addonNames));

    const present = new Set([
      ...nodegroups.map((ng) => scopeOf({ nodegroupName: ng.nodegroupName })),
      ...addons.map((a) => scopeOf({ addonName: a.addon.addonName })),
    ]);
    const updating: UpdateTarget[] = [
      ...(cluster.status === 'UPDATING' ? [{}] : []),
      ...nodegroups
        .filter((ng) => ng.status === 'UPDATING')
        .map((ng) => ({ nodegroupName: ng.nodegroupName })),
      ...addons.filter((a) => a.addon.status === 'UPDATING').map((a) => ({ addonName: a.addon.addonName })),
    ];
    const updates = await call(() =>
      readUpdates(client, {
        clusterName: name,
        tracked: opts.trackedUpdates ?? [],
        exists: (t) => scopeOf(t) === '' || present.has(scopeOf(t)),
        updating,
      }),
    );
    const updateOf = (t: UpdateTarget) => selectUpdate(updates.get(scopeOf(t)) ?? []);
    const controlPlaneUpdate = updateOf({});

    const parts = await this.optionalParts(client, cluster, opts);
    if (!parts) return gone;
    return {
      cluster: { ...cluster, ...(controlPlaneUpdate ? { update: controlPlaneUpdate } : {}) },
      nodegroups: nodegroups.map((ng) =>
        toObservedNodegroup(ng, updateOf({ nodegroupName: ng.nodegroupName })),
      ),
      ...(opts.addons
        ? {
            addons: addons.map((a) =>
              toObservedAddon(a.addon, a.podIdentities, updateOf({ addonName: a.addon.addonName })),
            ),
          }
        : {}),
      ...parts,
      // Said on the observation: only these groups were read, so nothing may conclude others are absent.
      ...(byName ? { nodegroupsListed: false as const } : {}),
      observedAt,
    };
  }

  /** What the options ask for beyond the always-read parts; `undefined` when the cluster went away. */
  private async optionalParts(
    client: EKSClient,
    cluster: ReturnType<typeof toObservedCluster>,
    opts: ObserveOptions,
  ): Promise<Pick<Observation, 'addonVersions' | 'accessEntries' | 'insights'> | undefined> {
    const name = cluster.name;
    const addonVersions = opts.addonVersionsOf
      ? await call(() => readAddonVersions(client, opts.addonVersionsOf ?? []))
      : undefined;
    let accessEntries: Observation['accessEntries'];
    if (opts.accessEntries) {
      accessEntries = await unlessGone(() => readAccessEntries(client, name, cluster.authenticationMode));
      if (!accessEntries) return undefined;
    }
    let insights: Observation['insights'];
    if (opts.insightsUnlessAt !== undefined && opts.insightsUnlessAt !== cluster.version) {
      insights = await unlessGone(() => readInsights(client, name));
      if (!insights) return undefined;
    }
    return {
      ...(addonVersions ? { addonVersions } : {}),
      ...(accessEntries ? { accessEntries } : {}),
      ...(insights ? { insights } : {}),
    };
  }

  async apply(op: MutatingOperation): Promise<ApplyResult> {
    try {
      return await call(() => applyOperation(this.client(op.region, op.accountId), op));
    } catch (e) {
      throw explainDenied(op, this.explainAssumeDenied(op.accountId, op.region, e));
    }
  }

  /** STS refusing the target account's role: a permanent error naming the role to create or allow. */
  private explainAssumeDenied(accountId: string | undefined, region: string, e: unknown): unknown {
    if (accountId === undefined || !(e instanceof PermanentError) || e.code !== 'AccessDenied') return e;
    const role = targetRoleArn(accountId, this.targetRoleName ?? '', region);
    return new PermanentError(`cannot assume ${role} in account ${accountId}: ${e.message}`, {
      code: UNREACHABLE_TARGET.roleDenied,
      cause: e,
      remediation: `Create ${role} in account ${accountId}, trusting CloudOrch's function role, and let that function assume it (sts:AssumeRole).`,
    });
  }
}
