/**
 * Pipeline scenarios: the real handlers, the real state machine definition on the local Step
 * Functions endpoint, the real store on a DynamoDB-compatible server, the real EKS provider against
 * the EKS simulator. Each asserts on the simulator's state, the record's status and the call counts.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { CreateClusterCommand, EKSClient } from '@aws-sdk/client-eks';
import { SFNClient, StopExecutionCommand } from '@aws-sdk/client-sfn';
import { beforeEach, describe, expect, it } from 'vitest';
import { OWNER_TAG, RELEASED_TAG } from '../../lambdas/core/ownership.js';
import { onDriftEvent } from '../../lambdas/handlers/triggers/drift-event.js';
import { onChange } from '../../lambdas/handlers/triggers/on-change.js';
import { reconcileNow } from '../../lambdas/handlers/triggers/reconcile-now.js';
import type { CallCounts } from '../../local/eks-sim/index.js';
import { LOCAL_ACCOUNT, LOCAL_DEFAULTS } from '../../local/runtime/control-plane.js';
import {
  applyAndSettle,
  condition,
  type Harness,
  mutating,
  spec,
  statusOf,
  total,
  useHarness,
} from './support.js';

const figures: string[] = [];
const { harness, metrics } = useHarness(
  { config: { ownRoleArns: ['arn:aws:iam::000000000000:role/cloudorch'] } },
  () => console.log(`EKS calls per scenario:\n${figures.join('\n')}`),
);
let h: Harness;
beforeEach(() => {
  h = harness();
});

const sim = () => h.cp.simAdmin;
const describeCluster = async (name: string) => {
  const eks = new EKSClient({
    endpoint: h.cp.endpoints.eks,
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
  });
  const { DescribeClusterCommand, ListNodegroupsCommand, DescribeNodegroupCommand } = await import(
    '@aws-sdk/client-eks'
  );
  try {
    const c = (await eks.send(new DescribeClusterCommand({ name }))).cluster!;
    const names = (await eks.send(new ListNodegroupsCommand({ clusterName: name }))).nodegroups ?? [];
    const ngs = await Promise.all(
      names.map(
        async (n) =>
          (await eks.send(new DescribeNodegroupCommand({ clusterName: name, nodegroupName: n }))).nodegroup!,
      ),
    );
    return { cluster: c, nodegroups: ngs };
  } catch (e) {
    if ((e as Error).name === 'ResourceNotFoundException') return undefined;
    throw e;
  } finally {
    eks.destroy();
  }
};
async function record(name: string): Promise<CallCounts> {
  const calls = await sim().calls();
  figures.push(`  ${name}: ${total(calls)} calls, mutating ${JSON.stringify(mutating(calls))}`);
  return calls;
}

describe('pipeline scenarios', () => {
  it('create from nothing -> Ready, observed fields match the spec', async () => {
    await applyAndSettle(h, 'team/create', spec('create', { nodeCount: 3, instanceType: 't3.large' }));
    const st = await statusOf(h, 'team/create');
    expect(st).toMatchObject({ ready: true, synced: true, observedGeneration: 1 });
    expect(st?.observed).toMatchObject({ version: '1.34', nodeCount: 3, health: 'Healthy' });
    expect(st?.observed?.arn).toBe(`arn:aws:eks:us-east-1:${LOCAL_ACCOUNT}:cluster/create`);
    const eks = await describeCluster('create');
    // The status names the node group that serves the (only, flat-field) pool.
    expect(st?.observed?.pools?.[0]?.nodegroup).toBe(eks?.nodegroups[0]?.nodegroupName);
    expect(st?.observed?.pools?.[0]?.nodegroup).toBeTruthy();
    expect(eks?.cluster.tags?.[OWNER_TAG]).toBe('team/create');
    expect(eks?.nodegroups.map((n) => [n.instanceTypes, n.scalingConfig?.desiredSize])).toEqual([
      [['t3.large'], 3],
    ]);
    expect(mutating(await record('create from nothing'))).toEqual({ CreateCluster: 1, CreateNodegroup: 1 });
  });

  it('scale up and down', async () => {
    await applyAndSettle(h, 'team/scale', spec('scale'));
    await sim().resetCalls();
    await applyAndSettle(h, 'team/scale', spec('scale', { nodeCount: 5 }));
    expect((await describeCluster('scale'))?.nodegroups[0]?.scalingConfig).toMatchObject({
      desiredSize: 5,
      minSize: 5,
      maxSize: 5,
    });
    await applyAndSettle(h, 'team/scale', spec('scale', { nodeCount: 1 }));
    expect((await describeCluster('scale'))?.nodegroups[0]?.scalingConfig).toMatchObject({ desiredSize: 1 });
    const st = await statusOf(h, 'team/scale');
    expect(st).toMatchObject({ ready: true, observedGeneration: 3, observed: { nodeCount: 1 } });
    expect(mutating(await record('scale up and down'))).toEqual({ UpdateNodegroupConfig: 2 });
  });

  it('instance type change -> new node group, old one deleted, no capacity gap', async () => {
    await applyAndSettle(h, 'team/resize', spec('resize'));
    const before = (await describeCluster('resize'))!.nodegroups[0]!.nodegroupName;
    await sim().resetCalls();
    await applyAndSettle(h, 'team/resize', spec('resize', { instanceType: 'm6i.large' }));
    const after = (await describeCluster('resize'))!.nodegroups;
    expect(after.map((n) => n.instanceTypes)).toEqual([['m6i.large']]);
    expect(after[0]!.nodegroupName).not.toBe(before);
    const history = (await h.cp.store.get('team/resize'))!
      .history!.filter((e) => e.kind === 'operation')
      .map((e) => e.summary.split(' ')[0]);
    // The new group was created (and became ACTIVE) before the old one was deleted.
    expect(history.slice(-2)).toEqual(['CreateNodegroup', 'DeleteNodegroup']);
    expect(mutating(await record('instance type change'))).toEqual({
      CreateNodegroup: 1,
      DeleteNodegroup: 1,
    });
  });

  it('1.29 -> 1.31 in order: CP 1.30, NG 1.30, CP 1.31, NG 1.31', async () => {
    // A day on which 1.29 to 1.31 are all supported by EKS (and so allowed by the version policy).
    h.clock.now = new Date('2025-06-01T00:00:00Z');
    await applyAndSettle(h, 'team/upgrade', spec('upgrade', { kubernetesVersion: '1.29' }));
    expect(await statusOf(h, 'team/upgrade')).toMatchObject({ ready: true });
    await sim().resetCalls();
    await applyAndSettle(h, 'team/upgrade', spec('upgrade', { kubernetesVersion: '1.31' }));
    const ops = (await h.cp.store.get('team/upgrade'))!
      .history!.filter((e) => e.kind === 'operation' && e.generation === 2)
      .map((e) => e.summary.replace(/ node group \S+/, ' node group'));
    expect(ops).toEqual([
      'UpdateClusterVersion upgrade control plane 1.29 -> 1.30',
      'UpdateNodegroupVersion upgrade node group (pool default) 1.29 -> 1.30',
      'UpdateClusterVersion upgrade control plane 1.30 -> 1.31',
      'UpdateNodegroupVersion upgrade node group (pool default) 1.30 -> 1.31',
    ]);
    const eks = await describeCluster('upgrade');
    expect([eks?.cluster.version, eks?.nodegroups[0]?.version]).toEqual(['1.31', '1.31']);
    expect(mutating(await record('1.29 -> 1.31'))).toEqual({
      UpdateClusterVersion: 2,
      UpdateNodegroupVersion: 2,
    });
  });

  it('tags added and removed', async () => {
    await applyAndSettle(
      h,
      'team/tags',
      spec('tags', { tags: { team: 'platform', environment: 'dev', stale: 'x' } }),
    );
    await sim().resetCalls();
    await applyAndSettle(
      h,
      'team/tags',
      spec('tags', { tags: { team: 'platform', environment: 'dev', owner: 'ana' } }),
    );
    const eks = await describeCluster('tags');
    for (const tags of [eks?.cluster.tags, eks?.nodegroups[0]?.tags]) {
      expect(tags).toMatchObject({
        team: 'platform',
        environment: 'dev',
        owner: 'ana',
        [OWNER_TAG]: 'team/tags',
      });
      expect(tags).not.toHaveProperty('stale');
    }
    expect(mutating(await record('tags added and removed'))).toEqual({ TagResource: 2, UntagResource: 2 });
  });

  it('out-of-band drift is detected and corrected by the sweep', async () => {
    await applyAndSettle(h, 'team/drift', spec('drift', { nodeCount: 2 }));
    const before = (await describeCluster('drift'))!.nodegroups[0]!;
    // Someone scales the group by hand and adds a tag of their own.
    await sim().driftNodegroup('drift', before.nodegroupName!, {
      scaling: { desiredSize: 6, maxSize: 6 },
      tags: { ...before.tags, rogue: 'yes' },
    });
    await sim().resetCalls();
    const report = await h.cp.sweepNow();
    expect(report.started).toBeGreaterThanOrEqual(1);
    await h.cp.settle();
    const eks = await describeCluster('drift');
    expect(eks?.nodegroups[0]?.scalingConfig).toMatchObject({ desiredSize: 2, maxSize: 2 });
    expect(eks?.nodegroups[0]?.tags).not.toHaveProperty('rogue');
    const st = await statusOf(h, 'team/drift');
    expect(st?.ready).toBe(true);
    expect(condition(st, 'Drifted')?.status).toBe('False');
    expect(st?.lastDrift?.map((d) => d.field)).toEqual(
      expect.arrayContaining(['nodeGroups[default].nodeCount', 'nodeGroups[default].maxSize']),
    );
    expect(metrics.filter((m) => m.name === 'DriftDetected')).toHaveLength(1);
    expect(mutating(await record('drift corrected by the sweep'))).toEqual({
      UpdateNodegroupConfig: 1,
      UntagResource: 1,
    });
  });

  it("a drift event reconciles at once; CloudOrch's own calls are ignored", async () => {
    await applyAndSettle(h, 'team/event', spec('event'));
    const ng = (await describeCluster('event'))!.nodegroups[0]!.nodegroupName!;
    await sim().driftNodegroup('event', ng, { scaling: { desiredSize: 4, maxSize: 4 } });
    const event = (caller: string) => ({
      detail: {
        eventSource: 'eks.amazonaws.com',
        eventName: 'UpdateNodegroupConfig',
        awsRegion: 'us-east-1',
        userIdentity: { arn: caller },
        requestParameters: { clusterName: 'event' },
      },
    });
    expect(await onDriftEvent(event('arn:aws:iam::000000000000:role/cloudorch'))).toEqual({
      started: false,
      why: 'made by CloudOrch itself',
    });
    await sim().resetCalls();
    const r = await onDriftEvent(event('arn:aws:iam::000000000000:user/bob'));
    expect(r.started).toBe(true);
    await h.cp.settle();
    expect((await describeCluster('event'))?.nodegroups[0]?.scalingConfig?.desiredSize).toBe(2);
    expect(mutating(await record('drift event'))).toEqual({ UpdateNodegroupConfig: 1 });
  });

  it('policy denial -> no mutating call, PolicyViolation, ready false after an earlier success', async () => {
    await applyAndSettle(h, 'team/deny', spec('deny'));
    expect((await statusOf(h, 'team/deny'))?.ready).toBe(true);
    await sim().resetCalls();
    // Dropping the required `team` tag would be an UntagResource: the policy denies the plan.
    await applyAndSettle(h, 'team/deny', spec('deny', { tags: { environment: 'dev' } }));
    const st = await statusOf(h, 'team/deny');
    expect(st).toMatchObject({ ready: false, synced: false });
    expect(condition(st, 'Ready')).toMatchObject({ status: 'False', reason: 'PolicyViolation' });
    expect(condition(st, 'PolicyCompliant')?.status).toBe('False');
    expect(st?.remediation).toMatch(/policies/);
    expect(st?.violations?.map((v) => v.rule)).toContain('required-tags');
    expect(metrics.some((m) => m.name === 'PolicyDenials')).toBe(true);
    expect(mutating(await record('policy denial'))).toEqual({});
  });

  it('invalid spec -> zero EKS calls, SpecInvalid with a hint', async () => {
    const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
    const ddb = new DynamoDBClient({
      endpoint: h.cp.endpoints.dynamodb,
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
    // Written behind the validating API (an older writer, or a hand edit), as a raw item.
    await ddb.send(
      new PutItemCommand({
        TableName: 'cloudorch-desired-state',
        Item: {
          id: { S: 'team/invalid' },
          spec: {
            M: {
              provider: { S: 'gcp' },
              region: { S: 'us-east-1' },
              clusterName: { S: 'invalid' },
              kubernetesVersion: { S: '1.34' },
              nodeCount: { N: '-1' },
              instanceType: { S: 't3.medium' },
            },
          },
          specHash: { S: 'x' },
          generation: { N: '1' },
          version: { N: '1' },
          createdAt: { S: new Date().toISOString() },
        },
      }),
    );
    ddb.destroy();
    await h.cp.reconcile('team/invalid');
    const st = await statusOf(h, 'team/invalid');
    expect(condition(st, 'Ready')).toMatchObject({ status: 'False', reason: 'SpecInvalid' });
    expect(condition(st, 'Ready')?.message).toMatch(
      /spec.provider.*spec.nodeCount|spec.nodeCount.*spec.provider/,
    );
    expect(st?.remediation).toMatch(/Fix the named fields/);
    expect(total(await record('invalid spec'))).toBe(0);
  });

  it('30% throttling -> converges within the documented call bound', async () => {
    const faults = Object.fromEntries(
      [
        'DescribeCluster',
        'ListNodegroups',
        'DescribeNodegroup',
        'CreateCluster',
        'CreateNodegroup',
        'DescribeUpdate',
        'ListUpdates',
      ].map((op) => [op, { throttleFraction: 0.3 }]),
    );
    await sim().setFaults(faults);
    await applyAndSettle(h, 'team/throttled', spec('throttled'));
    expect(await statusOf(h, 'team/throttled')).toMatchObject({ ready: true });
    const calls = await record('30% throttling');
    expect(mutating(calls)).toEqual({ CreateCluster: 1, CreateNodegroup: 1 });
    expect(total(calls)).toBeLessThanOrEqual(THROTTLED_CREATE_CALL_BOUND);
    // Every throttled answer was seen and counted (the dashboard's and CloudWatch's throttle panel).
    const throttled = Object.values(calls).reduce((n, c) => n + c.throttled, 0);
    expect(throttled).toBeGreaterThan(0);
    expect(metrics.filter((m) => m.name === 'EksThrottled').length).toBe(throttled);
  });

  it('a crash between apply and status write -> the next run converges with no duplicate create', async () => {
    const id = 'team/crash';
    const provider = h.cp.deps.provider;
    const apply = provider.apply.bind(provider);
    let crashed: { owner: string; arn: string } | undefined;
    // The execution dies right after EKS accepted CreateCluster: no status write, the lease stays.
    provider.apply = async (op) => {
      const r = await apply(op);
      if (op.kind === 'CreateCluster' && !crashed) {
        const running = h.cp.sfn
          .executions({ status: 'RUNNING' })
          .find((e) => e.name.startsWith('team_crash'))!;
        crashed = { owner: running.name, arn: running.executionArn };
        const sfn = new SFNClient({
          endpoint: h.cp.endpoints.sfn,
          region: 'us-east-1',
          credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
        });
        await sfn.send(new StopExecutionCommand({ executionArn: running.executionArn, error: 'Crash' }));
        sfn.destroy();
        throw new Error('process died');
      }
      return r;
    };
    try {
      await applyAndSettle(h, id, spec('crash'));
    } finally {
      provider.apply = apply;
    }
    const afterCrash = await h.cp.store.get(id);
    expect(afterCrash?.lease?.owner).toBe(crashed?.owner);
    expect(afterCrash?.intent).toMatchObject({ operation: 'CreateCluster' });
    expect(afterCrash?.status?.ready ?? false).toBe(false);
    // Time passes: the dead execution's lease expires and the sweep takes over.
    await h.cp.store.acquireLease(id, crashed!.owner, 1, new Date(Date.now() - 60_000));
    const report = await h.cp.sweepNow();
    expect(report.reasons['dead execution (lease expired)']).toBe(1);
    await h.cp.settle();
    expect(await statusOf(h, id)).toMatchObject({ ready: true });
    expect((await h.cp.store.get(id))?.intent).toBeUndefined();
    expect(mutating(await record('crash between apply and status write'))).toEqual({
      CreateCluster: 1,
      CreateNodegroup: 1,
    });
  });

  it('a spec changed during an execution -> the newest generation wins, nothing lost', async () => {
    const id = 'team/racing';
    await h.cp.store.applySpec(id, spec('racing', { nodeCount: 2 }));
    await h.cp.feed.drain();
    // While the first execution is creating the cluster, the spec changes twice.
    await new Promise((r) => setTimeout(r, 20));
    await h.cp.store.applySpec(id, spec('racing', { nodeCount: 3 }));
    await h.cp.store.applySpec(id, spec('racing', { nodeCount: 4 }));
    await h.cp.settle();
    const st = await statusOf(h, id);
    expect(st).toMatchObject({ ready: true, observedGeneration: 3, observed: { nodeCount: 4 } });
    expect((await describeCluster('racing'))?.nodegroups[0]?.scalingConfig?.desiredSize).toBe(4);
    const calls = await record('spec changed during an execution');
    expect(calls.CreateCluster?.requests).toBe(1);
  });

  it('two triggers at once -> one execution', async () => {
    const id = 'team/twice';
    const before = h.cp.sfn.counts().started;
    const r = await h.cp.store.applySpec(id, spec('twice'));
    // The same stream record delivered twice (Lambda retries a batch) and a manual trigger.
    const rec = {
      eventName: 'INSERT' as const,
      dynamodb: {
        NewImage: {
          id: { S: id },
          createdAt: { S: r.record.createdAt },
          generation: { N: String(r.record.generation) },
          specHash: { S: r.record.specHash },
        },
      },
    };
    await Promise.all([onChange({ Records: [rec] }), onChange({ Records: [rec] })]);
    await h.cp.settle();
    const started = h.cp.sfn.counts().started - before;
    expect(started).toBe(1);
    const calls = await record('two triggers at once');
    expect(mutating(calls)).toEqual({ CreateCluster: 1, CreateNodegroup: 1 });
    // A manual reconcile while nothing is to do starts one more execution that changes nothing.
    await reconcileNow({ id });
    await h.cp.settle();
    expect(mutating(await sim().calls())).toEqual({ CreateCluster: 1, CreateNodegroup: 1 });
  });

  it('deletion with node groups: node groups first, then the cluster, then the record is released', async () => {
    const id = 'team/delete';
    await applyAndSettle(h, id, spec('delete'));
    await sim().resetCalls();
    await h.cp.store.requestDeletion(id);
    await h.cp.settle();
    expect(await describeCluster('delete')).toBeUndefined();
    expect(await h.cp.store.get(id)).toBeUndefined();
    const calls = await record('deletion with node groups');
    expect(mutating(calls)).toEqual({ DeleteNodegroup: 1, DeleteCluster: 1 });
  });

  it('a cluster deleted out of band is created again: same generation, new idempotency token', async () => {
    const id = 'team/phoenix';
    await applyAndSettle(h, id, spec('phoenix'));
    const first = (await h.cp.store.get(id))!.applied;
    expect(first?.counts).toMatchObject({ 'CreateCluster:phoenix': 1 });
    await sim().vanishCluster('phoenix');
    await sim().resetCalls();
    await h.cp.sweepNow();
    await h.cp.settle();
    expect(await statusOf(h, id)).toMatchObject({ ready: true, observedGeneration: 1 });
    expect((await describeCluster('phoenix'))?.cluster.status).toBe('ACTIVE');
    expect((await h.cp.store.get(id))!.applied?.counts).toMatchObject({ 'CreateCluster:phoenix': 2 });
    expect(mutating(await record('cluster deleted out of band'))).toEqual({
      CreateCluster: 1,
      CreateNodegroup: 1,
    });
  });

  it('"not found" during deletion releases the record', async () => {
    const id = 'team/vanished';
    await applyAndSettle(h, id, spec('vanished'));
    await sim().vanishCluster('vanished');
    await sim().resetCalls();
    await h.cp.store.requestDeletion(id);
    await h.cp.settle();
    expect(await h.cp.store.get(id)).toBeUndefined();
    expect(mutating(await record('not found during deletion'))).toEqual({});
  });

  it('deletion that cannot finish -> DeletionStuck with a hint and a metric, no endless calls', async () => {
    const id = 'team/stuck';
    await applyAndSettle(h, id, spec('stuck'));
    const ng = (await describeCluster('stuck'))!.nodegroups[0]!.nodegroupName!;
    // A node group EKS failed to delete (e.g. a security group still in use) needs a human.
    await sim().driftNodegroup('stuck', ng, { status: 'DELETE_FAILED' });
    await sim().resetCalls();
    await h.cp.store.requestDeletion(id);
    await h.cp.settle();
    for (let i = 0; i < 2; i++) {
      await h.cp.sweepNow();
      await h.cp.settle();
    }
    const st = await statusOf(h, id);
    expect(condition(st, 'Ready')).toMatchObject({ status: 'False', reason: 'DeletionStuck' });
    expect(st?.remediation).toMatch(/attempt budget|Check the cluster/);
    expect(metrics.some((m) => m.name === 'DeletionStuck')).toBe(true);
    expect((await describeCluster('stuck'))?.cluster.status).toBe('ACTIVE');
    expect(mutating(await record('deletion stuck'))).toEqual({});
    // The sweeps backed off: one execution for the request, none for the sweeps that followed.
    expect(
      h.cp.sfn.executions().filter((e) => e.name.startsWith('team_stuck') && e.name.includes('-sweep-')),
    ).toHaveLength(0);
  });

  it('deletionPolicy Retain releases the record, only marks the cluster released, and a later adopt takes it over', async () => {
    const id = 'team/retain';
    await applyAndSettle(h, id, spec('retain', { deletionPolicy: 'Retain' }));
    await sim().resetCalls();
    await h.cp.store.requestDeletion(id);
    await h.cp.settle();
    expect(await h.cp.store.get(id)).toBeUndefined();
    const kept = await describeCluster('retain');
    expect(kept?.cluster.status).toBe('ACTIVE');
    // IAM forbids removing the owner tag: the release is marked beside it, in a tag IAM permits.
    expect(kept?.cluster.tags).toMatchObject({ [OWNER_TAG]: id, [RELEASED_TAG]: id });
    expect(mutating(await record('retain on deletion'))).toEqual({ TagResource: 1 });

    // Without adopt a new record refuses it; with adopt it takes it over and drops the marker.
    const next = 'team/heir';
    await applyAndSettle(h, next, spec('retain'));
    expect(condition(await statusOf(h, next), 'Ready')).toMatchObject({
      status: 'False',
      reason: 'NotOwned',
    });
    await applyAndSettle(h, next, spec('retain', { adopt: true }));
    const taken = await describeCluster('retain');
    expect(taken?.cluster.tags?.[OWNER_TAG]).toBe(next);
    expect(taken?.cluster.tags).not.toHaveProperty(RELEASED_TAG);
    expect(await statusOf(h, next)).toMatchObject({ ready: true });
  });

  it('a permanent error -> bounded retries and a remediation hint', async () => {
    const id = 'team/failing';
    h.clock.now = new Date('2025-06-01T00:00:00Z');
    await applyAndSettle(h, id, spec('failing', { kubernetesVersion: '1.30' }));
    await sim().failNextUpdate(
      'failing',
      'PodEvictionFailure',
      (await describeCluster('failing'))!.nodegroups[0]!.nodegroupName,
    );
    await sim().resetCalls();
    await applyAndSettle(h, id, spec('failing', { kubernetesVersion: '1.31' }));
    const st = await statusOf(h, id);
    expect(condition(st, 'Ready')).toMatchObject({ status: 'False', reason: 'PermanentError' });
    expect(condition(st, 'Ready')?.message).toMatch(
      /of node group cloudorch-\S+ failed \(PodEvictionFailure\)/,
    );
    expect(st?.remediation).toMatch(/describe-update/);
    const first = await sim().calls();
    // Later sweeps back off: no further mutating call for this generation.
    for (let i = 0; i < 3; i++) {
      await h.cp.sweepNow();
      await h.cp.settle();
    }
    const after = await record('permanent error');
    expect(mutating(after)).toEqual(mutating(first));
    expect(mutating(after)).toEqual({ UpdateClusterVersion: 1, UpdateNodegroupVersion: 1 });
    // The hint's way out: a manual reconcile tries again (the injected failure was one-shot).
    await reconcileNow({ id });
    await h.cp.settle();
    expect(mutating(await sim().calls())).toEqual({ UpdateClusterVersion: 1, UpdateNodegroupVersion: 2 });
    expect(await statusOf(h, id)).toMatchObject({ ready: true });
  });

  it('a cluster not owned by CloudOrch is never modified or deleted unless adopt: true', async () => {
    const eks = new EKSClient({
      endpoint: h.cp.endpoints.eks,
      region: 'us-east-1',
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
    await eks.send(
      new CreateClusterCommand({
        name: 'foreign',
        roleArn: LOCAL_DEFAULTS.clusterRoleArn!,
        resourcesVpcConfig: { subnetIds: [...LOCAL_DEFAULTS.subnetIds!] },
        version: '1.34',
        tags: { team: 'other' },
      }),
    );
    eks.destroy();
    await h.cp.settle();
    await new Promise((r) => setTimeout(r, 300)); // the simulator finishes creating it
    await sim().resetCalls();
    const id = 'team/foreign';
    await applyAndSettle(h, id, spec('foreign'));
    const st = await statusOf(h, id);
    expect(condition(st, 'Ready')).toMatchObject({ status: 'False', reason: 'NotOwned' });
    expect(st?.remediation).toMatch(/adopt: true/);
    await h.cp.store.requestDeletion(id);
    await h.cp.settle();
    expect((await describeCluster('foreign'))?.cluster.status).toBe('ACTIVE');
    expect(mutating(await record('unowned: refused'))).toEqual({});

    const adopted = 'team/adopted';
    await applyAndSettle(h, adopted, spec('foreign', { adopt: true }));
    const eksAfter = await describeCluster('foreign');
    expect(eksAfter?.cluster.tags?.[OWNER_TAG]).toBe(adopted);
    expect(await statusOf(h, adopted)).toMatchObject({ ready: true });
  });
});

/**
 * Documented bound for a create at 30% throttling: a create needs about 20 logical calls here
 * (observe loops while EKS creates); each may be retried by the SDK within its budget, and each
 * Step Functions retry repeats a step. 4x the unthrottled count covers both with margin.
 */
const THROTTLED_CREATE_CALL_BOUND = 120;
