/**
 * Access entries, access policies and the cluster's access config, through the official SDK client:
 * every route, the one-way authentication mode, the creator's bootstrap entry, errors, idempotency.
 */
import {
  AssociateAccessPolicyCommand,
  CreateAccessEntryCommand,
  type CreateAccessEntryCommandInput,
  CreateClusterCommand,
  DeleteAccessEntryCommand,
  DescribeAccessEntryCommand,
  DescribeClusterCommand,
  DescribeUpdateCommand,
  DisassociateAccessPolicyCommand,
  ListAccessEntriesCommand,
  ListAccessPoliciesCommand,
  ListAssociatedAccessPoliciesCommand,
  UpdateAccessEntryCommand,
  UpdateClusterConfigCommand,
} from '@aws-sdk/client-eks';
import { describe, expect, it } from 'vitest';
import { ACCESS_CONFIG_UPDATE_MS, addNodeRoleEntry } from '../../local/eks-sim/access-config.js';
import { CLUSTER_ADMIN_POLICY, callerArn } from '../../local/eks-sim/access-model.js';
import { DEFAULT_DURATIONS } from '../../local/eks-sim/model.js';
import {
  activeCluster,
  activeNodegroup,
  clusterInput,
  expectEksError,
  type SimClients,
  useSimulator,
} from './support.js';

const DEV = 'arn:aws:iam::111122223333:role/dev';
const NODE = 'arn:aws:iam::111122223333:role/nodes';
const policy = (name: string) => `arn:aws:eks::aws:cluster-access-policy/${name}`;
const CREATOR = 'arn:aws:iam::000000000000:role/eks-sim-caller';

const apiCluster = (h: SimClients, bootstrap = false, mode: 'API' | 'API_AND_CONFIG_MAP' = 'API') =>
  activeCluster(h, {
    accessConfig: { authenticationMode: mode, bootstrapClusterCreatorAdminPermissions: bootstrap },
  });

const entry = (over: Partial<CreateAccessEntryCommandInput> = {}) =>
  new CreateAccessEntryCommand({ clusterName: 'c', principalArn: DEV, ...over });

describe('the access config of CreateCluster, DescribeCluster and UpdateClusterConfig', () => {
  const h = useSimulator();
  const describeAccess = async () =>
    (await h.eks.send(new DescribeClusterCommand({ name: 'c' }))).cluster?.accessConfig;

  it('without accessConfig the cluster answers as before and authenticates through the ConfigMap', async () => {
    const created = await h.eks.send(new CreateClusterCommand(clusterInput()));
    expect(created.cluster?.accessConfig).toBeUndefined();
    await h.admin.advance(DEFAULT_DURATIONS.clusterCreate);
    expect(await describeAccess()).toBeUndefined();
    await expectEksError(
      h.eks.send(new ListAccessEntriesCommand({ clusterName: 'c' })),
      400,
      'InvalidRequestException',
      "The cluster's authentication mode must be set to one of [API, API_AND_CONFIG_MAP] to perform this operation.",
    );
  });

  it('shows the mode; the bootstrap entry (default true) gives the simulated caller cluster admin', async () => {
    await activeCluster(h, { accessConfig: { authenticationMode: 'API_AND_CONFIG_MAP' } });
    expect(await describeAccess()).toEqual({
      authenticationMode: 'API_AND_CONFIG_MAP',
      bootstrapClusterCreatorAdminPermissions: true,
    });
    expect(callerArn(h.sim.state)).toBe(CREATOR);
    const list = await h.eks.send(new ListAccessEntriesCommand({ clusterName: 'c' }));
    expect(list.accessEntries).toEqual([CREATOR]);
    const assoc = await h.eks.send(
      new ListAssociatedAccessPoliciesCommand({ clusterName: 'c', principalArn: CREATOR }),
    );
    expect(assoc.associatedAccessPolicies?.map((p) => [p.policyArn, p.accessScope])).toEqual([
      [CLUSTER_ADMIN_POLICY, { type: 'cluster', namespaces: [] }],
    ]);
  });

  it('bootstrap false leaves no entry; CONFIG_MAP requires bootstrap (EKS text)', async () => {
    await apiCluster(h);
    expect((await h.eks.send(new ListAccessEntriesCommand({ clusterName: 'c' }))).accessEntries).toEqual([]);
    await expectEksError(
      h.eks.send(
        new CreateClusterCommand(
          clusterInput({
            name: 'd',
            accessConfig: {
              authenticationMode: 'CONFIG_MAP',
              bootstrapClusterCreatorAdminPermissions: false,
            },
          }),
        ),
      ),
      400,
      'InvalidParameterException',
      'bootstrapClusterCreatorAdminPermissions must be true if cluster authentication mode is set to CONFIG_MAP',
    );
  });

  it('moves CONFIG_MAP -> API_AND_CONFIG_MAP -> API as AccessConfigUpdates on the clock, never back', async () => {
    await activeCluster(h);
    const step = async (to: 'API' | 'API_AND_CONFIG_MAP') => {
      const u = await h.eks.send(
        new UpdateClusterConfigCommand({ name: 'c', accessConfig: { authenticationMode: to } }),
      );
      expect(u.update).toMatchObject({
        type: 'AccessConfigUpdate',
        status: 'InProgress',
        params: [{ type: 'AuthenticationMode', value: to }],
      });
      await h.admin.advance(ACCESS_CONFIG_UPDATE_MS);
      const d = await h.eks.send(new DescribeUpdateCommand({ name: 'c', updateId: u.update?.id }));
      expect(d.update?.status).toBe('Successful');
      expect((await describeAccess())?.authenticationMode).toBe(to);
    };
    await step('API_AND_CONFIG_MAP');
    await step('API');
    for (const back of ['API_AND_CONFIG_MAP', 'CONFIG_MAP', 'API'] as const) {
      await expectEksError(
        h.eks.send(new UpdateClusterConfigCommand({ name: 'c', accessConfig: { authenticationMode: back } })),
        400,
        'InvalidParameterException',
        `Unsupported authentication mode update from API to ${back}`,
      );
    }
  });

  it('refuses a second update while one is in progress; replays a token', async () => {
    await activeCluster(h);
    const input = {
      name: 'c',
      accessConfig: { authenticationMode: 'API' as const },
      clientRequestToken: 't1',
    };
    const first = await h.eks.send(new UpdateClusterConfigCommand(input));
    const again = await h.eks.send(new UpdateClusterConfigCommand(input));
    expect(again.update?.id).toBe(first.update?.id);
    await expectEksError(
      h.eks.send(
        new UpdateClusterConfigCommand({
          name: 'c',
          accessConfig: { authenticationMode: 'API_AND_CONFIG_MAP' },
        }),
      ),
      409,
      'ResourceInUseException',
      /Cannot AccessConfigUpdate because cluster c currently has update/,
    );
  });

  it('leaving CONFIG_MAP gives the creator its bootstrap entry and node group roles their EC2_LINUX entries', async () => {
    await activeCluster(h, { version: '1.30' });
    await activeNodegroup(h, { nodeRole: NODE });
    await h.eks.send(
      new UpdateClusterConfigCommand({ name: 'c', accessConfig: { authenticationMode: 'API' } }),
    );
    await h.admin.advance(ACCESS_CONFIG_UPDATE_MS);
    const list = await h.eks.send(new ListAccessEntriesCommand({ clusterName: 'c' }));
    expect(list.accessEntries).toEqual([CREATOR, NODE]);
    const e = await h.eks.send(new DescribeAccessEntryCommand({ clusterName: 'c', principalArn: NODE }));
    expect(e.accessEntry).toMatchObject({
      type: 'EC2_LINUX',
      username: 'system:node:{{EC2PrivateDNSName}}',
      kubernetesGroups: ['system:nodes'],
    });
  });
});

describe('access entries', () => {
  const h = useSimulator();

  it('create, describe, list, update, delete with EKS shapes', async () => {
    await apiCluster(h);
    const created = await h.eks.send(entry({ kubernetesGroups: ['devs'], tags: { team: 'a' } }));
    expect(created.accessEntry).toMatchObject({
      clusterName: 'c',
      principalArn: DEV,
      kubernetesGroups: ['devs'],
      type: 'STANDARD',
      username: 'arn:aws:sts::111122223333:assumed-role/dev/{{SessionName}}',
      tags: { team: 'a' },
    });
    expect(created.accessEntry?.accessEntryArn).toMatch(
      /^arn:aws:eks:us-east-1:000000000000:access-entry\/c\/role\/111122223333\/dev\/[0-9a-f-]{36}$/,
    );
    expect(created.accessEntry?.createdAt).toBeInstanceOf(Date);
    const d = await h.eks.send(new DescribeAccessEntryCommand({ clusterName: 'c', principalArn: DEV }));
    expect(d.accessEntry).toEqual(created.accessEntry);
    expect((await h.eks.send(new ListAccessEntriesCommand({ clusterName: 'c' }))).accessEntries).toEqual([
      DEV,
    ]);
    const u = await h.eks.send(
      new UpdateAccessEntryCommand({
        clusterName: 'c',
        principalArn: DEV,
        kubernetesGroups: ['ops'],
        username: 'dev',
      }),
    );
    expect(u.accessEntry).toMatchObject({ kubernetesGroups: ['ops'], username: 'dev' });
    await h.eks.send(new DeleteAccessEntryCommand({ clusterName: 'c', principalArn: DEV }));
    await expectEksError(
      h.eks.send(new DescribeAccessEntryCommand({ clusterName: 'c', principalArn: DEV })),
      404,
      'ResourceNotFoundException',
      /principalArn could not be found/,
    );
  });

  it('a duplicate is ResourceInUse (EKS text); a token replays the first answer', async () => {
    await apiCluster(h);
    const first = await h.eks.send(entry({ clientRequestToken: 'tok' }));
    const replay = await h.eks.send(entry({ clientRequestToken: 'tok' }));
    expect(replay.accessEntry).toEqual(first.accessEntry);
    await expectEksError(
      h.eks.send(entry()),
      409,
      'ResourceInUseException',
      'The specified access entry resource is already in use on this cluster.',
    );
    await expectEksError(
      h.eks.send(entry({ clientRequestToken: 'tok', username: 'x' })),
      400,
      'InvalidParameterException',
    );
  });

  it('refuses bad principals, types, and groups on non-STANDARD entries; unknown clusters are not found', async () => {
    await apiCluster(h);
    await expectEksError(h.eks.send(entry({ principalArn: 'not-an-arn' })), 400, 'InvalidParameterException');
    await expectEksError(h.eks.send(entry({ type: 'LINUX' })), 400, 'InvalidParameterException');
    await expectEksError(
      h.eks.send(entry({ type: 'EC2_LINUX', kubernetesGroups: ['x'] })),
      400,
      'InvalidParameterException',
    );
    await expectEksError(
      h.eks.send(entry({ clusterName: 'nope' })),
      404,
      'ResourceNotFoundException',
      'No cluster found for name: nope.',
    );
  });

  it('EKS-made node entries (EC2_LINUX) refuse updates and policies with EKS text', async () => {
    await apiCluster(h);
    const c = h.sim.state.cluster('us-east-1', 'c');
    addNodeRoleEntry(h.sim.state, c, NODE);
    addNodeRoleEntry(h.sim.state, c, NODE); // a second node group with the same role adds nothing
    expect((await h.eks.send(new ListAccessEntriesCommand({ clusterName: 'c' }))).accessEntries).toEqual([
      NODE,
    ]);
    const text = 'This operation can only be performed on Access Entries with a type of "STANDARD".';
    await expectEksError(
      h.eks.send(
        new UpdateAccessEntryCommand({ clusterName: 'c', principalArn: NODE, kubernetesGroups: ['x'] }),
      ),
      400,
      'InvalidParameterException',
      text,
    );
    await expectEksError(
      h.eks.send(
        new AssociateAccessPolicyCommand({
          clusterName: 'c',
          principalArn: NODE,
          policyArn: policy('AmazonEKSViewPolicy'),
          accessScope: { type: 'cluster' },
        }),
      ),
      400,
      'InvalidParameterException',
      text,
    );
  });

  it('lists with pages and filters by associated policy', async () => {
    await apiCluster(h, true);
    await h.eks.send(entry());
    const p1 = await h.eks.send(new ListAccessEntriesCommand({ clusterName: 'c', maxResults: 1 }));
    expect(p1.accessEntries).toEqual([CREATOR]);
    const p2 = await h.eks.send(new ListAccessEntriesCommand({ clusterName: 'c', nextToken: p1.nextToken }));
    expect(p2.accessEntries).toEqual([DEV]);
    const admins = await h.eks.send(
      new ListAccessEntriesCommand({ clusterName: 'c', associatedPolicyArn: CLUSTER_ADMIN_POLICY }),
    );
    expect(admins.accessEntries).toEqual([CREATOR]);
  });
});

describe('access policies', () => {
  const h = useSimulator();
  const associate = (
    policyName: string,
    accessScope: { type: 'cluster' | 'namespace'; namespaces?: string[] },
  ) =>
    h.eks.send(
      new AssociateAccessPolicyCommand({
        clusterName: 'c',
        principalArn: DEV,
        policyArn: policy(policyName),
        accessScope,
      }),
    );

  it("lists EKS's policies with their ARNs", async () => {
    const { accessPolicies } = await h.eks.send(new ListAccessPoliciesCommand({}));
    const names = accessPolicies?.map((p) => p.name) ?? [];
    for (const n of [
      'AmazonEKSClusterAdminPolicy',
      'AmazonEKSAdminPolicy',
      'AmazonEKSEditPolicy',
      'AmazonEKSViewPolicy',
      'AmazonEKSAdminViewPolicy',
    ]) {
      expect(accessPolicies).toContainEqual({ name: n, arn: policy(n) });
    }
    expect(names).toEqual([...names].sort());
  });

  it('associates at cluster and namespace scope, re-associating replaces the scope, disassociates', async () => {
    await apiCluster(h);
    await h.eks.send(entry());
    const a = await associate('AmazonEKSViewPolicy', { type: 'cluster' });
    expect(a).toMatchObject({
      clusterName: 'c',
      principalArn: DEV,
      associatedAccessPolicy: {
        policyArn: policy('AmazonEKSViewPolicy'),
        accessScope: { type: 'cluster', namespaces: [] },
      },
    });
    await associate('AmazonEKSEditPolicy', { type: 'namespace', namespaces: ['dev', 'qa-*'] });
    await associate('AmazonEKSViewPolicy', { type: 'namespace', namespaces: ['dev'] });
    const list = async () =>
      (await h.eks.send(new ListAssociatedAccessPoliciesCommand({ clusterName: 'c', principalArn: DEV })))
        .associatedAccessPolicies;
    expect((await list())?.map((p) => [p.policyArn, p.accessScope?.namespaces])).toEqual([
      [policy('AmazonEKSViewPolicy'), ['dev']],
      [policy('AmazonEKSEditPolicy'), ['dev', 'qa-*']],
    ]);
    await h.eks.send(
      new DisassociateAccessPolicyCommand({
        clusterName: 'c',
        principalArn: DEV,
        policyArn: policy('AmazonEKSViewPolicy'),
      }),
    );
    expect((await list())?.map((p) => p.policyArn)).toEqual([policy('AmazonEKSEditPolicy')]);
    await expectEksError(
      h.eks.send(
        new DisassociateAccessPolicyCommand({
          clusterName: 'c',
          principalArn: DEV,
          policyArn: policy('AmazonEKSViewPolicy'),
        }),
      ),
      404,
      'ResourceNotFoundException',
    );
  });

  it('refuses a namespace scope without namespaces, namespaces on a cluster scope, unknown policies and entries', async () => {
    await apiCluster(h);
    await h.eks.send(entry());
    await expectEksError(
      associate('AmazonEKSViewPolicy', { type: 'namespace' }),
      400,
      'InvalidParameterException',
    );
    await expectEksError(
      associate('AmazonEKSViewPolicy', { type: 'cluster', namespaces: ['dev'] }),
      400,
      'InvalidParameterException',
    );
    await expectEksError(
      associate('AmazonEKSMadeUpPolicy', { type: 'cluster' }),
      404,
      'ResourceNotFoundException',
    );
    await h.eks.send(new DeleteAccessEntryCommand({ clusterName: 'c', principalArn: DEV }));
    await expectEksError(
      associate('AmazonEKSViewPolicy', { type: 'cluster' }),
      404,
      'ResourceNotFoundException',
    );
  });
});
