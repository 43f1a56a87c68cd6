/**
 * The EKS calls the provider really sends, found by running it against a client that records every
 * command: `observe` down every path (an UPDATING cluster, node group and add-on, tracked and
 * untracked updates, add-on versions, access entries, insights) and `apply` once per operation kind. Also every command the provider's source constructs,
 * so a call on a path these runs miss still shows up.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EKSClient } from '@aws-sdk/client-eks';
import { MANAGED_BY_TAG, OWNER_TAG, POOL_TAG } from '../../lambdas/core/ownership.js';
import type { MutatingOperation } from '../../lambdas/core/plan/types.js';
import { EksClients } from '../../lambdas/provider/clients.js';
import { EksProvider } from '../../lambdas/provider/eks-provider.js';

const scaling = { minSize: 1, maxSize: 3, desiredSize: 1 };
const PRINCIPAL = 'arn:aws:iam::123456789012:role/ops';
const POLICY = 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSViewPolicy';
const at = { clusterName: 'c', region: 'eu-west-1' };

/** One operation of every kind, complete by type: a new kind fails the type-check until it is here. */
const SAMPLES: { readonly [K in MutatingOperation['kind']]: Extract<MutatingOperation, { kind: K }> } = {
  CreateCluster: {
    kind: 'CreateCluster',
    ...at,
    clientRequestToken: 't',
    version: '1.34',
    roleArn: 'arn:aws:iam::123456789012:role/cluster',
    subnetIds: ['subnet-1', 'subnet-2'],
    securityGroupIds: [],
    tags: { [OWNER_TAG]: 'team/c' },
    accessConfig: { authenticationMode: 'API', bootstrapClusterCreatorAdminPermissions: false },
  },
  CreateNodegroup: {
    kind: 'CreateNodegroup',
    ...at,
    clientRequestToken: 't',
    nodegroupName: 'ng',
    pool: 'default',
    version: '1.34',
    instanceTypes: ['t3.medium'],
    capacityType: 'ON_DEMAND',
    amiType: 'AL2023_x86_64_STANDARD',
    diskSize: undefined,
    scaling,
    labels: {},
    taints: [],
    updateConfig: undefined,
    nodeRoleArn: 'arn:aws:iam::123456789012:role/node',
    subnetIds: ['subnet-1'],
    tags: { [OWNER_TAG]: 'team/c', [MANAGED_BY_TAG]: 'cloudorch', [POOL_TAG]: 'default' },
  },
  UpdateClusterVersion: {
    kind: 'UpdateClusterVersion',
    ...at,
    clientRequestToken: 't',
    fromVersion: '1.33',
    toVersion: '1.34',
  },
  UpdateNodegroupVersion: {
    kind: 'UpdateNodegroupVersion',
    ...at,
    clientRequestToken: 't',
    nodegroupName: 'ng',
    pool: 'default',
    fromVersion: '1.33',
    toVersion: '1.34',
  },
  UpdateNodegroupConfig: {
    kind: 'UpdateNodegroupConfig',
    ...at,
    clientRequestToken: 't',
    nodegroupName: 'ng',
    pool: 'default',
    from: scaling,
    scaling: { desiredSize: 2 },
    labels: { addOrUpdateLabels: { role: 'web' }, removeLabels: [] },
  },
  TagResource: { kind: 'TagResource', ...at, resourceArn: 'arn', tags: { team: 'a' } },
  UntagResource: { kind: 'UntagResource', ...at, resourceArn: 'arn', tagKeys: ['team'] },
  DeleteNodegroup: {
    kind: 'DeleteNodegroup',
    ...at,
    nodegroupName: 'ng',
    reason: 'pool-removed',
    pool: 'default',
  },
  DeleteCluster: { kind: 'DeleteCluster', ...at },
  CreateAddon: {
    kind: 'CreateAddon',
    ...at,
    clientRequestToken: 't',
    addonName: 'coredns',
    addonVersion: 'v1.11.4-eksbuild.2',
    resolveConflicts: 'OVERWRITE',
    tags: { [OWNER_TAG]: 'team/c', [MANAGED_BY_TAG]: 'cloudorch' },
  },
  UpdateAddon: {
    kind: 'UpdateAddon',
    ...at,
    clientRequestToken: 't',
    addonName: 'coredns',
    addonVersion: 'v1.11.4-eksbuild.2',
    fromVersion: 'v1.11.3-eksbuild.1',
    reason: 'incompatible',
    resolveConflicts: 'OVERWRITE',
  },
  DeleteAddon: { kind: 'DeleteAddon', ...at, addonName: 'coredns', preserve: true },
  UpdateClusterConfig: {
    kind: 'UpdateClusterConfig',
    ...at,
    clientRequestToken: 't',
    fromMode: 'API_AND_CONFIG_MAP',
    authenticationMode: 'API',
  },
  CreateAccessEntry: {
    kind: 'CreateAccessEntry',
    ...at,
    clientRequestToken: 't',
    principalArn: PRINCIPAL,
    type: 'STANDARD',
    kubernetesGroups: [],
    tags: { [OWNER_TAG]: 'team/c', [MANAGED_BY_TAG]: 'cloudorch' },
  },
  UpdateAccessEntry: {
    kind: 'UpdateAccessEntry',
    ...at,
    clientRequestToken: 't',
    principalArn: PRINCIPAL,
    kubernetesGroups: ['ops'],
  },
  DeleteAccessEntry: { kind: 'DeleteAccessEntry', ...at, principalArn: PRINCIPAL, reason: 'removed' },
  AssociateAccessPolicy: {
    kind: 'AssociateAccessPolicy',
    ...at,
    principalArn: PRINCIPAL,
    policyArn: POLICY,
    accessScope: { type: 'cluster', namespaces: [] },
  },
  DisassociateAccessPolicy: {
    kind: 'DisassociateAccessPolicy',
    ...at,
    principalArn: PRINCIPAL,
    policyArn: POLICY,
  },
};

/**
 * One answer that satisfies every call: an UPDATING cluster in an API authentication mode with one
 * UPDATING node group, one UPDATING add-on with a pod identity association, one access entry and one
 * insight in ERROR. DescribeAddonVersions answers `addons` with add-on infos, ListAddons with names.
 */
const ANSWER = {
  cluster: {
    name: 'c',
    arn: 'arn:aws:eks:eu-west-1:123456789012:cluster/c',
    version: '1.33',
    status: 'UPDATING',
    roleArn: 'arn:aws:iam::123456789012:role/cluster',
    resourcesVpcConfig: { subnetIds: ['subnet-1', 'subnet-2'] },
    accessConfig: { authenticationMode: 'API' },
  },
  addons: ['coredns'],
  addon: {
    addonName: 'coredns',
    addonArn: 'arn:aws:eks:eu-west-1:123456789012:addon/c/coredns/1',
    addonVersion: 'v1.11.4-eksbuild.2',
    status: 'UPDATING',
    podIdentityAssociations: ['arn:aws:eks:eu-west-1:123456789012:podidentityassociation/c/a-1'],
  },
  association: {
    serviceAccount: 'coredns',
    roleArn: PRINCIPAL,
    associationArn: 'arn:aws:eks:eu-west-1:123456789012:podidentityassociation/c/a-1',
  },
  accessEntries: [PRINCIPAL],
  accessEntry: {
    principalArn: PRINCIPAL,
    accessEntryArn: 'arn:aws:eks:eu-west-1:123456789012:access-entry/c/role/123456789012/ops/1',
    type: 'STANDARD',
  },
  associatedAccessPolicies: [{ policyArn: POLICY, accessScope: { type: 'cluster' } }],
  insights: [{ id: 'i-1', name: 'Deprecated APIs', insightStatus: { status: 'ERROR' } }],
  insight: { id: 'i-1', name: 'Deprecated APIs', recommendation: 'Move off them.' },
  nodegroups: ['ng'],
  nodegroup: {
    nodegroupName: 'ng',
    nodegroupArn: 'arn:aws:eks:eu-west-1:123456789012:nodegroup/c/ng/1',
    version: '1.33',
    status: 'UPDATING',
    capacityType: 'ON_DEMAND',
    scalingConfig: scaling,
    nodeRole: 'arn:aws:iam::123456789012:role/node',
  },
  updateIds: ['u-untracked'],
  update: { id: 'u', type: 'VersionUpdate', status: 'Successful' },
};

/** Answers whose member names clash with another call's. */
const ANSWERS: Readonly<Record<string, object>> = {
  DescribeAddonVersions: {
    addons: [
      {
        addonName: 'coredns',
        addonVersions: [
          { addonVersion: 'v1.11.4-eksbuild.2', compatibilities: [{ clusterVersion: '1.33' }] },
        ],
      },
    ],
  },
};

/** A provider whose every command is recorded as its EKS action name, and answered with ANSWER. */
function recording(): { provider: EksProvider; sent: Set<string> } {
  const sent = new Set<string>();
  const clients = new EksClients();
  const fake = {
    send: async (command: object) => {
      const call = command.constructor.name.replace(/Command$/, '');
      sent.add(`eks:${call}`);
      return structuredClone(ANSWERS[call] ?? ANSWER);
    },
  };
  clients.forRegion = () => fake as unknown as EKSClient;
  return { provider: new EksProvider({ clients }), sent };
}

export async function observeCalls(): Promise<string[]> {
  const { provider, sent } = recording();
  await provider.observe(at, {
    trackedUpdates: [
      { id: 'u-tracked' },
      { id: 'u-ng', nodegroupName: 'ng' },
      { id: 'u-addon', addonName: 'coredns' },
    ],
    addons: true,
    addonVersionsOf: ['coredns'],
    accessEntries: true,
    insightsUnlessAt: '1.34',
  });
  return [...sent].sort();
}

export async function applyCalls(): Promise<string[]> {
  const { provider, sent } = recording();
  for (const op of Object.values(SAMPLES)) await provider.apply(op);
  return [...sent].sort();
}

/** Every `new XCommand(` in the provider's source, as an EKS action name. */
export function constructedCalls(): string[] {
  const dir = join(import.meta.dirname, '../../lambdas/provider');
  const names = readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .flatMap((f) => [...readFileSync(join(dir, f), 'utf8').matchAll(/new (\w+)Command\(/g)].map((m) => m[1]));
  return [...new Set(names.map((n) => `eks:${n}`))].sort();
}
