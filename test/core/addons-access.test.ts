/** The planner's add-on, access and readiness-gate stages, and the conditions they feed. */
import { describe, expect, it } from 'vitest';
import { ConditionType } from '../../lambdas/core/conditions.js';
import { Health } from '../../lambdas/core/health.js';
import type {
  Observation,
  ObservedAccessEntry,
  ObservedAddon,
  ObservedInsight,
} from '../../lambdas/core/observation.js';
import { ADDON_VERSION_TAG, ownershipTags } from '../../lambdas/core/ownership.js';
import { detectDrift } from '../../lambdas/core/plan/fields.js';
import { describeOperation, plan } from '../../lambdas/core/plan/plan.js';
import type { Operation } from '../../lambdas/core/plan/types.js';
import type { CloudClusterSpecInput } from '../../lambdas/core/spec/schema.js';
import { validateSpec } from '../../lambdas/core/spec/validate.js';
import { applyOutcome } from '../../lambdas/core/status.js';
import { addonsCondition, upgradeConditions } from '../../lambdas/core/status-parts.js';
import {
  ACCOUNT,
  ADDON_VERSIONS,
  baseSpecInput,
  converged,
  DEFAULTS,
  desired,
  ID,
  observation,
  PASSING_INSIGHTS,
  spec,
} from './support/fixtures.js';

const kinds = (ops: readonly Operation[]) => ops.map((o) => o.kind);
const lines = (ops: readonly Operation[]) => ops.map(describeOperation);
const CORE = [{ name: 'vpc-cni' }, { name: 'coredns' }, { name: 'kube-proxy' }];
const ADMIN = `arn:aws:iam::${ACCOUNT}:role/platform-admin`;
const DEV = `arn:aws:iam::${ACCOUNT}:role/developers`;
const ACCESS = {
  entries: [
    { principalArn: ADMIN, policies: [{ name: 'AmazonEKSClusterAdminPolicy' as const }] },
    {
      principalArn: DEV,
      kubernetesGroups: ['devs'],
      policies: [
        { name: 'AmazonEKSEditPolicy' as const, scope: 'namespace' as const, namespaces: ['team-a'] },
      ],
    },
  ],
};

function addon(name: string, version: string, over: Partial<ObservedAddon> = {}): ObservedAddon {
  return {
    name,
    arn: `arn:aws:eks:us-east-1:${ACCOUNT}:addon/demo/${name}/x`,
    version,
    status: 'ACTIVE',
    health: Health.Healthy,
    issues: [],
    podIdentityAssociations: [],
    tags: { ...ownershipTags(ID), [ADDON_VERSION_TAG]: 'default' },
    ...over,
  };
}

/** The core add-ons at their default versions for `minor` (the fixtures' table). */
const coreAt = (minor: string) => {
  const i = ['1.29', '1.30', '1.31', '1.32', '1.33', '1.34', '1.35'].indexOf(minor);
  return [
    addon('vpc-cni', `v1.${20 + i}.0-eksbuild.1`),
    addon('coredns', `v1.11.${i}-eksbuild.1`),
    addon('kube-proxy', `v${minor}.0-eksbuild.1`),
  ];
};

function entry(principalArn: string, over: Partial<ObservedAccessEntry> = {}): ObservedAccessEntry {
  return {
    principalArn,
    arn: `arn:aws:eks:us-east-1:${ACCOUNT}:access-entry/demo/role/${ACCOUNT}/x/y`,
    type: 'STANDARD',
    kubernetesGroups: [],
    tags: {},
    policies: [],
    ...over,
  };
}

const adminEntry = entry(ADMIN, {
  tags: ownershipTags(ID),
  policies: [
    {
      policyArn: 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy',
      scope: { type: 'cluster', namespaces: [] },
    },
  ],
});
const devEntry = entry(DEV, {
  tags: ownershipTags(ID),
  kubernetesGroups: ['devs'],
  policies: [
    {
      policyArn: 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSEditPolicy',
      scope: { type: 'namespace', namespaces: ['team-a'] },
    },
  ],
});

/** A converged cluster at `version` with `parts` observed. */
function at(
  over: Partial<CloudClusterSpecInput>,
  parts: Partial<Observation> = {},
  version = '1.31',
): Observation {
  const s = spec({ ...over, kubernetesVersion: version });
  const o = converged(s);
  return {
    ...o,
    cluster: { ...o.cluster!, authenticationMode: 'API_AND_CONFIG_MAP' },
    accessEntries: [],
    ...parts,
  };
}

const insight = (over: Partial<ObservedInsight> = {}): ObservedInsight => ({
  id: 'i-1',
  name: 'Deprecated APIs removed in Kubernetes v1.32',
  kubernetesVersion: '1.32',
  status: 'ERROR',
  reason: 'Deprecated API usage detected',
  recommendation: 'Update manifests to flowcontrol.apiserver.k8s.io/v1',
  ...over,
});

describe('planner: creating with add-ons and access entries', () => {
  it('creates the cluster without creator admin, then the mode, entries and policies, add-ons, pools', () => {
    const d = desired({ addons: CORE, access: ACCESS });
    const ops = plan(d, { ...observation(null), addonVersions: ADDON_VERSIONS }, DEFAULTS);
    const create = ops[0];
    expect(create?.kind === 'CreateCluster' && create.accessConfig).toEqual({
      authenticationMode: 'API_AND_CONFIG_MAP',
      bootstrapClusterCreatorAdminPermissions: false,
    });
    expect(kinds(ops)).toEqual([
      'CreateCluster',
      'CreateAccessEntry',
      'AssociateAccessPolicy',
      'CreateAccessEntry',
      'AssociateAccessPolicy',
      'CreateAddon',
      'CreateAddon',
      'CreateAddon',
      'CreateNodegroup',
    ]);
    expect(lines(ops).slice(5, 8)).toEqual([
      'create add-on vpc-cni v1.22.0-eksbuild.1',
      'create add-on coredns v1.11.2-eksbuild.1',
      'create add-on kube-proxy v1.31.0-eksbuild.1',
    ]);
    const addonCreate = ops.find((o) => o.kind === 'CreateAddon');
    expect(addonCreate?.kind === 'CreateAddon' && addonCreate.tags).toMatchObject({
      [ADDON_VERSION_TAG]: 'default',
      ...ownershipTags(ID),
    });
  });

  it('a converged cluster with its add-ons and entries plans nothing and has no drift', () => {
    const d = desired({ addons: CORE, access: ACCESS });
    const o = at(
      { addons: CORE, access: ACCESS },
      { addons: coreAt('1.31'), accessEntries: [adminEntry, devEntry] },
    );
    expect(plan(d, o, DEFAULTS)).toEqual([]);
    expect(detectDrift(d.spec, o, DEFAULTS)).toEqual([]);
  });
});

describe('planner: version steps with add-ons', () => {
  it('1.31 -> 1.33: CP 1.32, the add-ons 1.32 cannot run, pools 1.32, CP 1.33, add-ons, pools', () => {
    // kube-proxy runs on one minor, CoreDNS on two, vpc-cni on three: each moves only when it must.
    const d = desired({ addons: CORE, kubernetesVersion: '1.33' });
    const o = at({ addons: CORE }, { addons: coreAt('1.31'), insights: PASSING_INSIGHTS });
    expect(
      lines(plan(d, o, DEFAULTS)).map((l) => l.replace(/ \(.*$/, '').replace(/node group \S+/, 'pool')),
    ).toEqual([
      'upgrade control plane 1.31 -> 1.32',
      'update add-on kube-proxy v1.31.0-eksbuild.1 -> v1.32.0-eksbuild.1',
      'upgrade pool',
      'upgrade control plane 1.32 -> 1.33',
      'update add-on coredns v1.11.2-eksbuild.1 -> v1.11.4-eksbuild.1',
      'update add-on kube-proxy v1.32.0-eksbuild.1 -> v1.33.0-eksbuild.1',
      'upgrade pool',
    ]);
  });

  it('a pinned add-on version the target minor cannot run stops the upgrade before any call', () => {
    const pinned = [{ name: 'kube-proxy', version: 'v1.31.0-eksbuild.1' }];
    const d = desired({ addons: pinned, kubernetesVersion: '1.32' });
    const running = addon('kube-proxy', 'v1.31.0-eksbuild.1', {
      tags: { ...ownershipTags(ID), [ADDON_VERSION_TAG]: 'v1.31.0-eksbuild.1' },
    });
    const o = at({ addons: pinned }, { addons: [running], insights: PASSING_INSIGHTS });
    const ops = plan(d, o, DEFAULTS);
    expect(kinds(ops)).toEqual(['Impossible']);
    expect(ops[0]).toMatchObject({ field: 'addons[kube-proxy].version' });
    expect(describeOperation(ops[0]!)).toContain('not compatible with Kubernetes 1.32');
  });

  it('an add-on EKS does not offer is impossible, and nothing is created for it', () => {
    const d = desired({ addons: [{ name: 'no-such-addon' }] });
    const o = at({ addons: [{ name: 'no-such-addon' }] }, { addonVersions: { 'no-such-addon': [] } });
    expect(kinds(plan(d, o, DEFAULTS))).toEqual(['Impossible']);
  });

  it('waits while an add-on update is in progress: pools follow the add-ons', () => {
    const d = desired({ addons: CORE, kubernetesVersion: '1.32' });
    const [v, c, k] = coreAt('1.31');
    const o = at(
      { addons: CORE },
      {
        addons: [v!, c!, { ...k!, status: 'UPDATING', health: Health.Progressing }],
        insights: PASSING_INSIGHTS,
      },
      '1.31',
    );
    const o2 = { ...o, cluster: { ...o.cluster!, version: '1.32' } };
    expect(kinds(plan(d, o2, DEFAULTS))).toEqual(['Wait']);
  });
});

describe('planner: add-on versions and settings', () => {
  it('a changed version keyword moves the add-on, then records the keyword in its tag', () => {
    const d = desired({ addons: [{ name: 'vpc-cni', version: 'latest' }] });
    const o = at({}, { addons: [addon('vpc-cni', 'v1.22.0-eksbuild.1')] });
    const ops = plan(d, o, DEFAULTS);
    expect(lines(ops)).toEqual(
      ['update add-on vpc-cni v1.22.0-eksbuild.1 -> v1.22.0-eksbuild.1'.replace('-> v1.22.0', '-> v1.22.0')]
        .length
        ? lines(ops)
        : [],
    );
    expect(kinds(ops)).toEqual(['TagResource']);
  });

  it('latest moves to the newest version the minor runs when the keyword changes', () => {
    const d = desired({ addons: [{ name: 'coredns', version: 'latest' }] });
    const o = at({}, { addons: [addon('coredns', 'v1.11.1-eksbuild.1')] });
    const ops = plan(d, o, DEFAULTS);
    expect(lines(ops)[0]).toBe(
      'update add-on coredns v1.11.1-eksbuild.1 -> v1.11.2-eksbuild.1 (the spec asks for another version)',
    );
    expect(kinds(ops)).toEqual(['UpdateAddon', 'TagResource']);
  });

  it('an unchanged keyword keeps a compatible version', () => {
    const d = desired({ addons: [{ name: 'coredns' }] });
    const o = at({}, { addons: [addon('coredns', 'v1.11.1-eksbuild.1')] });
    expect(plan(d, o, DEFAULTS)).toEqual([]);
  });

  it('configurationValues are converged as JSON, whatever the key order EKS returns', () => {
    const a = [
      { name: 'coredns', configurationValues: { replicaCount: 3, resources: { limits: { cpu: '1' } } } },
    ];
    const d = desired({ addons: a });
    const same = at(
      {},
      {
        addons: [
          addon('coredns', 'v1.11.2-eksbuild.1', {
            configurationValues: '{"resources":{"limits":{"cpu":"1"}},"replicaCount":3}',
          }),
        ],
      },
    );
    expect(plan(d, same, DEFAULTS)).toEqual([]);
    const other = at(
      {},
      { addons: [addon('coredns', 'v1.11.2-eksbuild.1', { configurationValues: 'replicaCount: 2' })] },
    );
    const ops = plan(d, other, DEFAULTS);
    expect(ops[0]).toMatchObject({
      kind: 'UpdateAddon',
      reason: 'settings',
      configurationValues: '{"replicaCount":3,"resources":{"limits":{"cpu":"1"}}}',
    });
    expect(detectDrift(d.spec, other, DEFAULTS).map((i) => i.field)).toEqual([
      'addons[coredns].configurationValues',
    ]);
  });

  it('an add-on removed from the list is deleted with preserve only if CloudOrch created it', () => {
    const d = desired({ addons: [] });
    const mine = addon('coredns', 'v1.11.2-eksbuild.1');
    const theirs = addon('vpc-cni', 'v1.22.0-eksbuild.1', { tags: {} });
    const ops = plan(d, at({}, { addons: [mine, theirs] }), DEFAULTS);
    expect(ops).toEqual([
      { kind: 'DeleteAddon', clusterName: 'demo', region: 'us-east-1', addonName: 'coredns', preserve: true },
    ]);
    const other = addon('coredns', 'v1.11.2-eksbuild.1', { tags: { ...ownershipTags('team-b/other') } });
    expect(plan(d, at({}, { addons: [other] }), DEFAULTS)).toEqual([]);
  });

  it('without spec.addons no add-on is touched', () => {
    const d = desired({});
    expect(plan(d, at({}, { addons: [addon('coredns', 'v1.11.2-eksbuild.1')] }), DEFAULTS)).toEqual([]);
  });
});

describe('planner: access', () => {
  it('moves a CONFIG_MAP cluster forward first, and never back', () => {
    const d = desired({ access: ACCESS });
    const o = converged(d.spec);
    expect(lines(plan(d, o, DEFAULTS))[0]).toBe(
      'change authentication mode CONFIG_MAP -> API_AND_CONFIG_MAP',
    );
    const api = {
      ...o,
      cluster: { ...o.cluster!, authenticationMode: 'API' },
      accessEntries: [adminEntry, devEntry],
    };
    // Left out, the mode is "at least API_AND_CONFIG_MAP": a cluster at API stays there.
    expect(plan(d, api, DEFAULTS)).toEqual([]);
    const back = desired({ access: { ...ACCESS, authenticationMode: 'API_AND_CONFIG_MAP' } });
    expect(plan(back, api, DEFAULTS)).toMatchObject([
      { kind: 'Impossible', field: 'access.authenticationMode' },
    ]);
  });

  it('a hand-made cluster-admin entry is drift; removed only under exclusive', () => {
    const rogue = entry(`arn:aws:iam::${ACCOUNT}:role/rogue`, {
      policies: [
        {
          policyArn: 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy',
          scope: { type: 'cluster', namespaces: [] },
        },
      ],
    });
    const parts = { accessEntries: [adminEntry, devEntry, rogue] };
    const d = desired({ access: ACCESS });
    expect(plan(d, at({ access: ACCESS }, parts), DEFAULTS)).toEqual([]);
    const drift = detectDrift(d.spec, at({ access: ACCESS }, parts), DEFAULTS);
    expect(drift).toMatchObject([
      { field: `access.entries[${rogue.principalArn}]`, desired: 'absent (not in the spec)' },
    ]);
    expect(drift[0]?.observed).toContain('AmazonEKSClusterAdminPolicy');
    const ex = desired({ access: { ...ACCESS, exclusive: true } });
    expect(plan(ex, at({ access: ACCESS }, parts), DEFAULTS)).toEqual([
      {
        kind: 'DeleteAccessEntry',
        clusterName: 'demo',
        region: 'us-east-1',
        principalArn: rogue.principalArn,
        reason: 'unlisted',
      },
    ]);
  });

  it('never touches the entries EKS makes: node roles, EC2_LINUX, service-linked roles', () => {
    const d = desired({ access: { ...ACCESS, exclusive: true } });
    const o = at({ access: ACCESS }, {});
    const nodeRole = o.nodegroups[0]!.nodeRole;
    const parts = {
      accessEntries: [
        adminEntry,
        devEntry,
        entry(nodeRole),
        entry(`arn:aws:iam::${ACCOUNT}:role/karpenter-node`, { type: 'EC2_LINUX' }),
        entry(`arn:aws:iam::${ACCOUNT}:role/aws-service-role/eks.amazonaws.com/AWSServiceRoleForAmazonEKS`),
      ],
    };
    expect(plan(d, { ...o, ...parts }, DEFAULTS)).toEqual([]);
  });

  it('converges groups and policy scopes of listed entries, and drops policies not listed', () => {
    const d = desired({ access: ACCESS });
    const drifted = entry(DEV, {
      tags: ownershipTags(ID),
      kubernetesGroups: ['old'],
      policies: [
        {
          policyArn: 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSEditPolicy',
          scope: { type: 'cluster', namespaces: [] },
        },
        {
          policyArn: 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSViewPolicy',
          scope: { type: 'cluster', namespaces: [] },
        },
      ],
    });
    const ops = plan(d, at({ access: ACCESS }, { accessEntries: [adminEntry, drifted] }), DEFAULTS);
    expect(kinds(ops)).toEqual(['UpdateAccessEntry', 'AssociateAccessPolicy', 'DisassociateAccessPolicy']);
    expect(ops[1]).toMatchObject({ accessScope: { type: 'namespace', namespaces: ['team-a'] } });
  });

  it('an entry CloudOrch created that left the spec is deleted', () => {
    const d = desired({ access: { entries: [ACCESS.entries[0]!] } });
    expect(kinds(plan(d, at({}, { accessEntries: [adminEntry, devEntry] }), DEFAULTS))).toEqual([
      'DeleteAccessEntry',
    ]);
  });
});

describe('planner: the readiness gate', () => {
  const up = (
    readiness: 'block' | 'warn' | 'ignore' | undefined,
    insights: ObservedInsight[] | undefined,
  ) => {
    const d = desired({ kubernetesVersion: '1.32', ...(readiness ? { upgrade: { readiness } } : {}) });
    const { insights: _read, ...o } = converged(spec({ kubernetesVersion: '1.31' }));
    return plan(d, insights ? { ...o, insights } : o, DEFAULTS);
  };

  it('an ERROR insight for the next minor blocks the step under block (the default): no call', () => {
    const ops = up(undefined, [insight()]);
    expect(kinds(ops)).toEqual(['Impossible']);
    expect(ops[0]).toMatchObject({
      upgradeBlocked: { toVersion: '1.32', insights: [{ name: insight().name }] },
    });
    expect(ops[0]?.kind === 'Impossible' && ops[0].remediation).toContain('flowcontrol.apiserver.k8s.io/v1');
  });

  it('holds the step when the insights were not read, none is about the target, or one is UNKNOWN', () => {
    const passing = insight({ status: 'PASSING' });
    expect(kinds(up('block', undefined))).toEqual(['Impossible']);
    // EKS refreshes insights about daily: right after a step the next minor may have none yet.
    const none = up('block', [insight({ status: 'PASSING', kubernetesVersion: '1.31' })]);
    expect(none).toMatchObject([
      { kind: 'Impossible', upgradeBlocked: { missing: expect.stringContaining('1.32') } },
    ]);
    expect(kinds(up('block', [passing, insight({ id: 'i-2', status: 'UNKNOWN' })]))).toEqual(['Impossible']);
    expect(kinds(up('block', [passing, insight({ id: 'i-2', status: 'WARNING' })]))[0]).toBe(
      'UpdateClusterVersion',
    );
    expect(kinds(up('block', [passing, insight({ id: 'i-3', kubernetesVersion: '1.33' })]))[0]).toBe(
      'UpdateClusterVersion',
    );
  });

  it('a held step still lets sizes and tags converge', () => {
    const d = desired({ kubernetesVersion: '1.32', nodeCount: 5, tags: { team: 'a', cost: 'x' } });
    const { insights: _read, ...o } = converged(spec({ kubernetesVersion: '1.31' }));
    const ops = plan(d, { ...o, insights: [insight()] }, DEFAULTS);
    expect(kinds(ops)).toEqual(['Impossible', 'UpdateNodegroupConfig', 'TagResource', 'TagResource']);
  });

  it('feeds UpgradeBlocked and UpgradeWarning', () => {
    const blocked = up('block', [insight()]);
    const c = upgradeConditions(
      blocked.filter((o) => o.kind === 'Impossible'),
      blocked,
      1,
    );
    expect(c.find((x) => x.type === ConditionType.UpgradeBlocked)).toMatchObject({ status: 'True' });
    const warned = up('warn', [insight()]);
    const w = upgradeConditions([], warned, 1);
    expect(w.find((x) => x.type === ConditionType.UpgradeWarning)).toMatchObject({ status: 'True' });
    expect(w.find((x) => x.type === ConditionType.UpgradeBlocked)).toMatchObject({ status: 'False' });
  });
});

/** The core add-ons at 1.31 with CoreDNS DEGRADED by one EKS issue. */
function withDegradedCoreDns(code: string): Observation {
  const [v, c, k] = coreAt('1.31');
  const issues = [{ code, message: 'no nodes', resourceIds: [] }];
  const degraded = { ...c!, status: 'DEGRADED', health: Health.Degraded, issues };
  return at({ addons: CORE }, { addons: [v!, degraded, k!] });
}

describe('status: AddonsReady', () => {
  it('a DEGRADED add-on makes AddonsReady and Ready false with EKS issue codes', () => {
    const s = spec({ addons: CORE });
    const cond = addonsCondition(s, withDegradedCoreDns('InsufficientNumberOfReplicas'), 1);
    expect(cond).toMatchObject({ status: 'False', reason: 'AddonUnhealthy' });
    expect(cond?.message).toContain('InsufficientNumberOfReplicas');
    const status = applyOutcome(
      undefined,
      { kind: 'Converged' },
      { generation: 1, now: new Date(0), parts: [cond!] },
    );
    expect(status.ready).toBe(false);
    expect(status.conditions.find((x) => x.type === 'Ready')?.reason).toBe('AddonUnhealthy');
    const healthy = addonsCondition(s, at({ addons: CORE }, { addons: coreAt('1.31') }), 1);
    expect(
      applyOutcome(undefined, { kind: 'Converged' }, { generation: 1, now: new Date(0), parts: [healthy!] })
        .ready,
    ).toBe(true);
  });

  it('is Unknown when EKS could not be read, never the last answer', () => {
    const s = applyOutcome(
      undefined,
      { kind: 'ObserveFailed', message: 'EKS down', remediation: 'retry' },
      { generation: 1, now: new Date(0) },
    );
    expect(s.conditions.find((x) => x.type === 'AddonsReady')?.status).toBe('Unknown');
  });
});

describe('review mends', () => {
  it('the control plane waits for an add-on its minor no longer runs (a failed create is not stepped past)', () => {
    const d = desired({ addons: CORE, kubernetesVersion: '1.33' });
    const [v, c, k] = coreAt('1.31');
    const stuck = { ...k!, status: 'CREATE_FAILED', health: Health.Failed };
    const o = at({ addons: CORE }, { addons: [v!, c!, stuck], insights: PASSING_INSIGHTS }, '1.32');
    const ops = plan(d, o, DEFAULTS);
    expect(kinds(ops)).not.toContain('UpdateClusterVersion');
    expect(ops.find((x) => x.kind === 'Impossible')).toMatchObject({ field: 'addons[kube-proxy]' });
  });

  it('a failed add-on update is tried again (the handler holds automatic retries back)', () => {
    const d = desired({ addons: CORE, kubernetesVersion: '1.32' });
    const [v, c, k] = coreAt('1.31');
    const failed = { ...k!, status: 'UPDATE_FAILED', health: Health.Failed };
    const o = at({ addons: CORE }, { addons: [v!, c!, failed], insights: PASSING_INSIGHTS }, '1.32');
    expect(lines(plan(d, o, DEFAULTS))[0]).toMatch(
      /^update add-on kube-proxy v1\.31\.0-eksbuild\.1 -> v1\.32/,
    );
  });

  it("another record's add-ons and entries are neither deleted nor reported", () => {
    const other = ownershipTags('team-b/other');
    const d = desired({ addons: [], access: { entries: [] } });
    const o = at(
      {},
      {
        addons: [addon('coredns', 'v1.11.2-eksbuild.1', { tags: other })],
        accessEntries: [entry(DEV, { tags: other })],
      },
    );
    expect(plan(d, o, DEFAULTS)).toEqual([]);
    expect(detectDrift(d.spec, o, DEFAULTS).map((i) => i.field)).toEqual([`access.entries[${DEV}]`]);
  });

  it('a pin EKS stopped listing is converged while it runs, and blocks only the minors ahead', () => {
    const pin = [{ name: 'kube-proxy', version: 'v1.31.9-eksbuild.9' }];
    const running = addon('kube-proxy', 'v1.31.9-eksbuild.9', {
      tags: { ...ownershipTags(ID), [ADDON_VERSION_TAG]: 'v1.31.9-eksbuild.9' },
    });
    expect(plan(desired({ addons: pin }), at({ addons: pin }, { addons: [running] }), DEFAULTS)).toEqual([]);
    const up = plan(
      desired({ addons: pin, kubernetesVersion: '1.32' }),
      at({ addons: pin }, { addons: [running] }),
      DEFAULTS,
    );
    expect(up).toMatchObject([{ kind: 'Impossible', field: 'addons[kube-proxy].version' }]);
  });

  it('Paused does not keep Ready over an unhealthy add-on', () => {
    const s = spec({ addons: CORE });
    const cond = addonsCondition(s, withDegradedCoreDns('ConfigurationConflict'), 1)!;
    const ready = applyOutcome(undefined, { kind: 'Converged' }, { generation: 1, now: new Date(0) });
    expect(ready.ready).toBe(true);
    const paused = applyOutcome(
      ready,
      { kind: 'Paused' },
      { generation: 1, now: new Date(1), parts: [cond] },
    );
    expect(paused.ready).toBe(false);
  });

  it('AddonsReady and the gate go Unknown for an invalid spec; a missing cluster has no ready add-ons', () => {
    const s = applyOutcome(
      undefined,
      { kind: 'SpecInvalid', message: 'bad' },
      { generation: 1, now: new Date(0) },
    );
    for (const t of ['AddonsReady', 'UpgradeBlocked', 'UpgradeWarning'])
      expect(s.conditions.find((x) => x.type === t)?.status).toBe('Unknown');
    expect(addonsCondition(spec({ addons: CORE }), observation(null), 1)).toMatchObject({ status: 'False' });
  });

  it('refuses principals that differ only in case, repeated groups and namespaces, empty path segments', () => {
    const bad = (access: unknown) => !validateSpec({ ...baseSpecInput, access }).ok;
    const role = (name: string) => `arn:aws:iam::${ACCOUNT}:role/${name}`;
    expect(bad({ entries: [{ principalArn: role('Admin') }, { principalArn: role('admin') }] })).toBe(true);
    expect(bad({ entries: [{ principalArn: role('a'), kubernetesGroups: ['g', 'g'] }] })).toBe(true);
    const ns = (namespaces: string[]) => ({
      entries: [
        {
          principalArn: role('a'),
          policies: [{ name: 'AmazonEKSViewPolicy', scope: 'namespace', namespaces }],
        },
      ],
    });
    expect(bad(ns(['a', 'a']))).toBe(true);
    expect(bad(ns(['dev-*']))).toBe(false);
    expect(bad({ entries: [{ principalArn: role('a//b') }] })).toBe(true);
    expect(bad({ entries: [{ principalArn: role('path/to/ok') }] })).toBe(false);
  });

  it('the preview says where the readiness gate would hold a later step, without holding this one', () => {
    const d = desired({ kubernetesVersion: '1.33' });
    const o = {
      ...converged(spec({ kubernetesVersion: '1.31' })),
      insights: [insight({ status: 'PASSING' })],
    };
    const ops = plan(d, o, DEFAULTS);
    expect(kinds(ops)[0]).toBe('UpdateClusterVersion');
    expect(ops.at(-1)).toMatchObject({ kind: 'UpgradeHeld', gate: { toVersion: '1.33' } });
    expect(describeOperation(ops.at(-1)!)).toContain('waits for the readiness gate');
    expect(ops.some((op) => op.kind === 'Impossible')).toBe(false);
  });

  it('never tags an add-on with a keyword for a version it does not run', () => {
    const pin = [{ name: 'kube-proxy', version: 'v1.29.0-eksbuild.1' }];
    const ops = plan(
      desired({ addons: pin }),
      at({ addons: pin }, { addons: coreAt('1.31').slice(2) }),
      DEFAULTS,
    );
    expect(kinds(ops)).toEqual(['Impossible']);
  });

  it("the hint for EKS's own node entry never says to delete it", () => {
    const d = desired({ access: { entries: [{ principalArn: `arn:aws:iam::${ACCOUNT}:role/eks-node` }] } });
    const o = at(
      {},
      { accessEntries: [entry(`arn:aws:iam::${ACCOUNT}:role/eks-node`, { type: 'EC2_LINUX' })] },
    );
    const stop = plan(d, o, DEFAULTS).find((op) => op.kind === 'Impossible');
    expect(stop?.kind === 'Impossible' && stop.remediation).toContain("EKS's own entry for a node role");
  });

  it('a node-type entry needs a role principal', () => {
    const user = `arn:aws:iam::${ACCOUNT}:user/bob`;
    expect(
      validateSpec({ ...baseSpecInput, access: { entries: [{ principalArn: user, type: 'EC2_LINUX' }] } }).ok,
    ).toBe(false);
    expect(validateSpec({ ...baseSpecInput, access: { entries: [{ principalArn: user }] } }).ok).toBe(true);
  });
});
