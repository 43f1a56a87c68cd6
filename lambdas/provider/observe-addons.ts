/**
 * The add-on reads of an observation: ListAddons (paged) with DescribeAddon each and
 * DescribePodIdentityAssociation for each association an add-on reports, and DescribeAddonVersions
 * for the add-ons the spec lists. An add-on or association that vanishes between two calls is left out.
 */
import {
  type Addon,
  type AddonInfo,
  DescribeAddonCommand,
  DescribeAddonVersionsCommand,
  DescribePodIdentityAssociationCommand,
  type EKSClient,
  ListAddonsCommand,
} from '@aws-sdk/client-eks';
import type { AddonVersion, ObservedPodIdentity } from '../core/observation.js';
import { unlessGone } from './eks-calls.js';
import { OBSERVE_LIMITS, PAGE_SIZE } from './observe-limits.js';
import { allPages, TooManyPagesError, tokenParam } from './paging.js';
import { required } from './to-observation.js';
import { associationIdOf, toAddonVersions, toObservedPodIdentity } from './to-observed-parts.js';

/** An add-on as DescribeAddon reports it, with its pod identity associations read. */
export interface AddonRead {
  readonly addon: Addon;
  readonly podIdentities: readonly ObservedPodIdentity[];
}

export function listAddons(client: EKSClient, clusterName: string): Promise<string[]> {
  return allPages(
    OBSERVE_LIMITS.maxAddonPages,
    async (nextToken) => {
      const out = await client.send(
        new ListAddonsCommand({ clusterName, maxResults: PAGE_SIZE, ...tokenParam(nextToken) }),
      );
      return { items: out.addons ?? [], nextToken: out.nextToken };
    },
    () =>
      new TooManyPagesError(
        `cluster ${clusterName}'s add-on list`,
        OBSERVE_LIMITS.maxAddonPages,
        'TooManyAddons',
        `CloudOrch reads at most ${OBSERVE_LIMITS.maxAddonPages * PAGE_SIZE} add-ons per cluster; remove the add-ons the cluster does not use.`,
      ),
  );
}

async function podIdentitiesOf(
  client: EKSClient,
  clusterName: string,
  arns: readonly string[],
): Promise<ObservedPodIdentity[]> {
  const out: ObservedPodIdentity[] = [];
  for (const arn of arns) {
    const associationId = associationIdOf(arn);
    const read = await unlessGone(() =>
      client.send(new DescribePodIdentityAssociationCommand({ clusterName, associationId })),
    );
    if (read) out.push(toObservedPodIdentity(required(read.association, 'association')));
  }
  return out;
}

/** DescribeAddon for each name, in order; the ones gone since the list are left out. */
export async function describeAddons(
  client: EKSClient,
  clusterName: string,
  names: readonly string[],
): Promise<AddonRead[]> {
  const reads: AddonRead[] = [];
  for (const addonName of names) {
    const out = await unlessGone(() => client.send(new DescribeAddonCommand({ clusterName, addonName })));
    if (!out) continue;
    const addon = required(out.addon, 'addon');
    const podIdentities = await podIdentitiesOf(client, clusterName, addon.podIdentityAssociations ?? []);
    reads.push({ addon, podIdentities });
  }
  return reads;
}

/** DescribeAddonVersions of one add-on for every Kubernetes version (an unknown add-on: none). */
async function versionsOf(client: EKSClient, addonName: string): Promise<AddonVersion[]> {
  const infos: AddonInfo[] = await allPages(
    OBSERVE_LIMITS.maxAddonVersionPages,
    async (nextToken) => {
      const out = await client.send(
        new DescribeAddonVersionsCommand({ addonName, maxResults: PAGE_SIZE, ...tokenParam(nextToken) }),
      );
      return { items: out.addons ?? [], nextToken: out.nextToken };
    },
    () =>
      new TooManyPagesError(
        `DescribeAddonVersions of ${addonName}`,
        OBSERVE_LIMITS.maxAddonVersionPages,
        'TooManyAddonVersions',
        'EKS answered more pages than one add-on has; check the configured EKS endpoint.',
      ),
  );
  return toAddonVersions(infos, addonName);
}

export async function readAddonVersions(
  client: EKSClient,
  names: readonly string[],
): Promise<Record<string, AddonVersion[]>> {
  const entries: [string, AddonVersion[]][] = [];
  for (const name of new Set(names)) entries.push([name, await versionsOf(client, name)]);
  return Object.fromEntries(entries);
}
