/**
 * What the provider refuses to send, and the request it builds for each operation: one call per
 * operation, the operation's token on the wire, and exactly the roles and subnets the planner
 * resolved (the provider fills in no defaults of its own).
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { InternalError, PermanentError } from '../../lambdas/core/errors.js';
import { MANAGED_BY_TAG, OWNER_TAG, POOL_TAG } from '../../lambdas/core/ownership.js';
import { amiTypeFor } from '../../lambdas/core/plan/nodegroup.js';
import type { MutatingOperation } from '../../lambdas/core/plan/types.js';
import { defaultsFromEnv } from '../../lambdas/handlers/deployment-defaults.js';
import type { EksProvider } from '../../lambdas/provider/eks-provider.js';
import { ProviderBugError, ProviderRefusedError } from '../../lambdas/provider/ops.js';
import {
  clusterVersionOp,
  configOp,
  createClusterOp,
  createNodegroupOp,
  nodegroupVersionOp,
  ref,
  scalingOp,
} from './support/fixtures.js';
import { providerFor, REGION } from './support/servers.js';

interface Seen {
  method: string;
  path: string;
  body: Record<string, unknown>;
}

/** Records each request and answers with a minimal valid body for the path. */
async function startRecorder(): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const reply = (req: IncomingMessage) =>
    req.url?.includes('/update')
      ? { update: { id: 'u-1', status: 'InProgress' } }
      : {
          cluster: { arn: 'arn:x', status: 'CREATING' },
          nodegroup: { nodegroupArn: 'arn:y', status: 'CREATING' },
          addon: { addonArn: 'arn:a', status: 'CREATING' },
          accessEntry: { accessEntryArn: 'arn:e' },
        };
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (d: Buffer) => {
      text += d.toString();
    });
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        path: decodeURIComponent(req.url ?? ''),
        body: text ? JSON.parse(text) : {},
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(reply(req)));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen, close: () => new Promise((r) => server.close(() => r())) };
}

const ACCOUNT = '000000000000';
const base = { clusterName: ref.clusterName, region: REGION };
const OWNED = { [OWNER_TAG]: 'default/conformance', [MANAGED_BY_TAG]: 'cloudorch' };
const PRINCIPAL = 'arn:aws:iam::000000000000:role/ops';
const VIEW = 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSViewPolicy';
const createAddon: Extract<MutatingOperation, { kind: 'CreateAddon' }> = {
  kind: 'CreateAddon',
  ...base,
  addonName: 'aws-ebs-csi-driver',
  addonVersion: 'v1.40.0-eksbuild.1',
  configurationValues: '{"controller":{"replicaCount":3}}',
  serviceAccountRoleArn: 'arn:aws:iam::000000000000:role/ebs',
  podIdentityAssociations: [
    { serviceAccount: 'ebs-csi-controller-sa', roleArn: 'arn:aws:iam::000000000000:role/ebs' },
  ],
  resolveConflicts: 'OVERWRITE',
  tags: { team: 'platform', ...OWNED },
  clientRequestToken: 'tok-addon',
};
const updateAddon: Extract<MutatingOperation, { kind: 'UpdateAddon' }> = {
  kind: 'UpdateAddon',
  ...base,
  addonName: 'coredns',
  addonVersion: 'v1.11.4-eksbuild.2',
  fromVersion: 'v1.11.3-eksbuild.1',
  reason: 'incompatible',
  resolveConflicts: 'PRESERVE',
  clientRequestToken: 'tok-update',
};
const createEntry: Extract<MutatingOperation, { kind: 'CreateAccessEntry' }> = {
  kind: 'CreateAccessEntry',
  ...base,
  principalArn: PRINCIPAL,
  type: 'STANDARD',
  kubernetesGroups: ['ops'],
  tags: OWNED,
  clientRequestToken: 'tok-entry',
};
const modeOp = (fromMode: string, authenticationMode: string): MutatingOperation => ({
  kind: 'UpdateClusterConfig',
  ...base,
  fromMode,
  authenticationMode,
  clientRequestToken: 'tok-mode',
});

describe('the provider sends one call per operation', () => {
  let rec: Awaited<ReturnType<typeof startRecorder>>;
  let provider: EksProvider;
  beforeAll(async () => {
    rec = await startRecorder();
    provider = providerFor(rec.url);
  });
  afterAll(async () => {
    provider.clients.destroy();
    await rec.close();
  });
  beforeEach(() => {
    rec.seen.length = 0;
  });

  // Operation, expected method and path, and what the body must carry.
  const cases: [MutatingOperation, string, string, Record<string, unknown>][] = [
    [
      createClusterOp(ACCOUNT),
      'POST',
      '/clusters',
      {
        name: 'conformance',
        version: '1.30',
        clientRequestToken: createClusterOp(ACCOUNT).clientRequestToken,
      },
    ],
    [
      createNodegroupOp(ACCOUNT),
      'POST',
      '/clusters/conformance/node-groups',
      {
        instanceTypes: ['m5.large'],
        capacityType: 'SPOT',
        amiType: 'AL2023_x86_64_STANDARD',
        labels: {},
        taints: [],
        tags: { [POOL_TAG]: 'default' },
        clientRequestToken: createNodegroupOp(ACCOUNT).clientRequestToken,
      },
    ],
    [
      clusterVersionOp('1.30', '1.31'),
      'POST',
      '/clusters/conformance/updates',
      { version: '1.31', clientRequestToken: clusterVersionOp('1.30', '1.31').clientRequestToken },
    ],
    [
      nodegroupVersionOp('1.30', '1.31'),
      'POST',
      '/clusters/conformance/node-groups/cloudorch-m5-large-od-abc123/update-version',
      { version: '1.31' },
    ],
    [
      scalingOp(3),
      'POST',
      '/clusters/conformance/node-groups/cloudorch-m5-large-od-abc123/update-config',
      { scalingConfig: { desiredSize: 3 }, clientRequestToken: scalingOp(3).clientRequestToken },
    ],
    [
      { kind: 'TagResource', ...base, resourceArn: 'arn:aws:eks:us-east-1:0:cluster/c', tags: { a: 'b' } },
      'POST',
      '/tags/arn:aws:eks:us-east-1:0:cluster/c',
      { tags: { a: 'b' } },
    ],
    [
      {
        kind: 'UntagResource',
        ...base,
        resourceArn: 'arn:aws:eks:us-east-1:0:cluster/c',
        tagKeys: ['a', 'b'],
      },
      'DELETE',
      '/tags/arn:aws:eks:us-east-1:0:cluster/c?tagKeys=a&tagKeys=b',
      {},
    ],
    [
      { kind: 'DeleteNodegroup', ...base, nodegroupName: 'ng', reason: 'pool-removed' },
      'DELETE',
      '/clusters/conformance/node-groups/ng',
      {},
    ],
    [{ kind: 'DeleteCluster', ...base }, 'DELETE', '/clusters/conformance', {}],
    [
      createAddon,
      'POST',
      '/clusters/conformance/addons',
      {
        addonName: 'aws-ebs-csi-driver',
        addonVersion: 'v1.40.0-eksbuild.1',
        configurationValues: createAddon.configurationValues,
        serviceAccountRoleArn: createAddon.serviceAccountRoleArn,
        podIdentityAssociations: createAddon.podIdentityAssociations,
        resolveConflicts: 'OVERWRITE',
        tags: createAddon.tags,
        clientRequestToken: 'tok-addon',
      },
    ],
    [
      updateAddon,
      'POST',
      '/clusters/conformance/addons/coredns/update',
      { addonVersion: 'v1.11.4-eksbuild.2', resolveConflicts: 'PRESERVE', clientRequestToken: 'tok-update' },
    ],
    [
      { kind: 'DeleteAddon', ...base, addonName: 'coredns', preserve: true },
      'DELETE',
      '/clusters/conformance/addons/coredns?preserve=true',
      {},
    ],
    [
      modeOp('API_AND_CONFIG_MAP', 'API'),
      'POST',
      '/clusters/conformance/update-config',
      { accessConfig: { authenticationMode: 'API' }, clientRequestToken: 'tok-mode' },
    ],
    [
      createEntry,
      'POST',
      '/clusters/conformance/access-entries',
      {
        principalArn: PRINCIPAL,
        type: 'STANDARD',
        kubernetesGroups: ['ops'],
        tags: OWNED,
        clientRequestToken: 'tok-entry',
      },
    ],
    [
      {
        kind: 'UpdateAccessEntry',
        ...base,
        principalArn: PRINCIPAL,
        kubernetesGroups: [],
        clientRequestToken: 'tok-u',
      },
      'POST',
      `/clusters/conformance/access-entries/${PRINCIPAL}`,
      { kubernetesGroups: [], clientRequestToken: 'tok-u' },
    ],
    [
      { kind: 'DeleteAccessEntry', ...base, principalArn: PRINCIPAL, reason: 'unlisted' },
      'DELETE',
      `/clusters/conformance/access-entries/${PRINCIPAL}`,
      {},
    ],
    [
      {
        kind: 'AssociateAccessPolicy',
        ...base,
        principalArn: PRINCIPAL,
        policyArn: VIEW,
        accessScope: { type: 'namespace', namespaces: ['a', 'b'] },
      },
      'POST',
      `/clusters/conformance/access-entries/${PRINCIPAL}/access-policies`,
      { policyArn: VIEW, accessScope: { type: 'namespace', namespaces: ['a', 'b'] } },
    ],
    [
      { kind: 'DisassociateAccessPolicy', ...base, principalArn: PRINCIPAL, policyArn: VIEW },
      'DELETE',
      `/clusters/conformance/access-entries/${PRINCIPAL}/access-policies/${VIEW}`,
      {},
    ],
  ];

  it.each(cases.map((c) => [c[0].kind, ...c] as const))('%s -> %s %s', async (_, op, method, path, body) => {
    await provider.apply(op);
    expect(rec.seen).toHaveLength(1);
    expect(rec.seen[0]).toMatchObject({ method, path, body });
  });

  it('CreateCluster sends the access config: no admin entry for CloudOrch itself', async () => {
    await provider.apply(createClusterOp(ACCOUNT, 1, '1.30', 'API'));
    expect(rec.seen[0]?.body['accessConfig']).toEqual({
      authenticationMode: 'API',
      bootstrapClusterCreatorAdminPermissions: false,
    });
  });

  it('add-on and access requests leave out what the planner did not set', async () => {
    const { configurationValues, serviceAccountRoleArn, podIdentityAssociations, ...bare } = createAddon;
    expect([configurationValues, serviceAccountRoleArn, podIdentityAssociations]).not.toContain(undefined);
    await provider.apply(bare);
    expect(Object.keys(rec.seen[0]?.body ?? {}).sort()).toEqual(
      ['addonName', 'addonVersion', 'clientRequestToken', 'resolveConflicts', 'tags'].sort(),
    );
    // Groups only on STANDARD entries, and only when there are some.
    await provider.apply({ ...createEntry, kubernetesGroups: [] });
    await provider.apply({ ...createEntry, type: 'EC2_LINUX' });
    for (const seen of rec.seen.slice(1)) expect(seen.body).not.toHaveProperty('kubernetesGroups');
    // A cluster scope names no namespaces.
    await provider.apply({
      kind: 'AssociateAccessPolicy',
      ...base,
      principalArn: PRINCIPAL,
      policyArn: VIEW,
      accessScope: { type: 'cluster', namespaces: [] },
    });
    expect(rec.seen[3]?.body['accessScope']).toEqual({ type: 'cluster' });
  });

  it('update calls return the update EKS started; creates the ARN', async () => {
    expect(await provider.apply(updateAddon)).toMatchObject({ kind: 'UpdateAddon', updateId: 'u-1' });
    expect(await provider.apply(modeOp('CONFIG_MAP', 'API_AND_CONFIG_MAP'))).toMatchObject({
      updateId: 'u-1',
    });
    expect(await provider.apply(createAddon)).toMatchObject({ arn: 'arn:a', status: 'CREATING' });
    expect(await provider.apply(createEntry)).toMatchObject({ arn: 'arn:e' });
    // The same version with new settings is a change.
    await provider.apply({
      ...updateAddon,
      addonVersion: updateAddon.fromVersion,
      configurationValues: '{}',
    });
    expect(rec.seen.at(-1)?.body).toMatchObject({
      addonVersion: updateAddon.fromVersion,
      configurationValues: '{}',
    });
  });

  it('CreateCluster and CreateNodegroup send the role, subnets and security groups the planner resolved', async () => {
    const cluster = createClusterOp(ACCOUNT);
    await provider.apply(cluster);
    expect(rec.seen[0]?.body).toMatchObject({
      roleArn: cluster.roleArn,
      resourcesVpcConfig: { subnetIds: cluster.subnetIds, securityGroupIds: cluster.securityGroupIds },
    });
    const nodegroup = createNodegroupOp(ACCOUNT);
    await provider.apply(nodegroup);
    expect(rec.seen[1]?.body).toMatchObject({
      nodeRole: nodegroup.nodeRoleArn,
      subnets: nodegroup.subnetIds,
    });
  });

  const refused: [string, MutatingOperation][] = [
    ['a create without the ownership tag', { ...createClusterOp(ACCOUNT), tags: { team: 'x' } }],
    ['a no-op cluster version update', clusterVersionOp('1.31', '1.31')],
    ['a no-op node group version update', nodegroupVersionOp('1.31', '1.31')],
    ['an empty scaling update', { ...scalingOp(3), scaling: {} }],
    ['a scaling update to the current values', { ...scalingOp(2) }],
    ['a config update with nothing in it', configOp({})],
    [
      'a config update of empty changes only',
      configOp({
        scaling: { minSize: 1, maxSize: 3 },
        labels: { addOrUpdateLabels: {}, removeLabels: [] },
        taints: { addOrUpdateTaints: [], removeTaints: [] },
      }),
    ],
    [
      'a node group create without the ownership tags',
      createNodegroupOp(ACCOUNT, '1.30', 1, { tags: { team: 'x', [POOL_TAG]: 'default' } }),
    ],
    [
      'a node group create without managed-by',
      createNodegroupOp(ACCOUNT, '1.30', 1, { tags: { [OWNER_TAG]: 'a/b', [POOL_TAG]: 'default' } }),
    ],
    [
      'a node group create whose pool tag is not its pool',
      createNodegroupOp(ACCOUNT, '1.30', 1, { pool: 'gpu', tags: createNodegroupOp(ACCOUNT).tags }),
    ],
    [
      'a node group create with an unknown AMI type',
      createNodegroupOp(ACCOUNT, '1.30', 1, { amiType: 'AL1' }),
    ],
    [
      'a taint effect EKS does not name that way',
      createNodegroupOp(ACCOUNT, '1.30', 1, { taints: [{ key: 'a', effect: 'NoSchedule' }] }),
    ],
    ['an empty tag request', { kind: 'TagResource', ...base, resourceArn: 'arn:x', tags: {} }],
    ['an empty untag request', { kind: 'UntagResource', ...base, resourceArn: 'arn:x', tagKeys: [] }],
    [
      'an operation kind the provider does not implement',
      { kind: 'CreateFargateProfile', ...base } as unknown as MutatingOperation,
    ],
    ['an add-on create without the ownership tags', { ...createAddon, tags: { team: 'x' } }],
    ['an add-on create without managed-by', { ...createAddon, tags: { [OWNER_TAG]: 'a/b' } }],
    ['an add-on update that changes nothing', { ...updateAddon, addonVersion: updateAddon.fromVersion }],
    [
      'an add-on delete that would not preserve',
      { kind: 'DeleteAddon', ...base, addonName: 'coredns', preserve: false } as unknown as MutatingOperation,
    ],
    [
      'a CONFIG_MAP cluster without the creator entry EKS requires then',
      createClusterOp(ACCOUNT, 1, '1.30', 'CONFIG_MAP'),
    ],
    ['a cluster in an authentication mode EKS does not know', createClusterOp(ACCOUNT, 1, '1.30', 'IAM')],
    ['an authentication mode that does not move', modeOp('API', 'API')],
    ['an authentication mode EKS does not know', modeOp('API', 'IAM')],
    ['an access entry create without the ownership tags', { ...createEntry, tags: { team: 'x' } }],
    [
      'a namespace scope without namespaces',
      {
        kind: 'AssociateAccessPolicy',
        ...base,
        principalArn: PRINCIPAL,
        policyArn: VIEW,
        accessScope: { type: 'namespace', namespaces: [] },
      },
    ],
  ];

  // No spec can produce these: the planner broke an invariant, so they are Internal, not Permanent.
  it.each(refused)('refuses %s without calling EKS, as a CloudOrch bug', async (_, op) => {
    const err = await provider.apply(op).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderBugError);
    expect(err).toBeInstanceOf(InternalError);
    expect((err as ProviderBugError).kind).toBe('Internal');
    expect((err as ProviderBugError).remediation).toMatch(/bug.*report it/);
    expect(rec.seen).toHaveLength(0);
  });

  it('refuses a create the planner left without a role or subnets: it asserts, never fills in', async () => {
    for (const op of [
      { ...createClusterOp(ACCOUNT), roleArn: undefined },
      { ...createClusterOp(ACCOUNT), subnetIds: ['only-one'] },
      { ...createNodegroupOp(ACCOUNT), nodeRoleArn: undefined },
      { ...createNodegroupOp(ACCOUNT), subnetIds: [] },
    ]) {
      const err = await provider.apply(op).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ProviderRefusedError);
      expect(err).toBeInstanceOf(PermanentError);
      expect((err as ProviderRefusedError).remediation).toMatch(/spec\./);
    }
    expect(rec.seen).toHaveLength(0);
    expect(createClusterOp(ACCOUNT).tags[OWNER_TAG]).toBeDefined();
  });
});

describe('node group configuration on the wire', () => {
  let rec: Awaited<ReturnType<typeof startRecorder>>;
  let provider: EksProvider;
  beforeAll(async () => {
    rec = await startRecorder();
    provider = providerFor(rec.url);
  });
  afterAll(async () => {
    provider.clients.destroy();
    await rec.close();
  });
  beforeEach(() => {
    rec.seen.length = 0;
  });

  it('CreateNodegroup sends every instance type, the AMI type, disk size, labels, taints, updateConfig and the pool tag', async () => {
    const op = createNodegroupOp(ACCOUNT, '1.30', 1, {
      nodegroupName: 'cloudorch-gpu-g5-xlarge-spot-abc123',
      pool: 'gpu',
      instanceTypes: ['g5.xlarge', 'g5.2xlarge'],
      amiType: 'AL2023_x86_64_NVIDIA',
      diskSize: 100,
      labels: { role: 'gpu' },
      taints: [
        { key: 'nvidia.com/gpu', value: 'true', effect: 'NO_SCHEDULE' },
        { key: 'dedicated', effect: 'NO_EXECUTE' },
      ],
      updateConfig: { maxUnavailablePercentage: 25 },
    });
    await provider.apply(op);
    expect(rec.seen).toHaveLength(1);
    expect(rec.seen[0]?.body).toEqual({
      nodegroupName: op.nodegroupName,
      version: '1.30',
      instanceTypes: ['g5.xlarge', 'g5.2xlarge'],
      amiType: 'AL2023_x86_64_NVIDIA',
      diskSize: 100,
      capacityType: 'SPOT',
      scalingConfig: { minSize: 1, maxSize: 3, desiredSize: 2 },
      labels: { role: 'gpu' },
      taints: [
        { key: 'nvidia.com/gpu', value: 'true', effect: 'NO_SCHEDULE' },
        { key: 'dedicated', effect: 'NO_EXECUTE' },
      ],
      updateConfig: { maxUnavailablePercentage: 25 },
      nodeRole: op.nodeRoleArn,
      subnets: ['subnet-a'],
      tags: {
        team: 'platform',
        [OWNER_TAG]: 'default/conformance',
        [MANAGED_BY_TAG]: 'cloudorch',
        [POOL_TAG]: 'gpu',
      },
      clientRequestToken: op.clientRequestToken,
    });
  });

  it('CreateNodegroup leaves out disk size and updateConfig the planner left to EKS', async () => {
    await provider.apply(createNodegroupOp(ACCOUNT));
    expect(rec.seen[0]?.body).not.toHaveProperty('diskSize');
    expect(rec.seen[0]?.body).not.toHaveProperty('updateConfig');
  });

  it('UpdateNodegroupConfig: scaling, labels, taints and updateConfig in one call', async () => {
    const op = configOp({
      scaling: { minSize: 2, desiredSize: 2 },
      labels: { addOrUpdateLabels: { role: 'web' }, removeLabels: ['old'] },
      taints: {
        addOrUpdateTaints: [{ key: 'team', value: 'ml', effect: 'NO_EXECUTE' }],
        removeTaints: [{ key: 'spot', value: 'true', effect: 'PREFER_NO_SCHEDULE' }],
      },
      updateConfig: { maxUnavailable: 2 },
    });
    await provider.apply(op);
    expect(rec.seen).toHaveLength(1);
    expect(rec.seen[0]).toMatchObject({
      path: `/clusters/conformance/node-groups/${op.nodegroupName}/update-config`,
    });
    expect(rec.seen[0]?.body).toEqual({
      scalingConfig: { minSize: 2, desiredSize: 2 },
      labels: { addOrUpdateLabels: { role: 'web' }, removeLabels: ['old'] },
      taints: {
        addOrUpdateTaints: [{ key: 'team', value: 'ml', effect: 'NO_EXECUTE' }],
        removeTaints: [{ key: 'spot', value: 'true', effect: 'PREFER_NO_SCHEDULE' }],
      },
      updateConfig: { maxUnavailable: 2 },
      clientRequestToken: op.clientRequestToken,
    });
  });

  it('UpdateNodegroupConfig sends only the members that change something', async () => {
    await provider.apply(
      configOp({
        scaling: { minSize: 1, maxSize: 3, desiredSize: 2 },
        labels: { addOrUpdateLabels: {}, removeLabels: ['old'] },
        taints: { addOrUpdateTaints: [], removeTaints: [] },
      }),
    );
    expect(rec.seen[0]?.body).toEqual({
      labels: { removeLabels: ['old'] },
      clientRequestToken: expect.any(String),
    });
  });
});

describe('request details', () => {
  it.each([
    ['m5.large', 'AL2023_x86_64_STANDARD'],
    ['t3.medium', 'AL2023_x86_64_STANDARD'],
    ['m7g.large', 'AL2023_ARM_64_STANDARD'],
    ['t4g.medium', 'AL2023_ARM_64_STANDARD'],
    ['c6gn.xlarge', 'AL2023_ARM_64_STANDARD'],
    ['g4dn.xlarge', 'AL2023_x86_64_NVIDIA'],
  ])('instance type %s runs AMI type %s', (instanceType, ami) => {
    expect(amiTypeFor(instanceType)).toBe(ami);
  });

  it('reads deployment defaults from the environment, and only what is set', () => {
    expect(defaultsFromEnv({})).toEqual({});
    expect(
      defaultsFromEnv({
        CLOUDORCH_DEFAULT_CLUSTER_ROLE_ARN: 'arn:c',
        CLOUDORCH_DEFAULT_NODE_ROLE_ARN: 'arn:n',
        CLOUDORCH_DEFAULT_SUBNET_IDS: 'subnet-1, subnet-2',
        CLOUDORCH_DEFAULT_SECURITY_GROUP_IDS: '',
      }),
    ).toEqual({ clusterRoleArn: 'arn:c', nodeRoleArn: 'arn:n', subnetIds: ['subnet-1', 'subnet-2'] });
  });
});
