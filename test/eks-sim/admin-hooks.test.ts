/**
 * The admin API's hooks for what EKS computes on its own (upgrade insights, add-on health), through the
 * admin client, and `cloudorch sim insight` / `sim addon-health` over them with an empty store.
 */
import {
  CreateAddonCommand,
  CreateClusterCommand,
  DescribeAddonCommand,
  DescribeInsightCommand,
  EKSClient,
  ListInsightsCommand,
} from '@aws-sdk/client-eks';
import { fromTemporaryCredentials } from '@aws-sdk/credential-providers';
import { describe, expect, it } from 'vitest';
import { type SimTarget, simAddonHealth, simInsight, simRole } from '../../local/cli/commands/sim.js';
import type { Output } from '../../local/cli/format.js';
import { ADDON_DURATIONS } from '../../local/eks-sim/addon-state.js';
import { SimAdminClient, SimAdminError } from '../../local/eks-sim/admin-client.js';
import { DEFAULT_DURATIONS } from '../../local/eks-sim/model.js';
import { LOCAL_TARGET_ROLE } from '../../local/runtime/target-role.js';
import { standardInsightNames } from './support/standard-insights.js';
import { activeCluster, clusterInput, useSimulator } from './support.js';

const h = useSimulator();

const insights = async () => (await h.eks.send(new ListInsightsCommand({ clusterName: 'c' }))).insights ?? [];
const addon = async () =>
  (await h.eks.send(new DescribeAddonCommand({ clusterName: 'c', addonName: 'coredns' }))).addon;

async function activeAddon(): Promise<void> {
  await activeCluster(h);
  await h.eks.send(new CreateAddonCommand({ clusterName: 'c', addonName: 'coredns' }));
  await h.admin.advance(ADDON_DURATIONS.create);
}

/** The cluster lists exactly the standard checks about 1.31, all PASSING. */
const standardPassing = async () => {
  const all = await insights();
  return (
    JSON.stringify(all.map((i) => i.name)) === JSON.stringify(standardInsightNames('1.31')) &&
    all.every((i) => i.kubernetesVersion === '1.31' && i.insightStatus?.status === 'PASSING')
  );
};

describe('admin: insights', () => {
  it('sets an insight about the next minor by default, replaces it by name and version, and clears them', async () => {
    await activeCluster(h);
    expect(await standardPassing()).toBe(true);
    const set = await h.admin.setInsight('c', {
      name: 'Deprecated APIs removed in Kubernetes v1.31',
      status: 'ERROR',
      reason: 'Deprecated API usage detected',
      description: 'Checks for usage of deprecated APIs',
      recommendation: 'Update manifests to use the replacement APIs',
    });
    expect(set.kubernetesVersion).toBe('1.31');
    const out = (await h.eks.send(new DescribeInsightCommand({ clusterName: 'c', id: set.id }))).insight;
    expect(out).toMatchObject({
      name: 'Deprecated APIs removed in Kubernetes v1.31',
      category: 'UPGRADE_READINESS',
      kubernetesVersion: '1.31',
      insightStatus: { status: 'ERROR', reason: 'Deprecated API usage detected' },
      recommendation: 'Update manifests to use the replacement APIs',
    });
    const again = await h.admin.setInsight('c', {
      name: 'Deprecated APIs removed in Kubernetes v1.31',
      status: 'WARNING',
    });
    expect(again.id).toBe(set.id);
    const other = await h.admin.setInsight('c', {
      name: 'Deprecated APIs removed in Kubernetes v1.31',
      status: 'PASSING',
      kubernetesVersion: '1.32',
    });
    expect(other.id).not.toBe(set.id);
    const deprecated = (await insights()).filter(
      (i) => i.name === 'Deprecated APIs removed in Kubernetes v1.31',
    );
    expect(deprecated.map((i) => [i.kubernetesVersion, i.insightStatus?.status])).toEqual([
      ['1.31', 'WARNING'],
      ['1.32', 'PASSING'],
    ]);
    await h.admin.clearInsights('c');
    expect(await standardPassing()).toBe(true);
  });

  it('refuses an unknown status or a missing name as an admin error, and a missing cluster with 404', async () => {
    await activeCluster(h);
    const refused = h.admin.setInsight('c', { name: 'x', status: 'BROKEN' as 'ERROR' });
    await expect(refused).rejects.toThrow(SimAdminError);
    await expect(refused).rejects.toMatchObject({ status: 400, detail: /status must be one of PASSING/ });
    const raw = await fetch(`${h.sim.url}/_sim/regions/us-east-1/clusters/c/insights`, {
      method: 'PUT',
      body: JSON.stringify({ status: 'ERROR' }),
    });
    expect(raw.status).toBe(400);
    expect(raw.headers.get('x-amzn-errortype')).toBeNull();
    await expect(h.admin.setInsight('none', { name: 'x', status: 'ERROR' })).rejects.toMatchObject({
      status: 404,
    });
  });
});

describe('admin: add-on health', () => {
  it("marks an add-on DEGRADED with EKS's issue codes, replaces them, and clears them", async () => {
    await activeAddon();
    expect(
      await h.admin.degradeAddon('c', 'coredns', [
        { code: 'InsufficientNumberOfReplicas', message: 'The add-on is unhealthy: 0 of 2 replicas' },
      ]),
    ).toMatchObject({ status: 'DEGRADED' });
    expect(await addon()).toMatchObject({
      status: 'DEGRADED',
      health: {
        issues: [
          { code: 'InsufficientNumberOfReplicas', message: 'The add-on is unhealthy: 0 of 2 replicas' },
        ],
      },
    });
    await h.admin.degradeAddon('c', 'coredns', [{ code: 'ConfigurationConflict' }]);
    expect((await addon())?.health?.issues?.map((i) => i.code)).toEqual(['ConfigurationConflict']);
    expect(await h.admin.clearAddonHealth('c', 'coredns')).toMatchObject({ status: 'ACTIVE' });
    expect(await addon()).toMatchObject({ status: 'ACTIVE', health: { issues: [] } });
  });

  it('refuses a code EKS does not have, and a missing add-on', async () => {
    await activeAddon();
    await expect(
      h.admin.degradeAddon('c', 'coredns', [{ code: 'Sad' as 'AccessDenied' }]),
    ).rejects.toMatchObject({ status: 400, detail: /code must be one of AccessDenied/ });
    await expect(h.admin.degradeAddon('c', 'vpc-cni', [{ code: 'AccessDenied' }])).rejects.toMatchObject({
      status: 404,
      detail: 'No addon: vpc-cni found in cluster: c',
    });
  });
});

/** A target with these CloudClusters (none: names are EKS cluster names, in the default region). */
function target(records: readonly unknown[] = []): SimTarget {
  const store = { scanSegment: async () => ({ records, invalid: [] }) } as unknown as SimTarget['store'];
  return {
    store,
    sim: h.admin,
    simIn: (region) => new SimAdminClient(h.sim.url, region),
  };
}

function output(): Output & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return { color: false, lines, errors, out: (l = '') => lines.push(l), err: (l) => errors.push(l) };
}

describe('cloudorch sim insight / addon-health', () => {
  it('sets an ERROR insight for the next minor, then clears it', async () => {
    await activeCluster(h);
    const o = output();
    const code = await simInsight(target(), o, 'c', {
      status: 'ERROR',
      name: 'Deprecated APIs',
      recommendation: 'Move to the v1 APIs',
    });
    expect(code, o.errors.join()).toBe(0);
    expect(o.lines[0]).toMatch(/^cluster c: insight Deprecated APIs ERROR for 1\.31 \(id [0-9a-f-]+\)$/);
    expect((await insights()).filter((i) => i.insightStatus?.status !== 'PASSING')).toMatchObject([
      { name: 'Deprecated APIs', kubernetesVersion: '1.31', insightStatus: { status: 'ERROR' } },
    ]);
    expect(await simInsight(target(), o, 'c', { clear: true })).toBe(0);
    expect(await standardPassing()).toBe(true);
  });

  it('refuses a bad status, and names a missing cluster', async () => {
    const o = output();
    expect(await simInsight(target(), o, 'c', { status: 'RED', name: 'x' })).toBe(1);
    expect(o.errors[0]).toBe(
      'error: give --name and --status (PASSING | WARNING | ERROR | UNKNOWN), or --clear',
    );
    expect(await simInsight(target(), o, 'nope', { status: 'ERROR', name: 'x' })).toBe(1);
    expect(o.errors[1]).toBe('error: No cluster found for name: nope.');
  });

  it('degrades an add-on with a code and message, then clears it', async () => {
    await activeAddon();
    const o = output();
    const code = await simAddonHealth(target(), o, 'c', 'coredns', {
      code: ['InsufficientNumberOfReplicas'],
      message: '0 of 2 replicas ready',
    });
    expect(code, o.errors.join()).toBe(0);
    expect(o.lines).toEqual([
      'add-on coredns of c: InsufficientNumberOfReplicas (status DEGRADED, out of band)',
    ]);
    expect(await addon()).toMatchObject({
      status: 'DEGRADED',
      health: { issues: [{ code: 'InsufficientNumberOfReplicas', message: '0 of 2 replicas ready' }] },
    });
    expect(await simAddonHealth(target(), o, 'c', 'coredns', { clear: true })).toBe(0);
    expect(o.lines[1]).toBe('add-on coredns of c: health cleared, status ACTIVE');
    expect(await simAddonHealth(target(), o, 'c', 'coredns', { code: ['Oops'] })).toBe(1);
    expect(o.errors[0]).toMatch(/^error: unknown issue code Oops; EKS's codes: AccessDenied, /);
  });
});

describe('cloudorch sim role', () => {
  it('creates and deletes the role CloudOrch assumes in another account, refusing a bad account', async () => {
    const o = output();
    expect(await simRole(target(), o, '222233334444', {})).toBe(0);
    expect(o.lines.at(-1)).toBe(
      `account 222233334444: CloudOrch can assume arn:aws:iam::222233334444:role/${LOCAL_TARGET_ROLE}`,
    );
    expect((await h.admin.accounts()).find((a) => a.account === '222233334444')?.roles).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: LOCAL_TARGET_ROLE })]),
    );
    expect(await simRole(target(), o, '222233334444', { delete: true })).toBe(0);
    expect(await simRole(target(), o, '2222', {})).toBe(1);
    expect(o.errors.at(-1)).toContain('12-digit');
  });
});

describe('cloudorch sim hooks in another account', () => {
  const B = '222233334444';
  /** Cluster `c` made in account B with B's own credentials (through the simulator's STS). */
  async function clusterInB(): Promise<EKSClient> {
    await h.admin.createRole(B, LOCAL_TARGET_ROLE);
    const inB = new EKSClient({
      endpoint: h.sim.url,
      region: 'us-east-1',
      credentials: fromTemporaryCredentials({
        params: { RoleArn: `arn:aws:iam::${B}:role/${LOCAL_TARGET_ROLE}`, RoleSessionName: 'by-hand' },
        masterCredentials: { accessKeyId: 'x', secretAccessKey: 'x' },
        clientConfig: { endpoint: h.sim.url, region: 'us-east-1' },
      }),
    });
    await inB.send(new CreateClusterCommand(clusterInput()));
    await h.admin.advance(DEFAULT_DURATIONS.clusterCreate);
    return inB;
  }

  it("a CloudCluster's account is where its insight goes; --account names one for an EKS cluster name", async () => {
    const inB = await clusterInB();
    const record = { id: 'team/b', spec: { clusterName: 'c', region: 'us-east-1', accountId: B } };
    const o = output();
    expect(
      await simInsight(target([record]), o, 'team/b', { status: 'ERROR', name: 'x' }),
      o.errors.join(),
    ).toBe(0);
    const inBInsights = async () =>
      (await inB.send(new ListInsightsCommand({ clusterName: 'c' }))).insights ?? [];
    expect((await inBInsights()).find((i) => i.name === 'x')?.insightStatus?.status).toBe('ERROR');
    // The simulator's own account has no cluster c: the insight did not land there.
    expect(await simInsight(target(), o, 'c', { status: 'ERROR', name: 'x' })).toBe(1);
    expect(await simInsight(target(), o, 'c', { account: B, clear: true }), o.errors.join()).toBe(0);
    expect((await inBInsights()).find((i) => i.name === 'x')).toBeUndefined();
    // An account that contradicts the CloudCluster's is refused rather than acting elsewhere.
    expect(await simInsight(target([record]), o, 'team/b', { account: '333344445555', clear: true })).toBe(1);
    expect(o.errors.at(-1)).toBe('error: cloudcluster team/b is in account 222233334444, not 333344445555');
    inB.destroy();
  });
});
