/**
 * The cluster's parts against the simulator: add-ons (versions, create, health, pod identities,
 * tracked and untracked updates, delete with preserve), access entries with their policies and the
 * authentication mode, and upgrade insights, each with the calls it costs. The simulator runs at
 * speed 1 and the tests move its clock, so every state is reached on purpose.
 */
import { CreateClusterCommand, UpdateAddonCommand } from '@aws-sdk/client-eks';
import { beforeEach, describe, expect, it } from 'vitest';
import { NotFoundError } from '../../lambdas/core/errors.js';
import type { Observation } from '../../lambdas/core/observation.js';
import { ownershipTags } from '../../lambdas/core/ownership.js';
import type {
  AssociateAccessPolicy,
  CreateAccessEntry,
  CreateAddon,
  UpdateAddon,
} from '../../lambdas/core/plan/types.js';
import { observeCallBound } from '../../lambdas/provider/eks-provider.js';
import { ADDON_DURATIONS } from '../../local/eks-sim/addon-state.js';
import { DEFAULT_DURATIONS } from '../../local/eks-sim/model.js';
import { createClusterOp, RECORD, ref } from './support/fixtures.js';
import { useSimProvider } from './support/servers.js';

const ACCOUNT = '000000000000';
const base = { clusterName: ref.clusterName, region: ref.region };
const ROLE = `arn:aws:iam::${ACCOUNT}:role/ops`;
const VIEW = 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSViewPolicy';

const h = useSimProvider({ seed: 11, speed: 1 });

const calls = async () => {
  const c = await h.admin.calls();
  return Object.fromEntries(Object.entries(c).map(([op, n]) => [op, n.requests]));
};
const total = (c: Record<string, number>) => Object.values(c).reduce((a, b) => a + b, 0);

async function activeCluster(mode: string): Promise<void> {
  await h.provider.apply(createClusterOp(ACCOUNT, 1, '1.30', mode));
  await h.admin.advance(DEFAULT_DURATIONS.clusterCreate);
}

/** EKS's default version of an add-on for 1.30, and another one compatible with 1.30. */
async function versionsFor130(name: string): Promise<{ byDefault: string; other: string }> {
  const o = await h.provider.observe(ref, { addons: true, addonVersionsOf: [name] });
  const on130 = (o.addonVersions?.[name] ?? []).filter((v) =>
    v.compatibilities.some((c) => c.clusterVersion === '1.30'),
  );
  const byDefault = on130.find((v) =>
    v.compatibilities.some((c) => c.clusterVersion === '1.30' && c.defaultVersion),
  )?.version;
  const other = on130.find((v) => v.version !== byDefault)?.version;
  if (!byDefault || !other) throw new Error(`no two 1.30 versions of ${name}: ${JSON.stringify(on130)}`);
  return { byDefault, other };
}

function createAddonOp(
  addonName: string,
  addonVersion: string,
  over: Partial<CreateAddon> = {},
): CreateAddon {
  return {
    kind: 'CreateAddon',
    ...base,
    addonName,
    addonVersion,
    resolveConflicts: 'OVERWRITE',
    tags: { team: 'platform', ...ownershipTags(RECORD) },
    clientRequestToken: `create-${addonName}-${addonVersion}`,
    ...over,
  };
}

function updateAddonOp(addonName: string, from: string, to: string): UpdateAddon {
  return {
    kind: 'UpdateAddon',
    ...base,
    addonName,
    fromVersion: from,
    addonVersion: to,
    reason: 'version',
    resolveConflicts: 'OVERWRITE',
    clientRequestToken: `update-${addonName}-${to}`,
  };
}

const addon = (o: Observation, name: string) => o.addons?.find((a) => a.name === name);

describe('add-ons', () => {
  beforeEach(async () => {
    await activeCluster('API_AND_CONFIG_MAP');
  });

  it('reads every version of the add-ons asked for, by name; an add-on EKS does not offer has none', async () => {
    await h.admin.resetCalls();
    const o = await h.provider.observe(ref, {
      addons: true,
      addonVersionsOf: ['kube-proxy', 'no-such-addon'],
    });
    expect(o.addonVersions?.['no-such-addon']).toEqual([]);
    const kubeProxy = o.addonVersions?.['kube-proxy'] ?? [];
    expect(kubeProxy.length).toBeGreaterThan(1);
    const minors = new Set(kubeProxy.flatMap((v) => v.compatibilities.map((c) => c.clusterVersion)));
    expect(minors.size).toBeGreaterThan(1);
    // One default per minor.
    const defaults130 = kubeProxy.filter((v) =>
      v.compatibilities.some((c) => c.clusterVersion === '1.30' && c.defaultVersion),
    );
    expect(defaults130).toHaveLength(1);
    expect((await calls()).DescribeAddonVersions).toBe(2);
  });

  it('an add-on CloudOrch creates: CREATING, then ACTIVE with its tags, configuration and role', async () => {
    const { byDefault } = await versionsFor130('aws-ebs-csi-driver');
    const op = createAddonOp('aws-ebs-csi-driver', byDefault, {
      configurationValues: '{"controller":{"replicaCount":3}}',
      serviceAccountRoleArn: `arn:aws:iam::${ACCOUNT}:role/ebs`,
    });
    const r = await h.provider.apply(op);
    expect(r).toMatchObject({ kind: 'CreateAddon', status: 'CREATING' });
    expect(r.arn).toMatch(/:addon\/conformance\/aws-ebs-csi-driver\//);
    expect(addon(await h.provider.observe(ref, { addons: true }), 'aws-ebs-csi-driver')).toMatchObject({
      status: 'CREATING',
      health: 'Progressing',
    });
    await h.admin.advance(ADDON_DURATIONS.create);
    await h.admin.resetCalls();
    const o = await h.provider.observe(ref, { addons: true });
    expect(o.addons).toEqual([
      {
        name: 'aws-ebs-csi-driver',
        arn: r.arn,
        version: byDefault,
        status: 'ACTIVE',
        health: 'Healthy',
        issues: [],
        serviceAccountRoleArn: op.serviceAccountRoleArn,
        configurationValues: op.configurationValues,
        podIdentityAssociations: [],
        tags: op.tags,
      },
    ]);
    expect(await calls()).toEqual({ DescribeCluster: 1, ListNodegroups: 1, ListAddons: 1, DescribeAddon: 1 });
  });

  it('an add-on with health issues is Degraded, with EKS issue codes', async () => {
    const { byDefault } = await versionsFor130('coredns');
    await h.provider.apply(createAddonOp('coredns', byDefault));
    await h.admin.advance(ADDON_DURATIONS.create);
    await h.admin.degradeAddon(ref.clusterName, 'coredns', [
      { code: 'InsufficientNumberOfReplicas', message: 'only 1 of 2 replicas' },
      { code: 'ConfigurationConflict' },
    ]);
    const a = addon(await h.provider.observe(ref, { addons: true }), 'coredns');
    expect(a).toMatchObject({ status: 'DEGRADED', health: 'Degraded' });
    expect(a?.issues.map((i) => i.code)).toEqual(['InsufficientNumberOfReplicas', 'ConfigurationConflict']);
    expect(a?.issues[0]?.message).toBe('only 1 of 2 replicas');
  });

  it('pod identity associations are read with DescribePodIdentityAssociation', async () => {
    const { byDefault } = await versionsFor130('aws-ebs-csi-driver');
    const roleArn = `arn:aws:iam::${ACCOUNT}:role/ebs`;
    await h.provider.apply(
      createAddonOp('aws-ebs-csi-driver', byDefault, {
        podIdentityAssociations: [{ serviceAccount: 'ebs-csi-controller-sa', roleArn }],
      }),
    );
    await h.admin.advance(ADDON_DURATIONS.create);
    await h.admin.resetCalls();
    const a = addon(await h.provider.observe(ref, { addons: true }), 'aws-ebs-csi-driver');
    expect(a?.podIdentityAssociations).toEqual([
      {
        serviceAccount: 'ebs-csi-controller-sa',
        roleArn,
        associationArn: expect.stringMatching(/:podidentityassociation\/conformance\//),
      },
    ]);
    expect((await calls()).DescribePodIdentityAssociation).toBe(1);
  });

  it('a tracked add-on update is followed with DescribeUpdate(addonName)', async () => {
    const { byDefault, other } = await versionsFor130('kube-proxy');
    await h.provider.apply(createAddonOp('kube-proxy', byDefault));
    await h.admin.advance(ADDON_DURATIONS.create);
    const r = await h.provider.apply(updateAddonOp('kube-proxy', byDefault, other));
    expect(r.updateId).toBeDefined();
    const tracked = [{ id: r.updateId ?? '', addonName: 'kube-proxy' }];
    const o = await h.provider.observe(ref, { addons: true, trackedUpdates: tracked });
    expect(addon(o, 'kube-proxy')?.update).toMatchObject({ id: r.updateId, status: 'InProgress' });
    await h.admin.advance(ADDON_DURATIONS.update);
    const done = await h.provider.observe(ref, { addons: true, trackedUpdates: tracked });
    expect(addon(done, 'kube-proxy')).toMatchObject({ version: other, status: 'ACTIVE' });
    expect(addon(done, 'kube-proxy')?.update).toBeUndefined();
  });

  it('an UPDATING add-on nobody tracks: one ListUpdates(addonName) finds its update, within the bound', async () => {
    const { byDefault, other } = await versionsFor130('kube-proxy');
    await h.provider.apply(createAddonOp('kube-proxy', byDefault));
    await h.admin.advance(ADDON_DURATIONS.create);
    const out = await h.eks.send(
      new UpdateAddonCommand({ clusterName: ref.clusterName, addonName: 'kube-proxy', addonVersion: other }),
    );
    await h.admin.resetCalls();
    const o = await h.provider.observe(ref, { addons: true });
    expect(addon(o, 'kube-proxy')).toMatchObject({
      status: 'UPDATING',
      update: { id: out.update?.id, status: 'InProgress' },
    });
    const c = await calls();
    expect(c).toMatchObject({ ListUpdates: 1, DescribeUpdate: 1 });
    expect(total(c)).toBeLessThanOrEqual(observeCallBound(0, 0, { addons: 1 }));
  });

  it('an add-on removed from the spec is deleted with preserve; deleting it again finds it gone', async () => {
    const { byDefault } = await versionsFor130('coredns');
    await h.provider.apply(createAddonOp('coredns', byDefault));
    await h.admin.advance(ADDON_DURATIONS.create);
    const del = { kind: 'DeleteAddon', ...base, addonName: 'coredns', preserve: true } as const;
    expect(await h.provider.apply(del)).toMatchObject({ kind: 'DeleteAddon', status: 'DELETING' });
    await h.admin.advance(ADDON_DURATIONS.delete);
    expect((await h.provider.observe(ref, { addons: true })).addons).toEqual([]);
    await expect(h.provider.apply(del)).rejects.toBeInstanceOf(NotFoundError);
  });
});

describe('access entries', () => {
  const entryOp = (over: Partial<CreateAccessEntry> = {}): CreateAccessEntry => ({
    kind: 'CreateAccessEntry',
    ...base,
    principalArn: ROLE,
    type: 'STANDARD',
    kubernetesGroups: ['ops'],
    tags: ownershipTags(RECORD),
    clientRequestToken: 'entry-1',
    ...over,
  });
  const associate = (namespaces: string[]): AssociateAccessPolicy => ({
    kind: 'AssociateAccessPolicy',
    ...base,
    principalArn: ROLE,
    policyArn: VIEW,
    accessScope: namespaces.length ? { type: 'namespace', namespaces } : { type: 'cluster', namespaces: [] },
  });

  it('a CONFIG_MAP cluster has no access entries: none are read, no access call is made', async () => {
    // EKS requires the creator's admin entry in CONFIG_MAP mode, so CloudOrch never creates one this way.
    const op = createClusterOp(ACCOUNT);
    await h.eks.send(
      new CreateClusterCommand({
        name: op.clusterName,
        version: op.version,
        roleArn: op.roleArn,
        resourcesVpcConfig: { subnetIds: [...op.subnetIds] },
        accessConfig: { authenticationMode: 'CONFIG_MAP', bootstrapClusterCreatorAdminPermissions: true },
      }),
    );
    await h.admin.advance(DEFAULT_DURATIONS.clusterCreate);
    await h.admin.resetCalls();
    const o = await h.provider.observe(ref, { accessEntries: true });
    expect(o.cluster?.authenticationMode).toBe('CONFIG_MAP');
    expect(o.accessEntries).toEqual([]);
    expect(Object.keys(await calls()).filter((k) => /Access/.test(k))).toEqual([]);
  });

  it('access is read only when asked for', async () => {
    await activeCluster('API');
    const o = await h.provider.observe(ref);
    expect(o.cluster?.authenticationMode).toBe('API');
    expect(o).not.toHaveProperty('accessEntries');
  });

  it('creates an entry with groups and tags, associates, rescopes and disassociates a policy, updates and deletes it', async () => {
    await activeCluster('API');
    const r = await h.provider.apply(entryOp());
    expect(r.arn).toMatch(/:access-entry\/conformance\/role\//);
    await h.provider.apply(associate(['team-a', 'team-b']));
    await h.admin.resetCalls();
    const o = await h.provider.observe(ref, { accessEntries: true });
    expect(o.accessEntries).toEqual([
      {
        principalArn: ROLE,
        arn: r.arn,
        type: 'STANDARD',
        kubernetesGroups: ['ops'],
        username: expect.any(String),
        tags: ownershipTags(RECORD),
        policies: [{ policyArn: VIEW, scope: { type: 'namespace', namespaces: ['team-a', 'team-b'] } }],
      },
    ]);
    const c = await calls();
    expect(c).toMatchObject({
      ListAccessEntries: 1,
      DescribeAccessEntry: 1,
      ListAssociatedAccessPolicies: 1,
    });
    expect(total(c)).toBeLessThanOrEqual(observeCallBound(0, 0, { accessEntries: 1 }));

    await h.provider.apply(associate([]));
    await h.provider.apply({
      kind: 'UpdateAccessEntry',
      ...base,
      principalArn: ROLE,
      kubernetesGroups: ['ops', 'audit'],
      clientRequestToken: 'entry-update-1',
    });
    const changed = (await h.provider.observe(ref, { accessEntries: true })).accessEntries?.[0];
    expect(changed?.kubernetesGroups).toEqual(['ops', 'audit']);
    expect(changed?.policies).toEqual([{ policyArn: VIEW, scope: { type: 'cluster', namespaces: [] } }]);

    await h.provider.apply({
      kind: 'DisassociateAccessPolicy',
      ...base,
      principalArn: ROLE,
      policyArn: VIEW,
    });
    expect((await h.provider.observe(ref, { accessEntries: true })).accessEntries?.[0]?.policies).toEqual([]);
    const del = { kind: 'DeleteAccessEntry', ...base, principalArn: ROLE, reason: 'removed' } as const;
    await h.provider.apply(del);
    expect((await h.provider.observe(ref, { accessEntries: true })).accessEntries).toEqual([]);
    await expect(h.provider.apply(del)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('moves the authentication mode forward as a tracked update', async () => {
    await activeCluster('API_AND_CONFIG_MAP');
    const r = await h.provider.apply({
      kind: 'UpdateClusterConfig',
      ...base,
      fromMode: 'API_AND_CONFIG_MAP',
      authenticationMode: 'API',
      clientRequestToken: 'mode-1',
    });
    expect(r.updateId).toBeDefined();
    const o = await h.provider.observe(ref, { trackedUpdates: [{ id: r.updateId ?? '' }] });
    expect(o.cluster?.update).toMatchObject({
      id: r.updateId,
      type: 'AccessConfigUpdate',
      status: 'InProgress',
    });
    await h.admin.advance(DEFAULT_DURATIONS.clusterVersionUpdate);
    expect((await h.provider.observe(ref)).cluster?.authenticationMode).toBe('API');
  });
});

describe('upgrade insights', () => {
  beforeEach(async () => {
    await activeCluster('API_AND_CONFIG_MAP');
    await h.admin.setInsight(ref.clusterName, {
      name: 'Deprecated APIs removed in Kubernetes v1.31',
      status: 'ERROR',
      reason: 'Deprecated API usage detected within the last 30 days.',
      recommendation: 'Update manifests and clients to use newer Kubernetes APIs.',
    });
    await h.admin.setInsight(ref.clusterName, { name: 'Kubelet version skew', status: 'PASSING' });
    await h.admin.resetCalls();
  });

  it('are not read when the cluster is at the version asked about (no upgrade pending)', async () => {
    const o = await h.provider.observe(ref, { insightsUnlessAt: '1.30' });
    expect(o).not.toHaveProperty('insights');
    const plain = await h.provider.observe(ref);
    expect(plain).not.toHaveProperty('insights');
    expect((await calls()).ListInsights).toBeUndefined();
  });

  it('are read when an upgrade is pending; only the ones in ERROR are described', async () => {
    const o = await h.provider.observe(ref, { insightsUnlessAt: '1.31' });
    const byName = Object.fromEntries((o.insights ?? []).map((i) => [i.name, i]));
    // The two set here (one replacing a standard check) and EKS's other standard checks, PASSING.
    expect(Object.keys(byName).sort()).toEqual([
      'Amazon EKS add-on version compatibility',
      'Cluster health issues',
      'Deprecated APIs removed in Kubernetes v1.31',
      'Kubelet version skew',
      'kube-proxy version skew',
    ]);
    expect(byName['Deprecated APIs removed in Kubernetes v1.31']).toMatchObject({
      status: 'ERROR',
      kubernetesVersion: '1.31',
      reason: 'Deprecated API usage detected within the last 30 days.',
      recommendation: 'Update manifests and clients to use newer Kubernetes APIs.',
    });
    expect(byName['Kubelet version skew']).toMatchObject({ status: 'PASSING' });
    expect(byName['Kubelet version skew']).not.toHaveProperty('recommendation');
    const c = await calls();
    expect(c).toMatchObject({ ListInsights: 1, DescribeInsight: 1 });
    expect(total(c)).toBeLessThanOrEqual(observeCallBound(0, 0, { insights: true }));
  });
});
