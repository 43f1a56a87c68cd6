/**
 * The EKS reader: `observe`, the side of the provider the functions of capability `eks:read` use
 * (see eks-provider.ts for the contract). Apart from the writer, so their bundles carry no mutating
 * call and no schema of one.
 */
import {
  DescribeClusterCommand,
  DescribeNodegroupCommand,
  type EKSClient,
  ListNodegroupsCommand,
  type Nodegroup,
} from '@aws-sdk/client-eks';
import type { Observation } from '../core/observation.js';
import type { ClusterProvider, ClusterRef, ObserveOptions } from '../core/provider.js';
import { call, unlessGone } from './eks-calls.js';
import { EksTargets } from './eks-targets.js';
import { readAccessEntries } from './observe-access.js';
import { describeAddons, listAddons, readAddonVersions } from './observe-addons.js';
import { readInsights } from './observe-insights.js';
import { OBSERVE_LIMITS, PAGE_SIZE } from './observe-limits.js';
import { allPages, TooManyPagesError, tokenParam } from './paging.js';
import { required, selectUpdate, toObservedCluster, toObservedNodegroup } from './to-observation.js';
import { toObservedAddon } from './to-observed-parts.js';
import { readUpdates, scopeOf, type UpdateTarget } from './updates.js';

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

export class EksReader extends EksTargets implements Pick<ClusterProvider, 'observe'> {
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
}
