/**
 * What a hostile user does to the pipeline: items written straight to the table, a cluster denied or
 * failing for a day, the ownership tag removed behind CloudOrch's back, two records naming one
 * cluster, deleting a record whose cluster is not ours, an execution killed while holding the lease,
 * EKS unreachable. Each case failed on the code before the fix it names (issue: reliability).
 */
import { DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import {
  CreateClusterCommand,
  DescribeClusterCommand,
  DescribeNodegroupCommand,
  EKSClient,
  ListNodegroupsCommand,
  UntagResourceCommand,
} from '@aws-sdk/client-eks';
import { SFNClient, StopExecutionCommand } from '@aws-sdk/client-sfn';
import { marshall } from '@aws-sdk/util-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { MANAGED_BY_TAG, OWNER_TAG, RELEASED_TAG } from '../../lambdas/core/ownership.js';
import { setDeps } from '../../lambdas/handlers/deps.js';
import { observeStep } from '../../lambdas/handlers/steps/observe.js';
import { onDriftEvent } from '../../lambdas/handlers/triggers/drift-event.js';
import { reconcileWith } from '../../lambdas/handlers/triggers/reconcile-now.js';
import { TargetChangeError, TargetClaimedError } from '../../lambdas/store/errors.js';
import { listItems } from '../../lambdas/store/list.js';
import { LOCAL_DEFAULTS, LOCAL_TABLE } from '../../local/runtime/control-plane.js';
import {
  applyAndSettle,
  condition,
  type Harness,
  LOCAL_CREDENTIALS,
  mutating,
  spec,
  statusOf,
  useHarness,
} from './support.js';

let ddb: DynamoDBClient;
let eks: EKSClient;
const creds = LOCAL_CREDENTIALS;
const { harness, metrics } = useHarness({}, () => {
  ddb?.destroy();
  eks?.destroy();
});
let h: Harness;
beforeEach(() => {
  h = harness();
  ddb ??= new DynamoDBClient({ endpoint: h.cp.endpoints.dynamodb, region: 'us-east-1', credentials: creds });
  eks ??= new EKSClient({ endpoint: h.cp.endpoints.eks, region: 'us-east-1', credentials: creds });
});

const sim = () => h.cp.simAdmin;
const putRaw = (item: Record<string, unknown>) =>
  ddb.send(
    new PutItemCommand({ TableName: LOCAL_TABLE, Item: marshall(item, { removeUndefinedValues: true }) }),
  );
const executionsOf = (slug: string) => h.cp.sfn.executions().filter((e) => e.name.startsWith(slug));
const eksCluster = async (name: string) => (await eks.send(new DescribeClusterCommand({ name }))).cluster;
const firstGroup = async (clusterName: string) =>
  (await eks.send(new ListNodegroupsCommand({ clusterName }))).nodegroups![0]!;

/** Moves the reconciler's clock and runs one sweep period. */
async function sweepAt(at: Date): Promise<void> {
  h.clock.now = at;
  await h.cp.sweepNow();
  await h.cp.settle();
}

describe('hostile input and faults', () => {
  it('a record that released its cluster with Retain takes it back with adopt; node groups keep their owner', async () => {
    const id = 'team/boomerang';
    await applyAndSettle(h, id, spec('boomerang', { deletionPolicy: 'Retain' }));
    await h.cp.store.requestDeletion(id);
    await h.cp.settle();
    expect(await h.cp.store.get(id)).toBeUndefined();
    expect(executionsOf('team_boomerang').every((e) => e.status === 'SUCCEEDED')).toBe(true);
    await applyAndSettle(h, id, spec('boomerang', { deletionPolicy: 'Retain', adopt: true }));
    const st = await statusOf(h, id);
    expect(st).toMatchObject({ ready: true });
    expect((await eksCluster('boomerang'))?.tags).not.toHaveProperty(RELEASED_TAG);

    // Another record adopting it never re-owns the node group (IAM forbids it; the cluster's claim is enough).
    await h.cp.store.requestDeletion(id);
    await h.cp.settle();
    await sim().resetCalls();
    await applyAndSettle(h, 'team/heir2', spec('boomerang', { adopt: true }));
    expect(await statusOf(h, 'team/heir2')).toMatchObject({ ready: true });
    const group = await firstGroup('boomerang');
    const ng = (
      await eks.send(new DescribeNodegroupCommand({ clusterName: 'boomerang', nodegroupName: group }))
    ).nodegroup;
    expect(ng?.tags?.[OWNER_TAG]).toBe(id);
    expect((await eksCluster('boomerang'))?.tags?.[OWNER_TAG]).toBe('team/heir2');
  });

  it('removing only the managed-by tag is lost ownership too, and an EKS outage does not forget it', async () => {
    const id = 'team/unmarked';
    await applyAndSettle(h, id, spec('unmarked'));
    const arn = (await eksCluster('unmarked'))!.arn!;
    await eks.send(new UntagResourceCommand({ resourceArn: arn, tagKeys: [MANAGED_BY_TAG] }));
    await sim().resetCalls();
    await h.cp.reconcile(id);
    expect(condition(await statusOf(h, id), 'Ready')).toMatchObject({
      status: 'False',
      reason: 'OwnershipLost',
    });
    expect(mutating(await sim().calls())).toEqual({});
    // The owner tag goes too, then EKS is unreadable for a while: afterwards it is still OwnershipLost.
    await eks.send(new UntagResourceCommand({ resourceArn: arn, tagKeys: [OWNER_TAG] }));
    await sim().setFaults({ DescribeCluster: { errorFraction: 1 } });
    await h.cp.reconcile(id);
    expect(condition(await statusOf(h, id), 'Ready')?.reason).toBe('ObserveFailed');
    await sim().clearFaults();
    await h.cp.reconcile(id);
    expect(condition(await statusOf(h, id), 'Ready')?.reason).toBe('OwnershipLost');
  });

  it('a record that owns its cluster cannot be renamed onto another one (that would orphan the first)', async () => {
    const id = 'team/renamed';
    await applyAndSettle(h, id, spec('first-name'));
    const refused = await h.cp.store.applySpec(id, spec('second-name')).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TargetChangeError);
    expect((refused as Error).message).toMatch(/first-name/);
    expect(await h.cp.store.claimHolder({ region: 'us-east-1', clusterName: 'second-name' })).toBeUndefined();
  });

  it('a forged lease expiring far ahead does not stall a cluster', async () => {
    const id = 'team/forged';
    await applyAndSettle(h, id, spec('forged'));
    await h.cp.store.acquireLease(id, 'ghost', 1_000_000_000, new Date());
    await sim().driftNodegroup('forged', await firstGroup('forged'), {
      scaling: { desiredSize: 4, maxSize: 4 },
    });
    const report = await h.cp.sweepNow();
    expect(Object.keys(report.reasons).join()).toMatch(/lease not written by CloudOrch/);
    await h.cp.settle();
    expect((await statusOf(h, id))?.observed?.nodeCount).toBe(2);
  });

  it('folded history still counts every deletion call against the budget', async () => {
    const id = 'team/budget';
    await applyAndSettle(h, id, spec('budget'));
    await h.cp.store.acquireLease(id, 'planter', 60_000);
    const entry = {
      at: new Date().toISOString(),
      kind: 'operation' as const,
      generation: 1,
      summary: 'DeleteNodegroup x',
      operation: 'DeleteNodegroup',
    };
    await h.cp.store.writeStatus(id, 'planter', {
      status: (await statusOf(h, id))!,
      history: Array.from({ length: 13 }, () => entry),
    });
    expect((await h.cp.store.get(id))?.history?.at(-1)?.count).toBe(13);
    setDeps(h.cp.deps);
    const observed = await observeStep({ id, owner: 'planter', trigger: 'manual', loop: 0 });
    expect(observed.deletionCalls).toBe(13);
    await h.cp.store.releaseLease(id, 'planter');
  });

  it('malformed items written straight to the table are reported one by one; the fleet is still corrected', async () => {
    const healthy = 'team/healthy';
    await applyAndSettle(h, healthy, spec('healthy'));
    const good = {
      spec: spec('x'),
      specHash: 'h',
      generation: 1,
      version: 1,
      createdAt: new Date().toISOString(),
    };
    const broken: Record<string, unknown>[] = [
      { ...good, id: 'bad/no-generation', generation: undefined },
      { ...good, id: 'bad/conditions', status: { conditions: 'nope', observedGeneration: 1, ready: true } },
      { ...good, id: 'bad/spec-string', spec: 'hello' },
      { ...good, id: 'bad/lease-string', lease: 'mine' },
      { ...good, id: 'bad/generation-string', generation: '7' },
      { ...good, id: 'not-a-record-id' },
      { ...good, id: 'bad/history', history: 'none' },
      { ...good, id: 'bad/status-string', status: 'Ready' },
      { ...good, id: 'bad/lease-expiry', lease: { owner: 'x', expiresAt: 'soon' } },
      { ...good, id: 'bad/no-spec-hash', specHash: undefined },
    ];
    // After each one, an out-of-band change to a healthy cluster is still corrected within two sweeps.
    const group = await firstGroup('healthy');
    let tick = Date.now();
    const nextPeriod = () => {
      tick = Math.max(tick, Date.now()) + 1_100; // local sweep periods are one second
      return new Date(tick);
    };
    for (const [i, item] of broken.entries()) {
      await putRaw(item);
      await sim().driftNodegroup('healthy', group, { scaling: { desiredSize: 3 + (i % 3), maxSize: 6 } });
      await sweepAt(nextPeriod());
      await sweepAt(nextPeriod());
      const st = await statusOf(h, healthy);
      expect({ item: item['id'], nodes: st?.observed?.nodeCount, ready: st?.ready }).toEqual({
        item: item['id'],
        nodes: 2,
        ready: true,
      });
    }

    // Every reader lists them with their reason instead of failing for the whole fleet.
    const listed = await listItems(h.cp.store);
    expect(listed.records.map((r) => r.id)).toContain(healthy);
    const reasons = Object.fromEntries(listed.invalid.map((i) => [i.id, i.reason]));
    expect(reasons['bad/no-generation']).toMatch(/generation/);
    expect(reasons['bad/spec-string']).toMatch(/spec/);
    expect(reasons['not-a-record-id']).toMatch(/id/);
    expect(metrics.filter((m) => m.name === 'RecordsInvalid').length).toBeGreaterThanOrEqual(broken.length);
    expect((await h.cp.sweepNow()).invalid).toBe(listed.invalid.length);
    // Where the id is usable the item carries a RecordInvalid condition, written once.
    const marked = await h.cp.store.inspect('bad/no-generation');
    expect(marked?.kind).toBe('invalid');
    const raw = marked?.kind === 'invalid' ? marked.invalid : undefined;
    expect(raw?.marked).toBe(true);
    const runs = executionsOf('bad_no-generation').length;
    expect(runs).toBe(1);
    // That run ends SUCCEEDED: marking a record is its whole job, not a failure.
    expect(executionsOf('bad_no-generation').map((e) => e.status)).toEqual(['SUCCEEDED']);
    await h.cp.sweepNow();
    await h.cp.settle();
    expect(executionsOf('bad_no-generation')).toHaveLength(runs);
    // Malformed reconciler-owned attributes (a string lease, a broken status) are repaired by that
    // one run: the record parses again and no longer gets a run every sweep.
    expect((await h.cp.store.inspect('bad/lease-string'))?.kind).toBe('record');
    expect((await h.cp.store.inspect('bad/conditions'))?.kind).toBe('record');
    // Nothing about an id that is not a record id is started (the state machine would refuse it).
    expect(executionsOf('not-a-record-id')).toHaveLength(0);
  });

  it('a denied and a permanently failing cluster start at most 12 executions each in 24 hours; a spec change resets at once', async () => {
    const t0 = new Date('2026-06-01T00:00:00Z');
    h.clock.now = t0;
    await applyAndSettle(h, 'team/denied', spec('denied'));
    // Dropping the required `team` tag is denied by policy.
    await applyAndSettle(h, 'team/denied', spec('denied', { tags: { environment: 'dev' } }));
    await applyAndSettle(h, 'team/broken', spec('broken', { kubernetesVersion: '1.33' }));
    await sim().failNextUpdate('broken', 'PodEvictionFailure');
    await applyAndSettle(h, 'team/broken', spec('broken', { kubernetesVersion: '1.34' }));
    expect(condition(await statusOf(h, 'team/denied'), 'Ready')?.reason).toBe('PolicyViolation');
    expect(condition(await statusOf(h, 'team/broken'), 'Ready')?.reason).toBe('PermanentError');

    const before = { denied: executionsOf('team_denied').length, broken: executionsOf('team_broken').length };
    // One sweep every 5 minutes for a day.
    for (let minute = 5; minute <= 24 * 60; minute += 5)
      await sweepAt(new Date(t0.getTime() + minute * 60_000));
    const denied = executionsOf('team_denied').length - before.denied;
    const broken = executionsOf('team_broken').length - before.broken;
    expect(denied).toBeLessThanOrEqual(12);
    expect(broken).toBeLessThanOrEqual(12);
    expect(denied).toBeGreaterThanOrEqual(3); // it does retry, rarely
    const record = await h.cp.store.get('team/denied');
    expect(record?.failures?.count).toBe(denied + 1);
    // Repeats are folded: the history is not 50 copies of the same denial.
    const repeats = (record?.history ?? []).filter((e) => e.kind === 'policy');
    expect(repeats.length).toBeLessThanOrEqual(2);
    expect(repeats.at(-1)?.count).toBeGreaterThan(1);

    // A spec change is acted on at once, whatever the backoff said.
    await applyAndSettle(h, 'team/denied', spec('denied'));
    const fixed = await h.cp.store.get('team/denied');
    expect(fixed?.status?.ready).toBe(true);
    expect(fixed?.failures).toBeUndefined();
  }, 180_000); // 288 sweep periods over every cluster of this file: about 20 s alone, longer under CI load

  it('removing the ownership tag is noticed by the sweep and by the drift event: OwnershipLost, nothing changed until adopt', async () => {
    const id = 'team/tagged';
    await applyAndSettle(h, id, spec('tagged'));
    const arn = (await eksCluster('tagged'))!.arn!;
    await eks.send(new UntagResourceCommand({ resourceArn: arn, tagKeys: [OWNER_TAG] }));
    await sim().resetCalls();
    const event = {
      detail: {
        eventSource: 'eks.amazonaws.com',
        eventName: 'UntagResource',
        awsRegion: 'us-east-1',
        userIdentity: { arn: 'arn:aws:iam::000000000000:user/mallory' },
        requestParameters: { resourceArn: arn },
      },
    };
    expect((await onDriftEvent(event)).started).toBe(true);
    await h.cp.settle();
    let st = await statusOf(h, id);
    expect(condition(st, 'Ready')).toMatchObject({ status: 'False', reason: 'OwnershipLost' });
    expect(st?.remediation).toMatch(/adopt: true/);
    expect(mutating(await sim().calls())).toEqual({});
    expect(metrics.some((m) => m.name === 'OwnershipLost')).toBe(true);
    // The sweep keeps saying so (it does not forget the cluster was ours).
    await h.cp.sweepNow();
    await h.cp.settle();
    st = await statusOf(h, id);
    expect(condition(st, 'Ready')?.reason).toBe('OwnershipLost');
    expect(mutating(await sim().calls())).toEqual({});

    await applyAndSettle(h, id, spec('tagged', { adopt: true }));
    expect((await eksCluster('tagged'))?.tags?.[OWNER_TAG]).toBe(id);
    expect(await statusOf(h, id)).toMatchObject({ ready: true });
  });

  it('the sweep alone notices a removed ownership tag on a Ready cluster', async () => {
    const id = 'team/swept';
    await applyAndSettle(h, id, spec('swept'));
    await eks.send(
      new UntagResourceCommand({ resourceArn: (await eksCluster('swept'))!.arn!, tagKeys: [OWNER_TAG] }),
    );
    await h.cp.sweepNow();
    await h.cp.settle();
    expect(condition(await statusOf(h, id), 'Ready')).toMatchObject({
      status: 'False',
      reason: 'OwnershipLost',
    });
  });

  it('a target is claimed by one record: a second apply, concurrent applies and a direct writer all lose, naming the holder', async () => {
    await applyAndSettle(h, 'team-a/same', spec('same'));
    const second = await h.cp.store.applySpec('team-b/same', spec('same')).catch((e: unknown) => e);
    expect(second).toBeInstanceOf(TargetClaimedError);
    expect((second as Error).message).toMatch(/team-a\/same/);
    expect(await h.cp.store.get('team-b/same')).toBeUndefined();

    const racers = ['race/a', 'race/b', 'race/c', 'race/d', 'race/e'];
    const results = await Promise.allSettled(racers.map((id) => h.cp.store.applySpec(id, spec('raced'))));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(TargetClaimedError);
    await h.cp.settle();

    // A record written straight to the table for a claimed target never calls EKS for it.
    await sim().resetCalls();
    await putRaw({
      id: 'team-c/same',
      spec: spec('same'),
      specHash: 'direct',
      generation: 1,
      version: 1,
      createdAt: new Date().toISOString(),
    });
    await h.cp.reconcile('team-c/same');
    const st = await statusOf(h, 'team-c/same');
    expect(condition(st, 'Ready')).toMatchObject({ status: 'False', reason: 'TargetClaimed' });
    expect(condition(st, 'Ready')?.message).toMatch(/team-a\/same/);
    expect(mutating(await sim().calls())).toEqual({});
  });

  it('deleting a record whose cluster is not ours touches nothing and releases the record', async () => {
    await eks.send(
      new CreateClusterCommand({
        name: 'theirs',
        roleArn: LOCAL_DEFAULTS.clusterRoleArn!,
        resourcesVpcConfig: { subnetIds: [...LOCAL_DEFAULTS.subnetIds!] },
        version: '1.33',
      }),
    );
    await new Promise((r) => setTimeout(r, 300)); // the simulator finishes creating it
    const id = 'team/theirs';
    await applyAndSettle(h, id, spec('theirs'));
    const st = await statusOf(h, id);
    expect(condition(st, 'Ready')?.reason).toBe('NotOwned');
    // It does differ from the spec (version, node groups): never "Observed state matches the spec".
    const drifted = condition(st, 'Drifted');
    expect(drifted).toMatchObject({ status: 'Unknown', reason: 'NotOwned' });
    expect(drifted?.message).toMatch(/kubernetesVersion/);
    await sim().resetCalls();
    await h.cp.store.requestDeletion(id);
    await h.cp.settle();
    expect(await h.cp.store.get(id)).toBeUndefined();
    expect(
      metrics.some((m) => m.name === 'ReconcileSteps' && m.dimensions['Outcome'] === 'ReleasedUntouched'),
    ).toBe(true);
    expect(mutating(await sim().calls())).toEqual({});
    expect((await eksCluster('theirs'))?.status).toBe('ACTIVE');
  });

  it('a lease held by a killed execution is taken over by the next sweep, not after its 15-minute TTL', async () => {
    const id = 'team/killed';
    const provider = h.cp.deps.provider;
    const apply = provider.apply.bind(provider);
    let killed: string | undefined;
    provider.apply = async (op) => {
      if (!killed) {
        const running = h.cp.sfn
          .executions({ status: 'RUNNING' })
          .find((e) => e.name.startsWith('team_killed'))!;
        killed = running.executionArn;
        const sfn = new SFNClient({ endpoint: h.cp.endpoints.sfn, region: 'us-east-1', credentials: creds });
        await sfn.send(new StopExecutionCommand({ executionArn: killed, error: 'Killed' }));
        sfn.destroy();
        throw new Error('process killed');
      }
      return apply(op);
    };
    try {
      await applyAndSettle(h, id, spec('killed'));
    } finally {
      provider.apply = apply;
    }
    const held = await h.cp.store.get(id);
    expect(held?.lease?.executionArn).toBe(killed);
    expect(held!.lease!.expiresAt).toBeGreaterThan(Date.now() + 60_000); // far from expiring
    // reconcile says what it does: the holder has ended, so it starts a run that takes the lease over.
    const res = await reconcileWith(h.cp.store, h.cp.deps.executions, id, new Date());
    expect(res.started).toBe(true);
    await h.cp.settle();
    expect(await statusOf(h, id)).toMatchObject({ ready: true });
    expect(mutating(await sim().calls())).toMatchObject({ CreateCluster: 1, CreateNodegroup: 1 });
  });

  it('the sweep takes over a lease whose execution ended, within one period', async () => {
    const id = 'team/orphan';
    await applyAndSettle(h, id, spec('orphan'));
    // A lease naming an execution Step Functions does not know (a local control plane restarted after kill -9).
    const ghost = `${h.cp.stateMachineArn.replace(':stateMachine:', ':execution:')}:ghost`;
    await h.cp.store.acquireLease(id, 'ghost', 15 * 60_000, new Date(), { executionArn: ghost });
    await sim().driftNodegroup('orphan', await firstGroup('orphan'), {
      scaling: { desiredSize: 4, maxSize: 4 },
    });
    const report = await h.cp.sweepNow();
    expect(Object.keys(report.reasons)).toContain('dead execution (no such execution)');
    await h.cp.settle();
    const r = await h.cp.store.get(id);
    expect(r?.lease).toBeUndefined();
    expect(r?.status?.observed?.nodeCount).toBe(2);
  });

  it('EKS unreachable: status turns Unknown (ObserveFailed) with the error and a hint, and recovers', async () => {
    const id = 'team/blind';
    await applyAndSettle(h, id, spec('blind'));
    expect(await statusOf(h, id)).toMatchObject({ ready: true });
    await sim().setFaults({
      DescribeCluster: { errorFraction: 1 },
      ListNodegroups: { errorFraction: 1 },
      DescribeNodegroup: { errorFraction: 1 },
    });
    await h.cp.sweepNow();
    await h.cp.settle();
    const st = await statusOf(h, id);
    expect(condition(st, 'Ready')).toMatchObject({ status: 'Unknown', reason: 'ObserveFailed' });
    expect(condition(st, 'Ready')?.message).toMatch(/Server|Unavailable|EKS|5\d\d/i);
    expect(st?.ready).toBe(false);
    expect(st?.remediation).toBeTruthy();
    expect(metrics.some((m) => m.name === 'ObserveFailures')).toBe(true);
    await sim().clearFaults();
    // The next sweep period (one second locally) observes again and restores the truth.
    await sweepAt(new Date(Date.now() + 2_000));
    expect(condition(await statusOf(h, id), 'Ready')).toMatchObject({ status: 'True', reason: 'Reconciled' });
  });
});
