/**
 * One provider suite, two servers: the EKS simulator and moto server. Every operation both implement
 * is asserted the same way on both; where moto lacks an operation (UpdateClusterVersion,
 * UpdateNodegroupVersion, DescribeUpdate, node group tags, token replay, add-ons, access entries) a separate case asserts what
 * moto really answers, so the gap is explicit and still proves the provider invents nothing.
 */
import {
  CreateAccessEntryCommand,
  CreateAddonCommand,
  CreateClusterCommand,
  EKSClient,
  ListAccessEntriesCommand,
  ListAddonsCommand,
  ListClustersCommand,
} from '@aws-sdk/client-eks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NotFoundError, PermanentError, TransientError } from '../../lambdas/core/errors.js';
import { OWNER_TAG, POOL_TAG } from '../../lambdas/core/ownership.js';
import type { EksProvider } from '../../lambdas/provider/eks-provider.js';
import {
  CLUSTER,
  clusterActive,
  clusterVersionOp,
  createClusterOp,
  createNodegroupOp,
  NODEGROUP,
  nodegroupActive,
  nodegroupVersionOp,
  ref,
  scalingOp,
  until,
} from './support/fixtures.js';
import {
  providerFor,
  REGION,
  roleArn,
  type ServerKind,
  startTarget,
  type Target,
} from './support/servers.js';

async function failure(p: Promise<unknown>): Promise<Error> {
  return p.then(
    (v) => {
      throw new Error(`expected a failure, got ${JSON.stringify(v)}`);
    },
    (e: Error) => e,
  );
}

const httpStatus = (e: Error) =>
  (e.cause as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode;

describe.each<ServerKind>(['sim', 'moto'])('EKS provider conformance against %s', (kind) => {
  let target: Target;
  let provider: EksProvider;
  const sim = kind === 'sim';
  const moto = kind === 'moto';

  beforeAll(async () => {
    target = await startTarget(kind);
    provider = providerFor(target.url);
  });
  afterAll(async () => {
    provider?.clients.destroy();
    await target?.close();
  });
  beforeEach(async () => {
    await target.reset();
  });

  const account = () => target.accountId;
  const givenCluster = async () => {
    await provider.apply(createClusterOp(account()));
    return until(provider, clusterActive);
  };
  const givenNodegroup = async () => {
    await givenCluster();
    await provider.apply(createNodegroupOp(account()));
    return until(provider, nodegroupActive);
  };

  it('observe: a missing cluster is null, not an error', async () => {
    const o = await provider.observe(ref);
    expect(o.cluster).toBeNull();
    expect(o.nodegroups).toEqual([]);
  });

  it('CreateCluster: one call; ARN and status from the response; facts observed', async () => {
    const r = await provider.apply(createClusterOp(account()));
    expect(r).toMatchObject({
      kind: 'CreateCluster',
      arn: `arn:aws:eks:${REGION}:${account()}:cluster/${CLUSTER}`,
    });
    // The simulator starts in CREATING like EKS; moto's clusters are ACTIVE at once.
    expect(r.status).toBe(sim ? 'CREATING' : 'ACTIVE');
    const o = await until(provider, clusterActive);
    expect(o.cluster).toMatchObject({
      name: CLUSTER,
      region: REGION,
      version: '1.30',
      health: 'Healthy',
      roleArn: roleArn(account(), 'eks-cluster'),
      subnetIds: ['subnet-a', 'subnet-b'],
      securityGroupIds: ['sg-1'],
      tags: { team: 'platform', [OWNER_TAG]: 'default/conformance' },
    });
    expect(o.cluster?.endpoint).toMatch(/^https:\/\//);
    expect(Date.parse(o.cluster?.createdAt ?? '')).not.toBeNaN();
  });

  it('a retried CreateCluster with the same token creates the cluster once', async () => {
    const op = createClusterOp(account());
    const first = await provider.apply(op);
    const retry = provider.apply(op);
    if (sim) {
      // The simulator replays the first answer, as EKS's idempotency token promises.
      expect(await retry).toEqual(first);
    } else {
      // moto ignores clientRequestToken: the retry is a name conflict, still no second cluster.
      const e = await failure(retry);
      expect(e).toBeInstanceOf(TransientError);
      expect((e as TransientError).code).toBe('ResourceInUseException');
    }
    const list = await provider.clients.forRegion(REGION).send(new ListClustersCommand({}));
    expect(list.clusters).toEqual([CLUSTER]);
  });

  it('a new generation has a new token: a create is then a conflict, never a replay', async () => {
    const gen1 = createClusterOp(account(), 1);
    const gen2 = createClusterOp(account(), 2);
    expect(gen2.clientRequestToken).not.toBe(gen1.clientRequestToken);
    await provider.apply(gen1);
    const e = await failure(provider.apply(gen2));
    expect(e).toBeInstanceOf(TransientError);
    expect((e as TransientError).code).toBe('ResourceInUseException');
  });

  it('CreateNodegroup: one call; instance type, capacity type, scaling, version, role and tags observed', async () => {
    await givenCluster();
    const r = await provider.apply(createNodegroupOp(account()));
    expect(r.arn).toMatch(
      new RegExp(`^arn:aws:eks:${REGION}:${account()}:nodegroup/${CLUSTER}/${NODEGROUP}/`),
    );
    const o = await until(provider, nodegroupActive);
    expect(o.nodegroups).toHaveLength(1);
    expect(o.nodegroups[0]).toMatchObject({
      name: NODEGROUP,
      version: '1.30',
      health: 'Healthy',
      instanceTypes: ['m5.large'],
      capacityType: 'SPOT',
      scaling: { minSize: 1, maxSize: 3, desiredSize: 2 },
      nodeRole: roleArn(account(), 'eks-node'),
      subnets: ['subnet-a'],
      tags: { team: 'platform', [OWNER_TAG]: 'default/conformance', [POOL_TAG]: 'default' },
      labels: {},
      taints: [],
      amiType: 'AL2023_x86_64_STANDARD',
    });
  });

  it('CreateNodegroup with a name already taken is a conflict', async () => {
    await givenNodegroup();
    const e = await failure(provider.apply(createNodegroupOp(account(), '1.30', 2)));
    expect(e).toBeInstanceOf(TransientError);
    expect((e as TransientError).code).toBe('ResourceInUseException');
  });

  it('UpdateNodegroupConfig (scaling): one UpdateNodegroupConfig call that returns an update id', async () => {
    await givenNodegroup();
    const r = await provider.apply(scalingOp(3));
    expect(r.kind).toBe('UpdateNodegroupConfig');
    expect(r.updateId).toMatch(/^[0-9a-f-]{36}$/);
    // moto applies the change at once and answers Successful; the simulator runs it asynchronously.
    expect(r.status).toBe(sim ? 'InProgress' : 'Successful');
    const tracked = sim ? { trackedUpdates: [{ id: r.updateId ?? '', nodegroupName: NODEGROUP }] } : {};
    const o = await until(
      provider,
      (x) => x.nodegroups[0]?.scaling.desiredSize === 3 && !x.nodegroups[0]?.update,
      tracked,
    );
    expect(o.nodegroups[0]?.scaling).toEqual({ minSize: 1, maxSize: 3, desiredSize: 3 });
  });

  it('TagResource and UntagResource on the cluster', async () => {
    const o = await givenCluster();
    const arn = o.cluster?.arn ?? '';
    const base = { clusterName: CLUSTER, region: REGION, resourceArn: arn };
    expect(await provider.apply({ kind: 'TagResource', ...base, tags: { env: 'dev' } })).toEqual({
      kind: 'TagResource',
    });
    expect(await provider.apply({ kind: 'UntagResource', ...base, tagKeys: ['team'] })).toEqual({
      kind: 'UntagResource',
    });
    const after = await provider.observe(ref);
    expect(after.cluster?.tags).toEqual({
      env: 'dev',
      [OWNER_TAG]: 'default/conformance',
      'cloudorch.io/managed-by': 'cloudorch',
    });
  });

  it.runIf(sim)('TagResource on a node group ARN', async () => {
    const o = await givenNodegroup();
    const arn = o.nodegroups[0]?.arn ?? '';
    await provider.apply({
      kind: 'TagResource',
      clusterName: CLUSTER,
      region: REGION,
      resourceArn: arn,
      tags: { env: 'dev' },
    });
    expect((await provider.observe(ref)).nodegroups[0]?.tags).toMatchObject({ env: 'dev', team: 'platform' });
  });

  it.runIf(moto)(
    'moto lacks node group tagging: TagResource on a node group ARN is NotFoundError',
    async () => {
      const o = await givenNodegroup();
      const arn = o.nodegroups[0]?.arn ?? '';
      const e = await failure(
        provider.apply({
          kind: 'TagResource',
          clusterName: CLUSTER,
          region: REGION,
          resourceArn: arn,
          tags: { env: 'dev' },
        }),
      );
      expect(e).toBeInstanceOf(NotFoundError);
    },
  );

  it.runIf(sim)(
    'UpdateClusterVersion, then UpdateNodegroupVersion, each tracked with DescribeUpdate',
    async () => {
      await givenNodegroup();
      const cp = await provider.apply(clusterVersionOp('1.30', '1.31'));
      expect(cp).toMatchObject({ kind: 'UpdateClusterVersion', status: 'InProgress' });
      const trackedCp = { trackedUpdates: [{ id: cp.updateId ?? '' }] };
      const during = await provider.observe(ref, trackedCp);
      expect(during.cluster?.update).toMatchObject({
        id: cp.updateId,
        type: 'VersionUpdate',
        status: 'InProgress',
      });
      const done = await until(
        provider,
        (o) => o.cluster?.version === '1.31' && !o.cluster.update,
        trackedCp,
      );
      expect(done.cluster?.status).toBe('ACTIVE');
      const ng = await provider.apply(nodegroupVersionOp('1.30', '1.31'));
      const trackedNg = { trackedUpdates: [{ id: ng.updateId ?? '', nodegroupName: NODEGROUP }] };
      const after = await until(
        provider,
        (o) => o.nodegroups[0]?.version === '1.31' && !o.nodegroups[0].update,
        trackedNg,
      );
      expect(after.nodegroups[0]?.status).toBe('ACTIVE');
    },
  );

  it.runIf(moto)(
    'moto lacks UpdateClusterVersion and UpdateNodegroupVersion: both throw PermanentError (HTTP 404)',
    async () => {
      await givenNodegroup();
      for (const op of [clusterVersionOp('1.30', '1.31'), nodegroupVersionOp('1.29', '1.30')]) {
        const e = await failure(provider.apply(op));
        expect(e).toBeInstanceOf(PermanentError);
        expect(httpStatus(e)).toBe(404);
      }
      expect((await provider.observe(ref)).cluster?.version).toBe('1.30');
    },
  );

  it.runIf(moto)(
    'moto lacks DescribeUpdate: observe with a tracked update throws PermanentError (HTTP 404)',
    async () => {
      await givenNodegroup();
      const r = await provider.apply(scalingOp(3));
      const e = await failure(
        provider.observe(ref, { trackedUpdates: [{ id: r.updateId ?? '', nodegroupName: NODEGROUP }] }),
      );
      expect(e).toBeInstanceOf(PermanentError);
      expect(httpStatus(e)).toBe(404);
    },
  );

  /**
   * What moto answers a route it lacks, on a cluster it has (made by the SDK, not the provider, whose
   * observe reads more than moto serves): its HTML 404 page, which the SDK cannot parse as EKS's JSON.
   */
  const motoLacks = async (send: (eks: EKSClient) => Promise<unknown>) => {
    const eks = new EKSClient({
      endpoint: target.url,
      region: REGION,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      maxAttempts: 1,
    });
    try {
      await eks.send(
        new CreateClusterCommand({
          name: CLUSTER,
          roleArn: roleArn(account(), 'eks'),
          resourcesVpcConfig: { subnetIds: ['subnet-a'] },
        }),
      );
      expect((await eks.send(new ListClustersCommand({}))).clusters).toEqual([CLUSTER]);
      const e = await failure(send(eks));
      expect(e.name).toBe('SyntaxError');
      expect(e.message).toMatch(/^Unexpected token '<', "<!doctype "\.\.\. is not valid JSON/);
      expect((e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode).toBe(404);
    } finally {
      eks.destroy();
    }
  };

  it.runIf(moto)('moto lacks add-ons: CreateAddon and ListAddons are its HTML 404 page', async () => {
    await motoLacks((eks) =>
      eks.send(new CreateAddonCommand({ clusterName: CLUSTER, addonName: 'vpc-cni' })),
    );
    await target.reset();
    await motoLacks((eks) => eks.send(new ListAddonsCommand({ clusterName: CLUSTER })));
  });

  it.runIf(moto)(
    'moto lacks access entries: CreateAccessEntry and ListAccessEntries are its HTML 404 page',
    async () => {
      await motoLacks((eks) =>
        eks.send(
          new CreateAccessEntryCommand({ clusterName: CLUSTER, principalArn: roleArn(account(), 'dev') }),
        ),
      );
      await target.reset();
      await motoLacks((eks) => eks.send(new ListAccessEntriesCommand({ clusterName: CLUSTER })));
    },
  );

  it('DeleteCluster is refused while node groups exist', async () => {
    await givenNodegroup();
    const e = await failure(provider.apply({ kind: 'DeleteCluster', clusterName: CLUSTER, region: REGION }));
    expect(e).toBeInstanceOf(TransientError);
    expect((e as TransientError).code).toBe('ResourceInUseException');
  });

  it('DeleteNodegroup, then DeleteCluster: both gone', async () => {
    await givenNodegroup();
    const ng = await provider.apply({
      kind: 'DeleteNodegroup',
      clusterName: CLUSTER,
      region: REGION,
      nodegroupName: NODEGROUP,
      reason: 'cluster-deletion',
    });
    // moto removes the group at once and still answers ACTIVE; EKS and the simulator answer DELETING.
    expect(ng.status).toBe(sim ? 'DELETING' : 'ACTIVE');
    await until(provider, (o) => o.nodegroups.length === 0);
    await provider.apply({ kind: 'DeleteCluster', clusterName: CLUSTER, region: REGION });
    const o = await until(provider, (x) => x.cluster === null);
    expect(o.nodegroups).toEqual([]);
  });

  it('deleting or updating what does not exist is NotFoundError', async () => {
    await givenCluster();
    const base = { clusterName: CLUSTER, region: REGION };
    const ops = [
      { kind: 'DeleteNodegroup', ...base, nodegroupName: 'nope', reason: 'pool-removed' } as const,
      { ...scalingOp(3), nodegroupName: 'nope' },
      { kind: 'DeleteCluster', clusterName: 'nope', region: REGION } as const,
    ];
    for (const op of ops) expect(await failure(provider.apply(op))).toBeInstanceOf(NotFoundError);
  });
});
