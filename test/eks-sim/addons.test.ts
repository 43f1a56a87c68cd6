/**
 * EKS add-ons through the real SDK against the simulator: the compatibility table with one default per
 * minor, the asynchronous lifecycle on the sim clock, EKS's errors, idempotency tokens, and DEGRADED
 * health set through the module's fault hook.
 */
import {
  CreateAddonCommand,
  type CreateAddonCommandInput,
  CreateClusterCommand,
  DeleteAddonCommand,
  DescribeAddonCommand,
  DescribeAddonVersionsCommand,
  ListAddonsCommand,
  UpdateAddonCommand,
  UpdateClusterVersionCommand,
} from '@aws-sdk/client-eks';
import { describe, expect, it } from 'vitest';
import { ADDON_NAMES } from '../../local/eks-sim/addon-catalog.js';
import {
  ADDON_DURATIONS,
  addonsOf,
  clearAddonHealth,
  markAddonDegraded,
} from '../../local/eks-sim/addon-state.js';
import { DEFAULT_DURATIONS } from '../../local/eks-sim/model.js';
import { activeCluster, clusterInput, expectEksError, REGION, raw, useSimulator } from './support.js';

const h = useSimulator();

const create = (over: Partial<CreateAddonCommandInput> = {}) =>
  h.eks.send(new CreateAddonCommand({ clusterName: 'c', addonName: 'kube-proxy', ...over }));
const describeAddon = async (addonName = 'kube-proxy') =>
  (await h.eks.send(new DescribeAddonCommand({ clusterName: 'c', addonName }))).addon;
const versions = async (addonName: string, kubernetesVersion?: string) =>
  (await h.eks.send(new DescribeAddonVersionsCommand({ addonName, kubernetesVersion }))).addons ?? [];
const defaultFor = async (addonName: string, minor: string) =>
  (await versions(addonName, minor))[0]?.addonVersions?.find((v) =>
    v.compatibilities?.some((c) => c.clusterVersion === minor && c.defaultVersion),
  )?.addonVersion;

describe('DescribeAddonVersions', () => {
  it('lists the five add-ons, each with exactly one default per supported minor', async () => {
    const all = (await h.eks.send(new DescribeAddonVersionsCommand({}))).addons ?? [];
    expect(all.map((a) => a.addonName).sort()).toEqual([...ADDON_NAMES].sort());
    for (const a of all) {
      expect(a).toMatchObject({ publisher: 'eks', owner: 'aws' });
      for (const minor of h.sim.state.config.supportedVersions) {
        const defaults = (a.addonVersions ?? []).filter((v) =>
          v.compatibilities?.some((c) => c.clusterVersion === minor && c.defaultVersion),
        );
        expect(defaults, `${a.addonName} ${minor}`).toHaveLength(1);
        expect(defaults[0]?.addonVersion).toMatch(/^v\d+\.\d+\.\d+-eksbuild\.\d+$/);
      }
    }
  });

  it('narrows versions and compatibilities to kubernetesVersion, and kube-proxy to its own minor', async () => {
    const [kp] = await versions('kube-proxy', '1.30');
    expect(kp?.addonVersions?.length).toBe(3);
    for (const v of kp?.addonVersions ?? []) {
      expect(v.addonVersion).toMatch(/^v1\.30\./);
      expect(v.compatibilities?.map((c) => c.clusterVersion)).toEqual(['1.30']);
      expect(v.compatibilities?.[0]?.platformVersions).toEqual(['*']);
    }
    expect(await defaultFor('kube-proxy', '1.30')).toBe('v1.30.2-eksbuild.2');
    // vpc-cni runs across several minors, so 1.30 has more than its own three releases.
    const [cni] = await versions('vpc-cni', '1.30');
    expect(cni?.addonVersions?.length).toBeGreaterThan(3);
  });

  it('answers no add-ons for an unknown name and pages with maxResults', async () => {
    expect(await versions('no-such-addon')).toEqual([]);
    const p1 = await h.eks.send(new DescribeAddonVersionsCommand({ maxResults: 2 }));
    expect(p1.addons).toHaveLength(2);
    const p2 = await h.eks.send(new DescribeAddonVersionsCommand({ maxResults: 2, nextToken: p1.nextToken }));
    expect(p2.addons?.[0]?.addonName).not.toBe(p1.addons?.[0]?.addonName);
  });
});

describe('add-on lifecycle', () => {
  it('creates with the default version for the cluster, CREATING then ACTIVE, and lists it', async () => {
    await activeCluster(h);
    const out = await create({ configurationValues: '{"replicaCount":2}', tags: { team: 'p' } });
    expect(out.addon).toMatchObject({
      addonName: 'kube-proxy',
      clusterName: 'c',
      status: 'CREATING',
      addonVersion: 'v1.30.2-eksbuild.2',
      health: { issues: [] },
      configurationValues: '{"replicaCount":2}',
      tags: { team: 'p' },
    });
    expect(out.addon?.addonArn).toMatch(/^arn:aws:eks:us-east-1:000000000000:addon\/c\/kube-proxy\//);
    await h.admin.advance(ADDON_DURATIONS.create);
    expect((await describeAddon())?.status).toBe('ACTIVE');
    expect((await h.eks.send(new ListAddonsCommand({ clusterName: 'c' }))).addons).toEqual(['kube-proxy']);
  });

  it('updates asynchronously with an AddonUpdate, one at a time', async () => {
    await activeCluster(h);
    await create();
    await h.admin.advance(ADDON_DURATIONS.create);
    const u = await h.eks.send(
      new UpdateAddonCommand({
        clusterName: 'c',
        addonName: 'kube-proxy',
        addonVersion: 'v1.30.4-eksbuild.3',
        resolveConflicts: 'OVERWRITE',
      }),
    );
    expect(u.update).toMatchObject({
      status: 'InProgress',
      type: 'AddonUpdate',
      params: [
        { type: 'AddonVersion', value: 'v1.30.4-eksbuild.3' },
        { type: 'ResolveConflicts', value: 'OVERWRITE' },
      ],
    });
    expect((await describeAddon())?.status).toBe('UPDATING');
    await expectEksError(
      h.eks.send(new UpdateAddonCommand({ clusterName: 'c', addonName: 'kube-proxy' })),
      409,
      'ResourceInUseException',
      /in progress/,
    );
    await h.admin.advance(ADDON_DURATIONS.update);
    expect(await describeAddon()).toMatchObject({ status: 'ACTIVE', addonVersion: 'v1.30.4-eksbuild.3' });
  });

  it('deletes through DELETING, passing preserve, then the add-on is gone', async () => {
    await activeCluster(h);
    await create();
    await h.admin.advance(ADDON_DURATIONS.create);
    const d = await h.eks.send(
      new DeleteAddonCommand({ clusterName: 'c', addonName: 'kube-proxy', preserve: true }),
    );
    expect(d.addon?.status).toBe('DELETING');
    const c = h.sim.state.cluster(REGION, 'c');
    expect(addonsOf(h.sim.state, c).get('kube-proxy')?.preserved).toBe(true);
    await h.admin.advance(ADDON_DURATIONS.delete);
    await expectEksError(
      describeAddon(),
      404,
      'ResourceNotFoundException',
      'No addon: kube-proxy found in cluster: c',
    );
    expect((await h.eks.send(new ListAddonsCommand({ clusterName: 'c' }))).addons).toEqual([]);
  });

  it('makes a pinned version incompatible after a control-plane minor, and takes the new default', async () => {
    await activeCluster(h);
    await create();
    await h.admin.advance(ADDON_DURATIONS.create);
    await h.eks.send(new UpdateClusterVersionCommand({ name: 'c', version: '1.31' }));
    await h.admin.advance(DEFAULT_DURATIONS.clusterVersionUpdate);
    const update = (addonVersion: string) =>
      h.eks.send(new UpdateAddonCommand({ clusterName: 'c', addonName: 'kube-proxy', addonVersion }));
    await expectEksError(update('v1.30.2-eksbuild.2'), 400, 'InvalidParameterException');
    const next = await defaultFor('kube-proxy', '1.31');
    expect(next).toBe('v1.31.2-eksbuild.2');
    await update(next as string);
    await h.admin.advance(ADDON_DURATIONS.update);
    expect((await describeAddon())?.addonVersion).toBe(next);
  });
});

describe("EKS's add-on errors", () => {
  it('refuses an unknown add-on and an incompatible version with InvalidParameterException', async () => {
    await activeCluster(h);
    await expectEksError(
      create({ addonName: 'nope' }),
      400,
      'InvalidParameterException',
      'Addon specified is not supported',
    );
    await expectEksError(
      create({ addonVersion: 'v1.31.0-eksbuild.1' }),
      400,
      'InvalidParameterException',
      'Addon version specified is not supported',
    );
  });

  it('refuses an existing add-on, a cluster not ACTIVE and a missing cluster or add-on', async () => {
    await h.eks.send(new CreateClusterCommand(clusterInput()));
    await expectEksError(create(), 409, 'ResourceInUseException', /not in ACTIVE status/);
    await h.admin.advance(DEFAULT_DURATIONS.clusterCreate);
    await create();
    await expectEksError(create(), 409, 'ResourceInUseException', 'Addon already exists.');
    await expectEksError(create({ clusterName: 'other' }), 404, 'ResourceNotFoundException');
    await expectEksError(describeAddon('coredns'), 404, 'ResourceNotFoundException');
    await expectEksError(
      h.eks.send(new DeleteAddonCommand({ clusterName: 'c', addonName: 'coredns' })),
      404,
      'ResourceNotFoundException',
    );
  });

  it('refuses a resolveConflicts outside the enum and configurationValues that are not JSON', async () => {
    await activeCluster(h);
    const bad = await raw(h, 'POST', '/clusters/c/addons', {
      addonName: 'coredns',
      resolveConflicts: 'MERGE',
    });
    expect(bad).toMatchObject({ status: 400, type: 'InvalidParameterException' });
    await expectEksError(
      create({ configurationValues: 'replicaCount: 2' }),
      400,
      'InvalidParameterException',
    );
    await expectEksError(create({ configurationValues: '[1]' }), 400, 'InvalidParameterException');
    await create({ resolveConflicts: 'PRESERVE' });
  });
});

describe('idempotency and health', () => {
  it('replays a create with the same token and refuses the token with other parameters', async () => {
    await activeCluster(h);
    const a = await create({ clientRequestToken: 't1' });
    const b = await create({ clientRequestToken: 't1' });
    expect(b.addon?.addonArn).toBe(a.addon?.addonArn);
    await expectEksError(
      create({ clientRequestToken: 't1', tags: { x: 'y' } }),
      400,
      'InvalidParameterException',
    );
    await h.admin.advance(ADDON_DURATIONS.create);
    const send = () =>
      h.eks.send(
        new UpdateAddonCommand({ clusterName: 'c', addonName: 'kube-proxy', clientRequestToken: 'u1' }),
      );
    const u1 = await send();
    expect((await send()).update?.id).toBe(u1.update?.id);
  });

  it('turns DEGRADED with an EKS issue code and back to ACTIVE when cleared', async () => {
    await activeCluster(h);
    await create({ addonName: 'coredns' });
    // Marked while CREATING: the add-on settles DEGRADED rather than ACTIVE.
    markAddonDegraded(h.sim.state, REGION, 'c', 'coredns', {
      code: 'InsufficientNumberOfReplicas',
      message: 'The add-on is unhealthy because it doesn\u2019t have the desired number of replicas.',
      resourceIds: ['kube-system/coredns'],
    });
    await h.admin.advance(ADDON_DURATIONS.create);
    const a = await describeAddon('coredns');
    expect(a?.status).toBe('DEGRADED');
    expect(a?.health?.issues).toEqual([
      {
        code: 'InsufficientNumberOfReplicas',
        message: 'The add-on is unhealthy because it doesn\u2019t have the desired number of replicas.',
        resourceIds: ['kube-system/coredns'],
      },
    ]);
    clearAddonHealth(h.sim.state, REGION, 'c', 'coredns');
    expect(await describeAddon('coredns')).toMatchObject({ status: 'ACTIVE', health: { issues: [] } });
  });
});
