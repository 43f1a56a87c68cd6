/**
 * Wire fidelity against AWS's published EKS API model (botocore's service-2.json): every route the
 * simulator serves has the model's method and URI, and a representative request of each operation
 * (serialized from the model's input members) is answered with JSON whose member names, types, required
 * members and enum values are the model's. A route without a request here fails the test.
 */
import {
  AssociateAccessPolicyCommand,
  CreateAccessEntryCommand,
  CreateAddonCommand,
  UpdateAddonCommand,
  UpdateClusterVersionCommand,
} from '@aws-sdk/client-eks';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADDON_DURATIONS, addonsOf } from '../../local/eks-sim/addon-state.js';
import { DEFAULT_DURATIONS } from '../../local/eks-sim/model.js';
import { ROUTES } from '../../local/eks-sim/server.js';
import { checkShape, loadEksModel, type ServiceModel, serialize, uriOf } from './support/eks-api-model.js';
import { activeCluster, activeNodegroup, ROLE, type SimClients, useSimulator } from './support.js';

const h = useSimulator({ seed: 7 });
let model: ServiceModel;
beforeAll(() => {
  model = loadEksModel();
});

const DEV = 'arn:aws:iam::000000000000:role/dev';
const ADMIN_POLICY = 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy';

/** Ids made by the fixture, for the requests that name them. */
interface Fixture {
  readonly clusterArn: string;
  readonly clusterUpdateId: string;
  readonly addonUpdateId: string;
  readonly insightId: string;
  readonly associationId: string;
}

/**
 * One cluster with everything the operations read: a node group, an add-on with a pod identity
 * association and a finished update, a cluster version update, an insight, an access entry with a policy.
 */
async function fixture(s: SimClients): Promise<Fixture> {
  await s.admin.reset();
  await activeCluster(s, { accessConfig: { authenticationMode: 'API_AND_CONFIG_MAP' } });
  await activeNodegroup(s);
  await s.eks.send(
    new CreateAddonCommand({
      clusterName: 'c',
      addonName: 'vpc-cni',
      podIdentityAssociations: [{ serviceAccount: 'aws-node', roleArn: ROLE }],
    }),
  );
  await s.admin.advance(ADDON_DURATIONS.create);
  const addonUpdate = await s.eks.send(
    new UpdateAddonCommand({ clusterName: 'c', addonName: 'vpc-cni', resolveConflicts: 'OVERWRITE' }),
  );
  await s.admin.advance(ADDON_DURATIONS.update);
  await s.eks.send(new CreateAccessEntryCommand({ clusterName: 'c', principalArn: DEV }));
  await s.eks.send(
    new AssociateAccessPolicyCommand({
      clusterName: 'c',
      principalArn: DEV,
      policyArn: ADMIN_POLICY,
      accessScope: { type: 'cluster' },
    }),
  );
  const clusterUpdate = await s.eks.send(new UpdateClusterVersionCommand({ name: 'c', version: '1.31' }));
  await s.admin.advance(DEFAULT_DURATIONS.clusterVersionUpdate);
  await activeCluster(s, { name: 'bare' });
  const insight = await s.admin.setInsight('c', {
    name: 'Deprecated APIs',
    status: 'ERROR',
    reason: 'Deprecated API usage detected',
    deprecationDetails: [
      {
        usage: '/apis/flowcontrol.apiserver.k8s.io/v1beta3/flowschemas',
        replacedWith: '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas',
        stopServingVersion: '1.32',
        startServingReplacementVersion: '1.29',
        clientStats: [
          { userAgent: 'kubectl', numberOfRequestsLast30Days: 3, lastRequestTime: 1_700_000_000_000 },
        ],
      },
    ],
    resources: [{ kubernetesResourceUri: '/apis/flowcontrol.apiserver.k8s.io/v1beta3/flowschemas' }],
  });
  const arn = s.sim.state.cluster('us-east-1', 'c').arn;
  const state = s.sim.state;
  const assoc = addonsOf(state, state.cluster('us-east-1', 'c')).get('vpc-cni')?.podIdentityAssociations[0];
  return {
    clusterArn: arn,
    clusterUpdateId: clusterUpdate.update?.id as string,
    addonUpdateId: addonUpdate.update?.id as string,
    insightId: insight.id,
    associationId: (assoc ?? '').split('/').pop() as string,
  };
}

type Input = Record<string, unknown>;

/** A representative valid request per operation, in the model's input member names. */
const REQUESTS: Readonly<Record<string, (f: Fixture) => Input[]>> = {
  CreateCluster: () => [
    {
      name: 'other',
      version: '1.31',
      roleArn: ROLE,
      resourcesVpcConfig: { subnetIds: ['subnet-a', 'subnet-b'] },
      accessConfig: { authenticationMode: 'API', bootstrapClusterCreatorAdminPermissions: false },
      tags: { team: 'a' },
      clientRequestToken: 'tok-1',
    },
  ],
  ListClusters: () => [{ maxResults: 10 }],
  DescribeCluster: () => [{ name: 'c' }],
  DeleteCluster: () => [{ name: 'bare' }],
  UpdateClusterVersion: () => [{ name: 'bare', version: '1.31', clientRequestToken: 'tok-2' }],
  ListUpdates: () => [{ name: 'c' }, { name: 'c', nodegroupName: 'ng' }, { name: 'c', addonName: 'vpc-cni' }],
  DescribeUpdate: (f) => [
    { name: 'c', updateId: f.clusterUpdateId },
    { name: 'c', updateId: f.addonUpdateId, addonName: 'vpc-cni' },
  ],
  CreateNodegroup: () => [
    {
      clusterName: 'c',
      nodegroupName: 'ng2',
      subnets: ['subnet-a'],
      nodeRole: ROLE,
      scalingConfig: { minSize: 1, maxSize: 3, desiredSize: 2 },
      instanceTypes: ['t3.medium'],
      capacityType: 'SPOT',
      labels: { pool: 'b' },
      taints: [{ key: 'k', value: 'v', effect: 'NO_SCHEDULE' }],
      updateConfig: { maxUnavailable: 1 },
      tags: { team: 'a' },
    },
  ],
  ListNodegroups: () => [{ clusterName: 'c' }],
  DescribeNodegroup: () => [{ clusterName: 'c', nodegroupName: 'ng' }],
  DeleteNodegroup: () => [{ clusterName: 'c', nodegroupName: 'ng' }],
  UpdateNodegroupConfig: () => [
    {
      clusterName: 'c',
      nodegroupName: 'ng',
      scalingConfig: { minSize: 1, maxSize: 4, desiredSize: 3 },
      labels: { addOrUpdateLabels: { a: 'b' } },
      taints: { addOrUpdateTaints: [{ key: 'k', value: 'v', effect: 'NO_EXECUTE' }] },
      updateConfig: { maxUnavailablePercentage: 50 },
    },
  ],
  UpdateNodegroupVersion: () => [{ clusterName: 'c', nodegroupName: 'ng', version: '1.31', force: true }],
  TagResource: (f) => [{ resourceArn: f.clusterArn, tags: { extra: 'x' } }],
  UntagResource: (f) => [{ resourceArn: f.clusterArn, tagKeys: ['extra'] }],
  ListTagsForResource: (f) => [{ resourceArn: f.clusterArn }],
  DescribeAddonVersions: () => [{ kubernetesVersion: '1.30', addonName: 'kube-proxy' }, { maxResults: 2 }],
  CreateAddon: () => [
    {
      clusterName: 'c',
      addonName: 'coredns',
      resolveConflicts: 'OVERWRITE',
      configurationValues: '{"replicaCount":2}',
      podIdentityAssociations: [{ serviceAccount: 'coredns', roleArn: ROLE }],
      tags: { team: 'a' },
      clientRequestToken: 'tok-3',
    },
  ],
  ListAddons: () => [{ clusterName: 'c' }],
  DescribeAddon: () => [{ clusterName: 'c', addonName: 'vpc-cni' }],
  DeleteAddon: () => [{ clusterName: 'c', addonName: 'vpc-cni', preserve: true }],
  UpdateAddon: () => [
    {
      clusterName: 'c',
      addonName: 'vpc-cni',
      serviceAccountRoleArn: ROLE,
      resolveConflicts: 'PRESERVE',
      configurationValues: '{}',
      clientRequestToken: 'tok-4',
    },
  ],
  ListInsights: () => [
    { clusterName: 'c', filter: { categories: ['UPGRADE_READINESS'], statuses: ['ERROR'] } },
  ],
  DescribeInsight: (f) => [{ clusterName: 'c', id: f.insightId }],
  UpdateClusterConfig: () => [
    { name: 'c', accessConfig: { authenticationMode: 'API' }, clientRequestToken: 'tok-5' },
  ],
  CreateAccessEntry: () => [
    {
      clusterName: 'c',
      principalArn: 'arn:aws:iam::000000000000:role/ops',
      kubernetesGroups: ['ops'],
      username: 'ops',
      type: 'STANDARD',
      tags: { team: 'a' },
    },
  ],
  ListAccessEntries: () => [{ clusterName: 'c' }, { clusterName: 'c', associatedPolicyArn: ADMIN_POLICY }],
  DescribeAccessEntry: () => [{ clusterName: 'c', principalArn: DEV }],
  UpdateAccessEntry: () => [
    { clusterName: 'c', principalArn: DEV, kubernetesGroups: ['devs'], username: 'dev' },
  ],
  DeleteAccessEntry: () => [{ clusterName: 'c', principalArn: DEV }],
  ListAccessPolicies: () => [{}],
  AssociateAccessPolicy: () => [
    {
      clusterName: 'c',
      principalArn: DEV,
      policyArn: 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSViewPolicy',
      accessScope: { type: 'namespace', namespaces: ['team-a'] },
    },
  ],
  ListAssociatedAccessPolicies: () => [{ clusterName: 'c', principalArn: DEV }],
  DisassociateAccessPolicy: () => [{ clusterName: 'c', principalArn: DEV, policyArn: ADMIN_POLICY }],
  DescribePodIdentityAssociation: (f) => [{ clusterName: 'c', associationId: f.associationId }],
};

const served = () => ROUTES.map(([method, pattern, op]) => ({ method, uri: uriOf(pattern), op }));

describe("the simulator's routes against EKS's API model", () => {
  it("every route has the model's method and URI", () => {
    const problems = served().flatMap(({ method, uri, op }) => {
      const o = model.operations[op];
      if (!o) return [`${op}: not an EKS operation`];
      const out: string[] = [];
      if (o.http.method !== method) out.push(`${op}: method ${method}, the model's is ${o.http.method}`);
      if (o.http.requestUri !== uri) out.push(`${op}: URI ${uri}, the model's is ${o.http.requestUri}`);
      return out;
    });
    expect(problems).toEqual([]);
  });

  it('the checker itself reports unknown members, wrong types, missing required members and enums', () => {
    const problems = checkShape(
      model,
      'DescribeClusterResponse',
      {
        cluster: {
          name: 1,
          bogus: true,
          createdAt: '2020-01-01',
          status: 'RUNNING',
          health: { issues: [{}] },
        },
      },
      'DescribeCluster',
      { topLevel: true },
    );
    expect(problems).toEqual([
      'DescribeCluster.cluster.name: expected a string, got 1 (shape String)',
      'DescribeCluster.cluster: member bogus is not in the model (shape Cluster)',
      'DescribeCluster.cluster.createdAt: expected a timestamp (epoch seconds), got "2020-01-01" (shape Timestamp)',
      'DescribeCluster.cluster.status: RUNNING is not one of CREATING, ACTIVE, DELETING, FAILED, UPDATING, PENDING (shape ClusterStatus)',
    ]);
    expect(
      checkShape(model, 'CreateAddonRequest', { addonName: 'x' }, 'CreateAddon', { request: true }),
    ).toEqual(['CreateAddon: required member clusterName is missing (shape CreateAddonRequest)']);
  });

  it('every route is exercised here (a route without a request fails)', () => {
    const missing = served()
      .map((r) => r.op)
      .filter((op) => !REQUESTS[op]);
    expect(missing).toEqual([]);
  });

  it("each operation's request and answer match the model's shapes", async () => {
    const problems: string[] = [];
    for (const { op } of served()) {
      const inputs = REQUESTS[op];
      const o = model.operations[op];
      if (!inputs || !o) continue; // reported by the tests above
      const f = await fixture(h);
      for (const input of inputs(f)) {
        const label = `${op} ${JSON.stringify(input)}`;
        // The request itself: only the model's members, required ones present, the right types.
        if (o.input)
          problems.push(...checkShape(model, o.input.shape, input, `${op} request`, { request: true }));
        const req = serialize(model, op, input);
        await h.admin.resetCalls();
        const qs = req.query.toString();
        const res = await fetch(`${h.sim.url}${req.path}${qs ? `?${qs}` : ''}`, {
          method: req.method,
          headers: { 'content-type': 'application/json' },
          ...(req.body ? { body: JSON.stringify(req.body) } : {}),
        });
        const body: unknown = await res.json();
        if (res.status !== 200) {
          problems.push(`${label}: ${res.status} ${JSON.stringify(body)}`);
          continue;
        }
        const calls = Object.keys(await h.admin.calls());
        if (calls.join() !== op) problems.push(`${label}: served as ${calls.join() || 'nothing'}`);
        if (o.output) problems.push(...checkShape(model, o.output.shape, body, op, { topLevel: true }));
      }
    }
    expect(problems).toEqual([]);
  });
});
