/**
 * Every EKS rule the simulator enforces rejects what EKS rejects, with EKS's HTTP status, error type
 * and (where a real message is known) EKS's message. Each case first reaches the state the rule is
 * about, so a rule that stopped working fails here instead of passing silently.
 */
import {
  CreateClusterCommand,
  CreateNodegroupCommand,
  DeleteClusterCommand,
  DeleteNodegroupCommand,
  DescribeClusterCommand,
  DescribeNodegroupCommand,
  DescribeUpdateCommand,
  TagResourceCommand,
  UpdateClusterVersionCommand,
  UpdateNodegroupConfigCommand,
  UpdateNodegroupVersionCommand,
} from '@aws-sdk/client-eks';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  activeCluster,
  activeNodegroup,
  clusterInput,
  expectEksError,
  nodegroupInput,
  raw,
  useSimulator,
} from './support.js';

const h = useSimulator();

describe('create validation', () => {
  it.each([
    ['an unsupported version', { version: '1.20' }, /^unsupported Kubernetes version 1\.20$/],
    ['a malformed role ARN', { roleArn: 'eks-role' }, "Invalid Role Arn: 'eks-role'"],
    [
      'fewer than two subnets',
      { resourcesVpcConfig: { subnetIds: ['subnet-a'] } },
      'Subnets specified must be in at least two different AZs',
    ],
    ['a name outside the pattern', { name: '-bad' }, /regular expression pattern/],
    [
      'more than 50 tags',
      { tags: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) },
      /at most 50 tags/,
    ],
  ])('CreateCluster with %s: 400 InvalidParameterException', async (_, over, message) => {
    await expectEksError(
      h.eks.send(new CreateClusterCommand(clusterInput(over))),
      400,
      'InvalidParameterException',
      message,
    );
  });

  it('a cluster name already taken: 409 ResourceInUseException', async () => {
    await h.eks.send(new CreateClusterCommand(clusterInput()));
    await expectEksError(
      h.eks.send(new CreateClusterCommand(clusterInput())),
      409,
      'ResourceInUseException',
      'Cluster already exists with name: c',
    );
  });

  it('a node group name already taken: 409 ResourceInUseException', async () => {
    await activeCluster(h);
    await h.eks.send(new CreateNodegroupCommand(nodegroupInput()));
    await expectEksError(
      h.eks.send(new CreateNodegroupCommand(nodegroupInput({ instanceTypes: ['m5.large'] }))),
      409,
      'ResourceInUseException',
      'NodeGroup already exists with name ng and cluster name c',
    );
  });

  it('a node group on a cluster that is not ACTIVE: 400 InvalidRequestException', async () => {
    await h.eks.send(new CreateClusterCommand(clusterInput()));
    await expectEksError(
      h.eks.send(new CreateNodegroupCommand(nodegroupInput())),
      400,
      'InvalidRequestException',
      "Cluster 'c' is not in ACTIVE status",
    );
  });

  it('a node group at another version than the control plane: 400 InvalidParameterException', async () => {
    await activeCluster(h);
    await expectEksError(
      h.eks.send(new CreateNodegroupCommand(nodegroupInput({ version: '1.31' }))),
      400,
      'InvalidParameterException',
      /Allowed version is 1\.30/,
    );
  });

  it.each([
    [
      'minSize above desiredSize',
      { minSize: 3, maxSize: 4, desiredSize: 2 },
      "minSize can't be greater than desiredSize",
    ],
    [
      'desiredSize above maxSize',
      { minSize: 1, maxSize: 2, desiredSize: 3 },
      "desiredSize can't be greater than maxSize",
    ],
  ])('a node group with %s: 400 InvalidParameterException', async (_, scalingConfig, message) => {
    await activeCluster(h);
    await expectEksError(
      h.eks.send(new CreateNodegroupCommand(nodegroupInput({ scalingConfig }))),
      400,
      'InvalidParameterException',
      message,
    );
  });

  it('the 31st node group of a cluster: 400 ResourceLimitExceededException', async () => {
    await activeCluster(h);
    for (let i = 0; i < 30; i++)
      await h.eks.send(new CreateNodegroupCommand(nodegroupInput({ nodegroupName: `ng${i}` })));
    await expectEksError(
      h.eks.send(new CreateNodegroupCommand(nodegroupInput({ nodegroupName: 'ng30' }))),
      400,
      'ResourceLimitExceededException',
    );
  });
});

describe('control-plane versions', () => {
  it.each([
    ['a skipped minor', '1.32'],
    ['a downgrade', '1.29'],
    ['the current version (a no-op)', '1.30'],
  ])('%s: 400 InvalidParameterException', async (_, version) => {
    await activeCluster(h);
    await expectEksError(
      h.eks.send(new UpdateClusterVersionCommand({ name: 'c', version })),
      400,
      'InvalidParameterException',
      `Unsupported Kubernetes minor version update from 1.30 to ${version}`,
    );
  });

  it('a node group behind the control plane blocks its next step (strict-match): 400 InvalidParameterException', async () => {
    await activeCluster(h);
    await activeNodegroup(h);
    await h.admin.driftCluster('c', { version: '1.31' });
    await expectEksError(
      h.eks.send(new UpdateClusterVersionCommand({ name: 'c', version: '1.32' })),
      400,
      'InvalidParameterException',
      'Nodegroups ng must be updated to match cluster version 1.31 before updating cluster version',
    );
  });

  it('an update before the cluster is ACTIVE: 400 InvalidRequestException', async () => {
    await h.eks.send(new CreateClusterCommand(clusterInput()));
    await expectEksError(
      h.eks.send(new UpdateClusterVersionCommand({ name: 'c', version: '1.31' })),
      400,
      'InvalidRequestException',
    );
  });

  it('a second update while one is in progress, even while the status still reads ACTIVE: 409', async () => {
    await activeCluster(h);
    const first = await h.eks.send(new UpdateClusterVersionCommand({ name: 'c', version: '1.31' }));
    expect((await h.eks.send(new DescribeClusterCommand({ name: 'c' }))).cluster?.status).toBe('ACTIVE');
    await expectEksError(
      h.eks.send(new UpdateClusterVersionCommand({ name: 'c', version: '1.31' })),
      409,
      'ResourceInUseException',
      `Cannot VersionUpdate because cluster c currently has update ${first.update?.id} in progress`,
    );
  });
});

describe('node group updates', () => {
  beforeEach(async () => {
    await activeCluster(h);
    await activeNodegroup(h);
  });

  it.each([
    ['above the control plane', '1.31', /can't be greater than cluster version 1\.30/],
    ['a downgrade', '1.29', /can't be downgraded/],
    ['the current version (a no-op)', '1.30', /already at version 1\.30/],
  ])('UpdateNodegroupVersion %s: 400 InvalidParameterException', async (_, version, message) => {
    await expectEksError(
      h.eks.send(new UpdateNodegroupVersionCommand({ clusterName: 'c', nodegroupName: 'ng', version })),
      400,
      'InvalidParameterException',
      message,
    );
  });

  it.each([
    [
      'an immutable field (instanceTypes)',
      { instanceTypes: ['m5.large'] },
      /instanceTypes cannot be updated/,
    ],
    [
      'an immutable field (capacityType)',
      { capacityType: 'SPOT', scalingConfig: { desiredSize: 3 } },
      /capacityType cannot be updated/,
    ],
    [
      'a version mixed with config',
      { version: '1.31', scalingConfig: { desiredSize: 3 } },
      'Version and ReleaseVersion updates cannot be combined with other updates',
    ],
    ['nothing to update', {}, 'The type for nodegroup update was not provided.'],
    [
      'the current scaling (a no-op)',
      { scalingConfig: { minSize: 1, maxSize: 3, desiredSize: 2 } },
      /No changes needed/,
    ],
    [
      'minSize above desiredSize',
      { scalingConfig: { minSize: 3 } },
      "Minimum capacity 3 can't be greater than desired size 2",
    ],
    [
      'desiredSize above maxSize',
      { scalingConfig: { desiredSize: 4 } },
      "desiredSize can't be greater than maxSize",
    ],
  ])('UpdateNodegroupConfig with %s: 400 InvalidParameterException', async (_, body, message) => {
    const r = await raw(h, 'POST', '/clusters/c/node-groups/ng/update-config', body);
    expect(r.status).toBe(400);
    expect(r.type).toBe('InvalidParameterException');
    expect(r.body.message).toMatch(message);
    expect(r.body).toMatchObject({ clusterName: 'c', nodegroupName: 'ng' });
  });

  it('a second node group update while one is in progress: 409 ResourceInUseException', async () => {
    const first = await h.eks.send(
      new UpdateNodegroupConfigCommand({
        clusterName: 'c',
        nodegroupName: 'ng',
        scalingConfig: { desiredSize: 3 },
      }),
    );
    await expectEksError(
      h.eks.send(
        new UpdateNodegroupVersionCommand({
          clusterName: 'c',
          nodegroupName: 'ng',
          version: '1.30',
          releaseVersion: '1.30.0-20260101',
        }),
      ),
      409,
      'ResourceInUseException',
      `Cannot VersionUpdate because nodegroup ng currently has update ${first.update?.id} in progress`,
    );
  });
});

describe('deletion and missing resources', () => {
  it('DeleteCluster while node groups exist, even DELETING ones: 409 ResourceInUseException', async () => {
    await activeCluster(h);
    await activeNodegroup(h);
    await expectEksError(
      h.eks.send(new DeleteClusterCommand({ name: 'c' })),
      409,
      'ResourceInUseException',
      'Cluster has nodegroups attached',
    );
    await h.eks.send(new DeleteNodegroupCommand({ clusterName: 'c', nodegroupName: 'ng' }));
    await expectEksError(
      h.eks.send(new DeleteClusterCommand({ name: 'c' })),
      409,
      'ResourceInUseException',
      'Cluster has nodegroups attached',
    );
  });

  it('missing cluster, node group and update: 404 ResourceNotFoundException', async () => {
    await expectEksError(
      h.eks.send(new DescribeClusterCommand({ name: 'x' })),
      404,
      'ResourceNotFoundException',
      'No cluster found for name: x.',
    );
    await expectEksError(
      h.eks.send(new DeleteClusterCommand({ name: 'x' })),
      404,
      'ResourceNotFoundException',
    );
    await activeCluster(h);
    await expectEksError(
      h.eks.send(new DescribeNodegroupCommand({ clusterName: 'c', nodegroupName: 'x' })),
      404,
      'ResourceNotFoundException',
      'No node group found for name: x.',
    );
    await expectEksError(
      h.eks.send(new DescribeUpdateCommand({ name: 'c', updateId: 'nope' })),
      404,
      'ResourceNotFoundException',
    );
  });
});

describe('tagging uses its own error types', () => {
  it('an unknown ARN: 404 NotFoundException; a malformed one: 400 BadRequestException', async () => {
    await expectEksError(
      h.eks.send(
        new TagResourceCommand({
          resourceArn: 'arn:aws:eks:us-east-1:000000000000:cluster/none',
          tags: { a: 'b' },
        }),
      ),
      404,
      'NotFoundException',
    );
    await expectEksError(
      h.eks.send(new TagResourceCommand({ resourceArn: 'not-an-arn', tags: { a: 'b' } })),
      400,
      'BadRequestException',
    );
  });

  it('empty tags, empty keys, reserved prefixes and more than 50 tags: 400 BadRequestException', async () => {
    await activeCluster(h);
    const arn = encodeURIComponent('arn:aws:eks:us-east-1:000000000000:cluster/c');
    const tooMany = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
    for (const [method, path, body] of [
      ['POST', `/tags/${arn}`, { tags: {} }],
      ['POST', `/tags/${arn}`, { tags: { 'aws:x': 'y' } }],
      ['POST', `/tags/${arn}`, { tags: tooMany }],
      ['DELETE', `/tags/${arn}`, undefined],
    ] as const) {
      const r = await raw(h, method, path, body);
      expect([r.status, r.type]).toEqual([400, 'BadRequestException']);
    }
  });
});

describe('idempotency tokens', () => {
  it('the same token and parameters replay the first answer; other parameters are refused', async () => {
    await activeCluster(h);
    const input = { name: 'c', version: '1.31', clientRequestToken: 'tok-1' };
    const a = await h.eks.send(new UpdateClusterVersionCommand(input));
    // A replay is not a second update: no 409, the same update id.
    const b = await h.eks.send(new UpdateClusterVersionCommand(input));
    expect(b.update?.id).toBe(a.update?.id);
    await expectEksError(
      h.eks.send(new UpdateClusterVersionCommand({ ...input, version: '1.32' })),
      400,
      'InvalidParameterException',
      /already used with different parameters/,
    );
  });
});
