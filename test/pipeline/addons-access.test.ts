/**
 * Pipeline scenarios for add-ons, access entries and the upgrade-readiness gate (issue 16): the real
 * handlers, state machine, store and provider against the EKS simulator. Each asserts the simulator's
 * state and the exact mutating EKS calls of the run it checks.
 */
import {
  AssociateAccessPolicyCommand,
  CreateAccessEntryCommand,
  CreateAddonCommand,
  DescribeAddonCommand,
  EKSClient,
  ListAccessEntriesCommand,
  ListAssociatedAccessPoliciesCommand,
} from '@aws-sdk/client-eks';
import { beforeEach, describe, expect, it } from 'vitest';
import type { CloudClusterSpecInput } from '../../lambdas/core/spec/schema.js';
import {
  applyAndSettle,
  condition,
  type Harness,
  LOCAL_CREDENTIALS,
  mutating,
  simUpdateLog,
  spec,
  statusOf,
  total,
  useHarness,
} from './support.js';

const ACCOUNT = '111122223333';
const ADMIN = `arn:aws:iam::${ACCOUNT}:role/platform-admin`;
const DEV = `arn:aws:iam::${ACCOUNT}:role/developers`;
const ROGUE = `arn:aws:iam::${ACCOUNT}:role/contractor`;
const CLUSTER_ADMIN = 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy';
const CORE = [{ name: 'vpc-cni' }, { name: 'coredns' }, { name: 'kube-proxy' }];
const ACCESS = {
  entries: [
    { principalArn: ADMIN, policies: [{ name: 'AmazonEKSClusterAdminPolicy' as const }] },
    {
      principalArn: DEV,
      kubernetesGroups: ['developers'],
      policies: [
        { name: 'AmazonEKSEditPolicy' as const, scope: 'namespace' as const, namespaces: ['team-a'] },
      ],
    },
  ],
};

const figures: string[] = [];
const { harness } = useHarness({}, () =>
  console.log(`EKS calls per add-on/access scenario:\n${figures.join('\n')}`),
);
let h: Harness;
let started = 0;
beforeEach(() => {
  h = harness();
  started = Date.now();
});

const sim = () => h.cp.simAdmin;
const eks = () =>
  new EKSClient({ endpoint: h.cp.endpoints.eks, region: 'us-east-1', credentials: LOCAL_CREDENTIALS });
const withParts = (name: string, over: Partial<CloudClusterSpecInput> = {}) =>
  spec(name, { addons: CORE, access: ACCESS, ...over });

async function record(name: string): Promise<Record<string, number>> {
  const calls = await sim().calls();
  const m = mutating(calls);
  figures.push(`  ${name}: ${total(calls)} calls, mutating ${JSON.stringify(m)}, ${Date.now() - started} ms`);
  return m;
}

/** A converged cluster with the core add-ons and both entries, the simulator's counts reset. */
async function converged(id: string, name: string, over: Partial<CloudClusterSpecInput> = {}) {
  await applyAndSettle(h, id, withParts(name, over));
  expect(await statusOf(h, id)).toMatchObject({ ready: true });
  await sim().resetCalls();
}

async function entries(cluster: string): Promise<string[]> {
  const out = await eks().send(new ListAccessEntriesCommand({ clusterName: cluster }));
  return [...(out.accessEntries ?? [])].sort();
}

describe('pipeline scenarios: add-ons, access entries, readiness', () => {
  it('a cluster created with 3 add-ons and 2 access entries: no creator admin, every add-on ACTIVE', async () => {
    await applyAndSettle(h, 'team/parts', withParts('parts'));
    const st = await statusOf(h, 'team/parts');
    expect(st).toMatchObject({ ready: true, synced: true });
    expect(condition(st, 'AddonsReady')).toMatchObject({ status: 'True', reason: 'AddonsActive' });
    expect(st?.observed?.addons?.map((a) => [a.name, a.status])).toEqual([
      ['vpc-cni', 'ACTIVE'],
      ['coredns', 'ACTIVE'],
      ['kube-proxy', 'ACTIVE'],
    ]);
    expect(await record('3 add-ons, 2 entries from nothing')).toEqual({
      CreateCluster: 1,
      CreateAccessEntry: 2,
      AssociateAccessPolicy: 2,
      CreateAddon: 3,
      CreateNodegroup: 1,
    });
    // The spec's two principals and the node role's EC2_LINUX entry EKS makes; no creator entry.
    const found = await entries('parts');
    expect(found).toEqual(expect.arrayContaining([ADMIN, DEV]));
    expect(found).toHaveLength(3);
    expect(found.some((p) => p.includes('eks-sim-caller'))).toBe(false);
    const dev = await eks().send(
      new ListAssociatedAccessPoliciesCommand({ clusterName: 'parts', principalArn: DEV }),
    );
    expect(
      dev.associatedAccessPolicies?.map((p) => [p.policyArn, p.accessScope?.type, p.accessScope?.namespaces]),
    ).toEqual([['arn:aws:eks::aws:cluster-access-policy/AmazonEKSEditPolicy', 'namespace', ['team-a']]]);
  });

  it('1.32 -> 1.34: CP 1.33, add-ons for 1.33, pools 1.33, CP 1.34, add-ons for 1.34, pools 1.34', async () => {
    h.clock.now = new Date('2026-01-15T00:00:00Z');
    await converged('team/steps', 'steps', { kubernetesVersion: '1.32' });
    const before = simUpdateLog(h, 'steps').length;
    await applyAndSettle(h, 'team/steps', withParts('steps', { kubernetesVersion: '1.34' }));
    const st = await statusOf(h, 'team/steps');
    expect(st).toMatchObject({ ready: true });
    const log = simUpdateLog(h, 'steps').slice(before);
    const phase = (line: string) =>
      line.startsWith('CP') ? 'CP' : line.startsWith('addon') ? 'addons' : 'pools';
    const phases = log.map(
      (l) => `${phase(l)} ${/(\d+\.\d+)/.exec(l.replace(/^addon \S+ v/, 'v'))?.[1] ?? ''}`,
    );
    // Read from the simulator's updates: the add-on steps sit between the plane and the pools.
    expect(log[0]).toBe('CP 1.33');
    const cp34 = log.indexOf('CP 1.34');
    expect(cp34).toBeGreaterThan(0);
    const first = log.slice(1, cp34);
    const second = log.slice(cp34 + 1);
    for (const part of [first, second]) {
      const kinds = part.map(phase);
      expect(kinds.lastIndexOf('addons')).toBeLessThan(kinds.indexOf('pools'));
      expect(kinds).toContain('addons');
      expect(kinds).toContain('pools');
    }
    // kube-proxy runs on one minor only: it moves at each step, to that minor's version.
    expect(first.filter((l) => l.startsWith('addon kube-proxy'))).toEqual([
      expect.stringMatching(/^addon kube-proxy v1\.33\./),
    ]);
    expect(second.filter((l) => l.startsWith('addon kube-proxy'))).toEqual([
      expect.stringMatching(/^addon kube-proxy v1\.34\./),
    ]);
    figures.push(`  upgrade order: ${log.join(', ')} (${phases.length} updates)`);
    const m = await record('1.32 -> 1.34 with add-ons');
    expect(m).toMatchObject({ UpdateClusterVersion: 2, UpdateNodegroupVersion: 2 });
    expect(m['UpdateAddon']).toBeGreaterThanOrEqual(2);
  });

  it('a pinned add-on version 1.34 cannot run stops the upgrade before any call', async () => {
    h.clock.now = new Date('2026-01-15T00:00:00Z');
    const pin = [{ name: 'kube-proxy', version: 'v1.32.0-eksbuild.1' }];
    await converged('team/pinned', 'pinned', { kubernetesVersion: '1.32', addons: pin });
    await applyAndSettle(h, 'team/pinned', withParts('pinned', { kubernetesVersion: '1.34', addons: pin }));
    const st = await statusOf(h, 'team/pinned');
    expect(st?.ready).toBe(false);
    expect(condition(st, 'Ready')?.message).toContain('addons[kube-proxy].version');
    expect(condition(st, 'Ready')?.message).toContain('not compatible with Kubernetes 1.33');
    expect(st?.lastPlan?.[0]).toContain('cannot converge addons[kube-proxy].version');
    expect(await record('pinned incompatible add-on')).toEqual({});
  });

  it('an out-of-band cluster-admin entry: reported as drift, then removed under exclusive', async () => {
    await converged('team/rogue', 'rogue');
    await eks().send(new CreateAccessEntryCommand({ clusterName: 'rogue', principalArn: ROGUE }));
    await eks().send(
      new AssociateAccessPolicyCommand({
        clusterName: 'rogue',
        principalArn: ROGUE,
        policyArn: CLUSTER_ADMIN,
        accessScope: { type: 'cluster' },
      }),
    );
    await sim().resetCalls();
    await h.cp.reconcile('team/rogue');
    let st = await statusOf(h, 'team/rogue');
    expect(condition(st, 'Drifted')).toMatchObject({ status: 'True' });
    expect(condition(st, 'Drifted')?.message).toContain(`access.entries[${ROGUE}]`);
    expect(condition(st, 'Drifted')?.message).toContain('AmazonEKSClusterAdminPolicy');
    expect(await entries('rogue')).toContain(ROGUE);
    expect(await record('out-of-band entry, reported')).toEqual({});

    await sim().resetCalls();
    await applyAndSettle(h, 'team/rogue', withParts('rogue', { access: { ...ACCESS, exclusive: true } }));
    st = await statusOf(h, 'team/rogue');
    expect(st).toMatchObject({ ready: true });
    const left = await entries('rogue');
    expect(left).not.toContain(ROGUE);
    // The node role's entry EKS made stays: exclusive never touches EKS's own entries.
    expect(left).toHaveLength(3);
    expect(await record('out-of-band entry, exclusive')).toEqual({ DeleteAccessEntry: 1 });
  });

  it('an ERROR insight blocks the step with no mutating call; cleared, the upgrade proceeds', async () => {
    h.clock.now = new Date('2026-01-15T00:00:00Z');
    await converged('team/gate', 'gate', { kubernetesVersion: '1.33' });
    await sim().setInsight('gate', {
      name: 'Deprecated APIs removed in Kubernetes v1.34',
      status: 'ERROR',
      kubernetesVersion: '1.34',
      recommendation: 'Update manifests and clients to use newer Kubernetes APIs',
    });
    await applyAndSettle(h, 'team/gate', withParts('gate', { kubernetesVersion: '1.34' }));
    let st = await statusOf(h, 'team/gate');
    expect(st?.ready).toBe(false);
    expect(condition(st, 'UpgradeBlocked')).toMatchObject({
      status: 'True',
      reason: 'UpgradeInsightsFailing',
    });
    expect(condition(st, 'UpgradeBlocked')?.message).toContain('Deprecated APIs removed in Kubernetes v1.34');
    expect(condition(st, 'UpgradeBlocked')?.remediation).toContain('Update manifests and clients');
    expect(condition(st, 'Ready')?.reason).toBe('UpgradeInsightsFailing');
    expect(await record('ERROR insight blocks')).toEqual({});

    await sim().clearInsights('gate');
    await sim().resetCalls();
    await h.cp.reconcile('team/gate');
    await h.cp.settle();
    st = await statusOf(h, 'team/gate');
    expect(st).toMatchObject({ ready: true });
    expect(condition(st, 'UpgradeBlocked')).toMatchObject({ status: 'False' });
    expect(st?.observed?.version).toBe('1.34');
    expect(await record('insight cleared, upgrade')).toMatchObject({ UpdateClusterVersion: 1 });
  });

  it('a DEGRADED add-on makes AddonsReady and Ready false with EKS issue code', async () => {
    await converged('team/degraded', 'degraded');
    await sim().degradeAddon('degraded', 'coredns', [
      {
        code: 'InsufficientNumberOfReplicas',
        message: "The add-on is unhealthy because it doesn't have the desired number of replicas.",
      },
    ]);
    await h.cp.reconcile('team/degraded');
    let st = await statusOf(h, 'team/degraded');
    expect(st?.ready).toBe(false);
    expect(condition(st, 'AddonsReady')).toMatchObject({ status: 'False', reason: 'AddonUnhealthy' });
    expect(condition(st, 'AddonsReady')?.message).toContain(
      'coredns is DEGRADED (InsufficientNumberOfReplicas',
    );
    expect(condition(st, 'AddonsReady')?.remediation).toContain('describe-addon');
    expect(st?.observed?.addons?.find((a) => a.name === 'coredns')).toMatchObject({
      status: 'DEGRADED',
      issues: ['InsufficientNumberOfReplicas'],
    });
    const described = await eks().send(
      new DescribeAddonCommand({ clusterName: 'degraded', addonName: 'coredns' }),
    );
    expect(described.addon?.health?.issues?.[0]?.code).toBe('InsufficientNumberOfReplicas');
    await sim().clearAddonHealth('degraded', 'coredns');
    await h.cp.reconcile('team/degraded');
    st = await statusOf(h, 'team/degraded');
    expect(st).toMatchObject({ ready: true });
    expect(condition(st, 'AddonsReady')).toMatchObject({ status: 'True' });
  });

  it('a failed add-on update is reported with its error code and not re-sent until a manual reconcile', async () => {
    h.clock.now = new Date('2026-01-15T00:00:00Z');
    await converged('team/failed', 'failed', { kubernetesVersion: '1.33' });
    await sim().failNextAddonUpdate('failed', 'kube-proxy', 'AdmissionRequestDenied');
    await applyAndSettle(h, 'team/failed', withParts('failed', { kubernetesVersion: '1.34' }));
    let st = await statusOf(h, 'team/failed');
    expect(st?.ready).toBe(false);
    expect(condition(st, 'Ready')).toMatchObject({ reason: 'PermanentError' });
    expect(condition(st, 'Ready')?.message).toContain('add-on kube-proxy');
    expect(condition(st, 'Ready')?.message).toContain('AdmissionRequestDenied');
    const first = await record('failed add-on update');
    expect(first['UpdateAddon']).toBe(3);
    // The sweep does not send it again: the failure is held (with backoff) until a human asks.
    await sim().resetCalls();
    await h.cp.sweepNow();
    await h.cp.settle();
    expect((await record('sweep after a failed add-on update'))['UpdateAddon']).toBeUndefined();
    await h.cp.reconcile('team/failed');
    await h.cp.settle();
    st = await statusOf(h, 'team/failed');
    expect(st).toMatchObject({ ready: true });
    expect(st?.observed?.addons?.find((a) => a.name === 'kube-proxy')?.version).toMatch(/^v1\.34\./);
  });

  it('the sweep leaves reported-only drift alone once status shows it, and notices a DEGRADED add-on', async () => {
    await converged('team/sweep', 'sweep');
    await eks().send(new CreateAccessEntryCommand({ clusterName: 'sweep', principalArn: ROGUE }));
    // Each sweep in its own period: a sweep names its runs by period, so one period starts one run.
    let period = 0;
    const sweep = async () => {
      h.clock.now = new Date(Date.now() + ++period * 60_000);
      await h.cp.sweepNow();
      await h.cp.settle();
      return statusOf(h, 'team/sweep');
    };
    const drifted = await sweep();
    expect(condition(drifted, 'Drifted')).toMatchObject({ status: 'True' });
    expect(condition(drifted, 'Drifted')?.message).toContain(`access.entries[${ROGUE}]`);
    // Status says it, and without exclusive the plan leaves a hand-made entry alone: no run again.
    expect((await sweep())?.updatedAt).toBe(drifted?.updatedAt);
    await sim().degradeAddon('sweep', 'vpc-cni', [{ code: 'ConfigurationConflict', message: 'conflict' }]);
    const degraded = await sweep();
    expect(condition(degraded, 'AddonsReady')).toMatchObject({ status: 'False', reason: 'AddonUnhealthy' });
    expect(degraded?.ready).toBe(false);
  });

  it('a changed version keyword moves the add-on, then tags it; an add-on made by hand is adopted and tagged', async () => {
    await converged('team/keyword', 'keyword', { addons: [{ name: 'kube-proxy', version: 'latest' }] });
    await eks().send(new CreateAddonCommand({ clusterName: 'keyword', addonName: 'coredns' }));
    await sim().advance(120_000);
    await sim().resetCalls();
    await applyAndSettle(
      h,
      'team/keyword',
      withParts('keyword', { addons: [{ name: 'kube-proxy', version: 'default' }, { name: 'coredns' }] }),
    );
    const st = await statusOf(h, 'team/keyword');
    expect(st).toMatchObject({ ready: true });
    const tagOf = async (addonName: string) =>
      (await eks().send(new DescribeAddonCommand({ clusterName: 'keyword', addonName }))).addon?.tags?.[
        'cloudorch.io/addon-version'
      ];
    expect(await tagOf('kube-proxy')).toBe('default');
    expect(await tagOf('coredns')).toBe('default');
    const m = await record('keyword changed, add-on adopted');
    expect(m['TagResource']).toBe(2);
    expect(m['UpdateAddon']).toBeGreaterThanOrEqual(1);
  });
});
