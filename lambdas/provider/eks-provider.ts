/**
 * The EKS provider: the only code that talks to EKS, on `@aws-sdk/client-eks`.
 *
 * Contract (in addition to {@link ClusterProvider}'s):
 * - `observe` reads DescribeCluster, ListNodegroups + DescribeNodegroup, DescribeUpdate for every
 *   tracked update, and ListUpdates only for a resource whose status is UPDATING without a tracked
 *   update in progress (someone else started it, or its id was lost). The number of EKS calls per
 *   observation is bounded by {@link observeCallBound}; each call may be retried within the budget of
 *   {@link EKS_RETRY_BUDGET}.
 * - A resource that vanishes between two calls of one observation is reported as gone (a cluster as
 *   `null`, a node group left out); a tracked update EKS no longer knows is left out.
 * - `apply` sends exactly one call per operation (see ops.ts); empty or no-op updates are refused.
 * - Every error leaves as one of the core's classes (`classifyAwsError`).
 *
 * @example
 * const provider = new EksProvider();                                      // AWS, default credentials
 * const local = new EksProvider({ endpoint: sim.url, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
 * const obs = await provider.observe({ clusterName: 'dev', region: 'eu-west-1' });
 */
import {
  type Cluster,
  DescribeClusterCommand,
  DescribeNodegroupCommand,
  DescribeUpdateCommand,
  type EKSClient,
  ListNodegroupsCommand,
  ListUpdatesCommand,
  type Nodegroup,
  type Update,
} from '@aws-sdk/client-eks';
import { classifyAwsError, NotFoundError, PermanentError } from '../core/errors.js';
import type { Observation } from '../core/observation.js';
import type { MutatingOperation } from '../core/plan/types.js';
import type {
  ApplyResult,
  ClusterProvider,
  ClusterRef,
  ObserveOptions,
  TrackedUpdate,
} from '../core/provider.js';
import { type EksClientOptions, EksClients } from './clients.js';
import { explainDenied } from './errors.js';
import { applyOperation } from './ops.js';
import { required, selectUpdate, toObservedCluster, toObservedNodegroup } from './to-observation.js';

/** Limits that keep one observation's EKS calls bounded. */
export const OBSERVE_LIMITS = {
  /** ListNodegroups pages (100 names each; EKS allows 30 managed node groups per cluster). */
  maxNodegroupPages: 2,
  /** ListUpdates page size when discovering an untracked update of an UPDATING resource. */
  listUpdatesPageSize: 20,
  /** DescribeUpdate calls per UPDATING resource when looking for its untracked update. */
  maxUntrackedDescribes: 2,
} as const;

/**
 * Upper bound of logical EKS calls (before SDK retries) for one observation with `nodegroups` node
 * groups and `tracked` tracked updates: DescribeCluster, the ListNodegroups pages, one
 * DescribeNodegroup each, one DescribeUpdate per tracked update, and for each resource that is
 * UPDATING without a tracked update one ListUpdates plus up to `maxUntrackedDescribes` DescribeUpdate.
 * With retries, multiply by `maxAttempts`.
 */
export function observeCallBound(nodegroups: number, tracked: number): number {
  const discovery = (1 + nodegroups) * (1 + OBSERVE_LIMITS.maxUntrackedDescribes);
  return 1 + OBSERVE_LIMITS.maxNodegroupPages + nodegroups + tracked + discovery;
}

/** No deployment defaults here: the planner resolves them into the operations it plans. */
export interface EksProviderOptions extends EksClientOptions {
  /** The role to assume in the target account. */
  readonly assumeRoleArn?: string;
  /** A shared client cache (one per process); by default the provider owns one. */
  readonly clients?: EksClients;
}

async function call<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw classifyAwsError(e);
  }
}

/** Runs `fn`, turning "not found" into `undefined`; other errors propagate. */
async function unlessGone<T>(fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await call(fn);
  } catch (e) {
    if (e instanceof NotFoundError) return undefined;
    throw e;
  }
}

export class EksProvider implements ClusterProvider {
  readonly clients: EksClients;
  private readonly roleArn: string | undefined;

  constructor(opts: EksProviderOptions = {}) {
    this.clients = opts.clients ?? new EksClients(opts);
    this.roleArn = opts.assumeRoleArn;
  }

  private client(region: string): EKSClient {
    return this.clients.forRegion(region, this.roleArn);
  }

  async observe(ref: ClusterRef, opts: ObserveOptions = {}): Promise<Observation> {
    const client = this.client(ref.region);
    const observedAt = new Date().toISOString();
    const gone: Observation = { cluster: null, nodegroups: [], observedAt };
    const name = ref.clusterName;
    const described = await unlessGone(() => client.send(new DescribeClusterCommand({ name })));
    if (!described) return gone;
    const cluster = required(described.cluster, 'cluster');
    const names = await unlessGone(() => this.listNodegroups(client, name));
    if (!names) return gone;
    const nodegroups: Nodegroup[] = [];
    for (const nodegroupName of names) {
      const out = await unlessGone(() =>
        client.send(new DescribeNodegroupCommand({ clusterName: name, nodegroupName })),
      );
      if (out) nodegroups.push(required(out.nodegroup, 'nodegroup'));
    }
    const updates = await this.updatesFor(client, cluster, nodegroups, opts.trackedUpdates ?? []);
    return {
      cluster: toObservedCluster(cluster, selectUpdate(updates.get('') ?? [])),
      nodegroups: nodegroups.map((ng) =>
        toObservedNodegroup(ng, selectUpdate(updates.get(ng.nodegroupName ?? '') ?? [])),
      ),
      observedAt,
    };
  }

  async apply(op: MutatingOperation): Promise<ApplyResult> {
    try {
      return await call(() => applyOperation(this.client(op.region), op));
    } catch (e) {
      throw explainDenied(op, e);
    }
  }

  private async listNodegroups(client: EKSClient, clusterName: string): Promise<string[]> {
    const names: string[] = [];
    let nextToken: string | undefined;
    for (let page = 0; page < OBSERVE_LIMITS.maxNodegroupPages; page++) {
      const out = await client.send(
        new ListNodegroupsCommand({ clusterName, maxResults: 100, ...(nextToken ? { nextToken } : {}) }),
      );
      names.push(...(out.nodegroups ?? []));
      nextToken = out.nextToken;
      if (!nextToken) return names;
    }
    // Never a silently truncated observation.
    throw new PermanentError(
      `cluster ${clusterName} lists more node groups than ${OBSERVE_LIMITS.maxNodegroupPages} pages`,
      {
        code: 'TooManyNodegroups',
        remediation:
          'CloudOrch manages clusters within the EKS quota of 30 managed node groups; remove the extra node groups.',
      },
    );
  }

  /** Updates per scope ('' = the control plane, else the node group name). */
  private async updatesFor(
    client: EKSClient,
    cluster: Cluster,
    nodegroups: readonly Nodegroup[],
    tracked: readonly TrackedUpdate[],
  ): Promise<Map<string, Update[]>> {
    const clusterName = required(cluster.name, 'cluster.name');
    const present = new Set(nodegroups.map((ng) => ng.nodegroupName));
    const byScope = new Map<string, Update[]>();
    const add = (scope: string, u: Update) => byScope.set(scope, [...(byScope.get(scope) ?? []), u]);
    const describe = (updateId: string, nodegroupName?: string) =>
      unlessGone(() =>
        client.send(
          new DescribeUpdateCommand({
            name: clusterName,
            updateId,
            ...(nodegroupName ? { nodegroupName } : {}),
          }),
        ),
      );
    for (const t of tracked) {
      // A tracked update of a node group that no longer exists has nothing left to report.
      if (t.nodegroupName !== undefined && !present.has(t.nodegroupName)) continue;
      const out = await describe(t.id, t.nodegroupName);
      if (out?.update) add(t.nodegroupName ?? '', out.update);
    }
    const updating: { scope: string; nodegroupName?: string | undefined }[] = [];
    if (cluster.status === 'UPDATING') updating.push({ scope: '' });
    for (const ng of nodegroups) {
      if (ng.status === 'UPDATING')
        updating.push({
          scope: required(ng.nodegroupName, 'nodegroup.nodegroupName'),
          nodegroupName: ng.nodegroupName,
        });
    }
    for (const { scope, nodegroupName } of updating) {
      if ((byScope.get(scope) ?? []).some((u) => u.status === 'InProgress')) continue;
      const list = await unlessGone(() =>
        client.send(
          new ListUpdatesCommand({
            name: clusterName,
            maxResults: OBSERVE_LIMITS.listUpdatesPageSize,
            ...(nodegroupName ? { nodegroupName } : {}),
          }),
        ),
      );
      // EKS does not document the order of ListUpdates; look from the end of the page, where the
      // newest ids are when the list is chronological, and stop at the first one in progress.
      const ids = [...(list?.updateIds ?? [])].reverse().slice(0, OBSERVE_LIMITS.maxUntrackedDescribes);
      for (const id of ids) {
        const out = await describe(id, nodegroupName);
        if (!out?.update) continue;
        add(scope, out.update);
        if (out.update.status === 'InProgress') break;
      }
    }
    return byScope;
  }
}
