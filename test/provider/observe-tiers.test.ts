/**
 * The sweep's two observation tiers against the simulator, counted request by request: a check
 * (`nodegroupNames`: DescribeCluster and one DescribeNodegroup per named group, nothing listed, no
 * add-ons or access) and the full observation a run makes. What the check sees out of band (a group
 * scaled, a group deleted) and what only the full look sees (an add-on changed).
 */
import {
  DeleteNodegroupCommand,
  UpdateAddonCommand,
  UpdateNodegroupConfigCommand,
} from '@aws-sdk/client-eks';
import { beforeEach, describe, expect, it } from 'vitest';
import { ownershipTags } from '../../lambdas/core/ownership.js';
import type { ObserveOptions } from '../../lambdas/core/provider.js';
import { observeCallBound } from '../../lambdas/provider/eks-provider.js';
import { ADDON_DURATIONS } from '../../local/eks-sim/addon-state.js';
import { DEFAULT_DURATIONS } from '../../local/eks-sim/model.js';
import { createClusterOp, createNodegroupOp, NODEGROUP, RECORD, ref } from './support/fixtures.js';
import { useSimProvider } from './support/servers.js';

const ACCOUNT = '000000000000';
const base = { clusterName: ref.clusterName, region: ref.region };
const ADDONS = ['vpc-cni', 'kube-proxy', 'coredns'];
const POOLS = [NODEGROUP, 'cloudorch-m5-large-od-bbb222', 'cloudorch-m5-large-od-ccc333'];

const h = useSimProvider({ seed: 5, speed: 1 });

const calls = async () => {
  const c = await h.admin.calls();
  return Object.fromEntries(Object.entries(c).map(([op, n]) => [op, n.requests]));
};
const total = (c: Record<string, number>) => Object.values(c).reduce((a, b) => a + b, 0);

/** What a run reads for a spec with these add-ons and access: observeScope's options. */
const FULL: ObserveOptions = { addons: true, addonVersionsOf: ADDONS, accessEntries: true };

async function cluster(pools: readonly string[]): Promise<void> {
  await h.provider.apply(createClusterOp(ACCOUNT, 1, '1.30', 'API'));
  await h.admin.advance(DEFAULT_DURATIONS.clusterCreate);
  for (const [i, nodegroupName] of pools.entries())
    await h.provider.apply(createNodegroupOp(ACCOUNT, '1.30', 1, { nodegroupName, pool: `p${i}` }));
  await h.admin.advance(DEFAULT_DURATIONS.nodegroupCreate);
}

/** Three add-ons at EKS's default for 1.30 and two access entries, all ACTIVE. */
async function addonsAndAccess(): Promise<void> {
  const o = await h.provider.observe(ref, { addonVersionsOf: ADDONS });
  for (const addonName of ADDONS) {
    const v = (o.addonVersions?.[addonName] ?? []).find((x) =>
      x.compatibilities.some((c) => c.clusterVersion === '1.30' && c.defaultVersion),
    );
    await h.provider.apply({
      kind: 'CreateAddon',
      ...base,
      addonName,
      addonVersion: v?.version ?? '',
      resolveConflicts: 'OVERWRITE',
      tags: ownershipTags(RECORD),
      clientRequestToken: `create-${addonName}`,
    });
  }
  for (const name of ['ops', 'dev'])
    await h.provider.apply({
      kind: 'CreateAccessEntry',
      ...base,
      principalArn: `arn:aws:iam::${ACCOUNT}:role/${name}`,
      type: 'STANDARD',
      kubernetesGroups: [name],
      tags: ownershipTags(RECORD),
      clientRequestToken: `entry-${name}`,
    });
  await h.admin.advance(ADDON_DURATIONS.create);
}

describe('a one-pool cluster', () => {
  beforeEach(async () => {
    await cluster([NODEGROUP]);
    await h.admin.resetCalls();
  });

  it('a check costs DescribeCluster and DescribeNodegroup: 2 calls, no list; the observation says so', async () => {
    const o = await h.provider.observe(ref, { nodegroupNames: [NODEGROUP], trackedUpdates: [] });
    expect(o.nodegroups.map((n) => n.name)).toEqual([NODEGROUP]);
    expect(o.nodegroupsListed).toBe(false);
    expect(o).not.toHaveProperty('addons');
    expect(o).not.toHaveProperty('accessEntries');
    const c = await calls();
    expect(c).toEqual({ DescribeCluster: 1, DescribeNodegroup: 1 });
    expect(total(c)).toBeLessThanOrEqual(observeCallBound(1, 0, { nodegroupsByName: true }));
    // A full observation lists: it says nothing about the list, which holds every group.
    expect(await h.provider.observe(ref)).not.toHaveProperty('nodegroupsListed');
  });

  it('a group scaled out of band is found by the check', async () => {
    await h.eks.send(
      new UpdateNodegroupConfigCommand({
        clusterName: ref.clusterName,
        nodegroupName: NODEGROUP,
        scalingConfig: { desiredSize: 3 },
      }),
    );
    await h.admin.advance(DEFAULT_DURATIONS.nodegroupConfigUpdate);
    const o = await h.provider.observe(ref, { nodegroupNames: [NODEGROUP] });
    expect(o.nodegroups[0]?.scaling.desiredSize).toBe(3);
  });

  it('a group deleted out of band is found by the check: its DescribeNodegroup is a 404, and it is left out', async () => {
    await h.eks.send(new DeleteNodegroupCommand({ clusterName: ref.clusterName, nodegroupName: NODEGROUP }));
    await h.admin.advance(DEFAULT_DURATIONS.nodegroupDelete);
    await h.admin.resetCalls();
    const o = await h.provider.observe(ref, { nodegroupNames: [NODEGROUP] });
    expect(o.cluster?.status).toBe('ACTIVE');
    expect(o.nodegroups).toEqual([]);
    expect(await calls()).toEqual({ DescribeCluster: 1, DescribeNodegroup: 1 });
  });

  it('a group added out of band is not seen by a check (it reads the names it is given), only by a full look', async () => {
    const extra = 'added-by-hand';
    await h.provider.apply(createNodegroupOp(ACCOUNT, '1.30', 1, { nodegroupName: extra, pool: 'x' }));
    await h.admin.advance(DEFAULT_DURATIONS.nodegroupCreate);
    const check = await h.provider.observe(ref, { nodegroupNames: [NODEGROUP] });
    expect(check.nodegroups.map((n) => n.name)).toEqual([NODEGROUP]);
    const full = await h.provider.observe(ref);
    expect(full.nodegroups.map((n) => n.name).sort()).toEqual([extra, NODEGROUP].sort());
  });
});

describe('a cluster with 3 pools, 3 add-ons and 2 access entries', () => {
  beforeEach(async () => {
    await cluster(POOLS);
    await addonsAndAccess();
    await h.admin.resetCalls();
  });

  it('a check costs 4 calls; a full observation costs 19', async () => {
    const check = await h.provider.observe(ref, { nodegroupNames: POOLS });
    expect(check.nodegroups).toHaveLength(3);
    const c = await calls();
    expect(c).toEqual({ DescribeCluster: 1, DescribeNodegroup: 3 });
    expect(total(c)).toBe(4);
    expect(total(c)).toBeLessThanOrEqual(observeCallBound(3, 0, { nodegroupsByName: true }));

    await h.admin.resetCalls();
    const full = await h.provider.observe(ref, FULL);
    expect(full.addons).toHaveLength(3);
    // The two entries made here and the node role's EC2_LINUX entry EKS makes for the node groups.
    expect(full.accessEntries?.map((e) => e.type).sort()).toEqual(['EC2_LINUX', 'STANDARD', 'STANDARD']);
    const f = await calls();
    expect(f).toEqual({
      DescribeCluster: 1,
      ListNodegroups: 1,
      DescribeNodegroup: 3,
      ListAddons: 1,
      DescribeAddon: 3,
      DescribeAddonVersions: 3,
      ListAccessEntries: 1,
      DescribeAccessEntry: 3,
      ListAssociatedAccessPolicies: 3,
    });
    expect(total(f)).toBe(19);
    expect(total(f)).toBeLessThanOrEqual(
      observeCallBound(3, 0, { addons: 3, addonVersionsOf: 3, accessEntries: 3 }),
    );
  });

  it('an add-on changed out of band is not read by the check, and is by the full observation', async () => {
    const before = await h.provider.observe(ref, FULL);
    const proxy = before.addons?.find((a) => a.name === 'kube-proxy');
    const other = (before.addonVersions?.['kube-proxy'] ?? []).find(
      (v) => v.version !== proxy?.version && v.compatibilities.some((c) => c.clusterVersion === '1.30'),
    )?.version;
    await h.eks.send(
      new UpdateAddonCommand({ clusterName: ref.clusterName, addonName: 'kube-proxy', addonVersion: other }),
    );
    await h.admin.advance(ADDON_DURATIONS.update);
    await h.admin.resetCalls();
    const check = await h.provider.observe(ref, { nodegroupNames: POOLS });
    expect(check).not.toHaveProperty('addons');
    expect(Object.keys(await calls()).filter((k) => /Addon|Update/.test(k))).toEqual([]);
    const full = await h.provider.observe(ref, FULL);
    expect(full.addons?.find((a) => a.name === 'kube-proxy')?.version).toBe(other);
  });
});
