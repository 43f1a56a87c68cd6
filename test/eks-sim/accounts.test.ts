/**
 * Several accounts: the SDK's own credential path (fromTemporaryCredentials -> STS AssumeRole on the
 * simulator, then SigV4-signed EKS calls with the issued keys) acts in the role's account; any other
 * key acts in the default account, as before.
 */
import {
  CreateClusterCommand,
  CreateNodegroupCommand,
  DescribeClusterCommand,
  EKSClient,
  ListClustersCommand,
  ListTagsForResourceCommand,
} from '@aws-sdk/client-eks';
import { fromTemporaryCredentials } from '@aws-sdk/credential-providers';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_DURATIONS } from '../../local/eks-sim/model.js';
import { clusterInput, expectEksError, nodegroupInput, REGION, useSimulator } from './support.js';

const h = useSimulator();
const B = '222222222222';
const C = '333333333333';
const roleB = `arn:aws:iam::${B}:role/cloudorch-apply`;

const opened: EKSClient[] = [];
afterEach(() => {
  for (const c of opened.splice(0)) c.destroy();
});

/** An EKS client whose credentials come from assuming `roleArn` through the simulator's STS. */
function assumed(roleArn: string, externalId?: string, region = REGION): EKSClient {
  const client = new EKSClient({
    endpoint: h.sim.url,
    region,
    maxAttempts: 1,
    credentials: fromTemporaryCredentials({
      params: {
        RoleArn: roleArn,
        RoleSessionName: 'cloudorch',
        ...(externalId ? { ExternalId: externalId } : {}),
      },
      masterCredentials: { accessKeyId: 'x', secretAccessKey: 'x' },
      clientConfig: { endpoint: h.sim.url, region, maxAttempts: 1 },
    }),
  });
  opened.push(client);
  return client;
}

const list = async (client: EKSClient) => (await client.send(new ListClustersCommand({}))).clusters;

/** A raw STS query-protocol request signed (unverified) with `accessKeyId`. */
async function sts(form: Record<string, string>, accessKeyId = 'x') {
  const res = await fetch(h.sim.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
      authorization: `AWS4-HMAC-SHA256 Credential=${accessKeyId}/20260101/${REGION}/sts/aws4_request, SignedHeaders=host, Signature=0`,
    },
    body: new URLSearchParams({ Version: '2011-06-15', ...form }).toString(),
  });
  return { status: res.status, type: res.headers.get('content-type'), xml: await res.text() };
}

const tag = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];

describe('a role in another account', () => {
  it('its credentials create a cluster in that account, invisible to the default account and back', async () => {
    await h.admin.createRole(B, 'cloudorch-apply');
    const b = assumed(roleB);
    const created = await b.send(new CreateClusterCommand(clusterInput({ name: 'in-b' })));
    expect(created.cluster?.arn).toBe(`arn:aws:eks:${REGION}:${B}:cluster/in-b`);
    await h.eks.send(new CreateClusterCommand(clusterInput({ name: 'in-default' })));

    expect(await list(b)).toEqual(['in-b']);
    expect(await list(h.eks)).toEqual(['in-default']);
    await expectEksError(
      h.eks.send(new DescribeClusterCommand({ name: 'in-b' })),
      404,
      'ResourceNotFoundException',
    );
    await expectEksError(
      b.send(new DescribeClusterCommand({ name: 'in-default' })),
      404,
      'ResourceNotFoundException',
    );
  });

  it('the same cluster name coexists in two accounts, each with its own ARNs', async () => {
    await h.admin.createRole(B, 'cloudorch-apply');
    const b = assumed(roleB);
    await b.send(new CreateClusterCommand(clusterInput({ name: 'c', tags: { who: 'b' } })));
    await h.eks.send(new CreateClusterCommand(clusterInput({ name: 'c', tags: { who: 'default' } })));
    await h.admin.advance(DEFAULT_DURATIONS.clusterCreate);

    const inB = (await b.send(new DescribeClusterCommand({ name: 'c' }))).cluster;
    const inDefault = (await h.eks.send(new DescribeClusterCommand({ name: 'c' }))).cluster;
    expect([inB?.tags, inDefault?.tags]).toEqual([{ who: 'b' }, { who: 'default' }]);
    expect(inDefault?.arn).toBe(`arn:aws:eks:${REGION}:000000000000:cluster/c`);

    const ng = await b.send(new CreateNodegroupCommand(nodegroupInput()));
    expect(ng.nodegroup?.nodegroupArn).toMatch(new RegExp(`^arn:aws:eks:${REGION}:${B}:nodegroup/c/ng/`));
    // Another account's ARN is not found from here, as in EKS.
    await expectEksError(
      h.eks.send(new ListTagsForResourceCommand({ resourceArn: inB?.arn as string })),
      404,
      'NotFoundException',
    );
    expect((await b.send(new ListTagsForResourceCommand({ resourceArn: inB?.arn as string }))).tags).toEqual({
      who: 'b',
    });
  });

  it('a missing role is AccessDenied, naming the caller and the role', async () => {
    const e = await expectEksError(list(assumed(roleB)), 403, 'AccessDenied');
    expect(e.message).toBe(
      `User: arn:aws:sts::000000000000:assumed-role/eks-sim-caller/eks-sim is not authorized to perform: sts:AssumeRole on resource: ${roleB}`,
    );
  });

  it('a deleted role can no longer be assumed', async () => {
    await h.admin.createRole(B, 'cloudorch-apply');
    await h.admin.deleteRole(B, 'cloudorch-apply');
    await expectEksError(list(assumed(roleB)), 403, 'AccessDenied');
    await expect(h.admin.deleteRole(B, 'cloudorch-apply')).rejects.toMatchObject({ status: 404 });
  });

  it('a role requiring an ExternalId refuses a wrong or missing one and accepts the right one', async () => {
    await h.admin.createRole(B, 'cloudorch-apply', { externalId: 'fleet-7' });
    await expectEksError(list(assumed(roleB, 'fleet-8')), 403, 'AccessDenied', /sts:AssumeRole/);
    await expectEksError(list(assumed(roleB)), 403, 'AccessDenied');
    expect(await list(assumed(roleB, 'fleet-7'))).toEqual([]);
  });

  it('each account has its own cluster quota per region', async () => {
    await h.admin.createRole(B, 'r');
    await h.admin.setClusterQuota(B, 1);
    const b = assumed(`arn:aws:iam::${B}:role/r`);
    await b.send(new CreateClusterCommand(clusterInput({ name: 'one' })));
    await expectEksError(
      b.send(new CreateClusterCommand(clusterInput({ name: 'two' }))),
      400,
      'ResourceLimitExceededException',
    );
    // Another region of B, and the default account, are not affected.
    await assumed(`arn:aws:iam::${B}:role/r`, undefined, 'eu-west-1').send(
      new CreateClusterCommand(clusterInput({ name: 'two' })),
    );
    await h.eks.send(new CreateClusterCommand(clusterInput({ name: 'two' })));
    const accounts = await h.admin.accounts();
    expect(accounts.map((a) => [a.account, a.clustersPerRegion, a.clusters])).toEqual([
      ['000000000000', 100, { [REGION]: 1 }],
      [B, 1, { [REGION]: 1, 'eu-west-1': 1 }],
    ]);
  });
});

describe('the admin API per account', () => {
  it("forAccount drifts, fails and removes that account's cluster, not the default's of the same name", async () => {
    await h.admin.createRole(B, 'r');
    const b = assumed(`arn:aws:iam::${B}:role/r`);
    await b.send(new CreateClusterCommand(clusterInput()));
    await h.eks.send(new CreateClusterCommand(clusterInput()));
    const adminB = h.admin.forAccount(B);
    await adminB.driftCluster('c', { tags: { drifted: 'yes' } });
    expect((await b.send(new DescribeClusterCommand({ name: 'c' }))).cluster?.tags).toEqual({
      drifted: 'yes',
    });
    expect((await h.eks.send(new DescribeClusterCommand({ name: 'c' }))).cluster?.tags).toEqual({});

    const snapshot = (await (await fetch(`${h.sim.url}/_sim/state`)).json()) as {
      clusters: { account?: string; name: string }[];
    };
    expect(snapshot.clusters.map((c) => [c.account, c.name])).toEqual([
      [B, 'c'],
      [undefined, 'c'],
    ]);

    await adminB.vanishCluster('c');
    expect(await list(b)).toEqual([]);
    expect(await list(h.eks)).toEqual(['c']);
    await expect(h.admin.forAccount('nope').driftCluster('c', {})).rejects.toMatchObject({ status: 400 });
  });
});

describe('STS on the wire', () => {
  it('AssumeRole answers XML credentials that expire DurationSeconds later on the simulator clock', async () => {
    await h.admin.createRole(C, 'reader');
    const before = h.sim.state.now();
    const r = await sts({
      Action: 'AssumeRole',
      RoleArn: `arn:aws:iam::${C}:role/reader`,
      RoleSessionName: 'sweep',
      DurationSeconds: '900',
    });
    expect(r.status).toBe(200);
    expect(r.type).toBe('text/xml');
    expect(r.xml).toMatch(/^<AssumeRoleResponse xmlns="https:\/\/sts\.amazonaws\.com\/doc\/2011-06-15\/">/);
    expect(tag(r.xml, 'AccessKeyId')).toMatch(/^ASIA[0-9A-F]{16}$/);
    expect(tag(r.xml, 'Arn')).toBe(`arn:aws:sts::${C}:assumed-role/reader/sweep`);
    expect(tag(r.xml, 'AssumedRoleId')).toMatch(/^AROA[0-9A-F]{16}:sweep$/);
    const expires = Date.parse(tag(r.xml, 'Expiration') as string);
    expect(expires - before).toBeGreaterThanOrEqual(899_000);
    expect(expires - before).toBeLessThanOrEqual(901_000);

    const who = await sts({ Action: 'GetCallerIdentity' }, tag(r.xml, 'AccessKeyId'));
    expect([tag(who.xml, 'Account'), tag(who.xml, 'Arn')]).toEqual([
      C,
      `arn:aws:sts::${C}:assumed-role/reader/sweep`,
    ]);
    const calls = await h.admin.calls();
    expect([calls.AssumeRole?.succeeded, calls.GetCallerIdentity?.succeeded]).toEqual([1, 1]);
  });

  it('errors are ErrorResponse XML with the HTTP status of their code', async () => {
    await h.admin.createRole(C, 'reader');
    const denied = await sts({
      Action: 'AssumeRole',
      RoleArn: `arn:aws:iam::${C}:role/nope`,
      RoleSessionName: 's' + 's',
    });
    expect(denied.status).toBe(403);
    expect(denied.xml).toMatch(
      /^<ErrorResponse xmlns="[^"]+"><Error><Type>Sender<\/Type><Code>AccessDenied<\/Code><Message>/,
    );
    const long = await sts({
      Action: 'AssumeRole',
      RoleArn: `arn:aws:iam::${C}:role/reader`,
      RoleSessionName: 'ss',
      DurationSeconds: '7200',
    });
    expect([long.status, tag(long.xml, 'Code')]).toEqual([400, 'ValidationError']);
    const missing = await sts({ Action: 'AssumeRole', RoleSessionName: 'ss' });
    expect([missing.status, tag(missing.xml, 'Code')]).toEqual([400, 'MissingParameter']);
    const unknown = await sts({ Action: 'AssumeRoleWithSAML' });
    expect([unknown.status, tag(unknown.xml, 'Code')]).toEqual([400, 'InvalidAction']);
    expect((await h.admin.calls()).AssumeRole?.rejected).toBe(3);
  });

  it('the admin API refuses a malformed account or role name', async () => {
    await expect(h.admin.createRole('12', 'r')).rejects.toMatchObject({ status: 400 });
    await expect(h.admin.createRole(B, 'bad name')).rejects.toMatchObject({ status: 400 });
    await expect(h.admin.setClusterQuota(B, -1)).rejects.toMatchObject({ status: 400 });
  });
});

describe('the default account', () => {
  it('a key the simulator did not issue acts in the default account, with the configured quota', async () => {
    const other = new EKSClient({
      endpoint: h.sim.url,
      region: REGION,
      maxAttempts: 1,
      credentials: { accessKeyId: 'ASIAUNKNOWN000000000', secretAccessKey: 'x' },
    });
    opened.push(other);
    await h.eks.send(new CreateClusterCommand(clusterInput({ name: 'shared' })));
    expect(await list(other)).toEqual(['shared']);
  });
});

describe('a configured quota', () => {
  const small = useSimulator({ clustersPerRegion: 1 });
  it('applies to every account without its own', async () => {
    await small.eks.send(new CreateClusterCommand(clusterInput({ name: 'one' })));
    await expectEksError(
      small.eks.send(new CreateClusterCommand(clusterInput({ name: 'two' }))),
      400,
      'ResourceLimitExceededException',
    );
  });
});
