/**
 * Pipeline scenarios for node pools: the real handlers, state machine, store and provider against the
 * EKS simulator, as in scenarios.test.ts. Each asserts the simulator's state (read in process, so the
 * sampling does not count as EKS calls) and the exact mutating EKS calls of the run it checks.
 */
import { readFileSync } from 'node:fs';
import { DynamoDBClient, PutItemCommand, type PutItemCommandInput } from '@aws-sdk/client-dynamodb';
import {
  CreateClusterCommand,
  type CreateClusterCommandInput,
  CreateNodegroupCommand,
  type CreateNodegroupCommandInput,
  EKSClient,
} from '@aws-sdk/client-eks';
import { beforeEach, describe, expect, it } from 'vitest';
import { type CloudClusterSpecInput, specSchema } from '../../lambdas/core/spec/schema.js';
import { LOCAL_DEFAULTS, LOCAL_TABLE } from '../../local/runtime/control-plane.js';
import { GENERAL, type PoolInput, SPOT, SYSTEM } from '../core/support/pools.js';
import {
  applyAndSettle,
  condition,
  type Harness,
  LOCAL_CREDENTIALS,
  mutating,
  sampleNodegroups,
  simCluster,
  statusOf,
  total,
  useHarness,
  watchApplies,
} from './support.js';

const THREE = [SYSTEM, GENERAL, SPOT];

const pools = (clusterName: string, nodeGroups: PoolInput[], over: Partial<CloudClusterSpecInput> = {}) =>
  specSchema.parse({
    provider: 'aws',
    region: 'us-east-1',
    clusterName,
    kubernetesVersion: '1.34',
    nodeGroups,
    tags: { team: 'platform', environment: 'dev' },
    deletionPolicy: 'Delete',
    ...over,
  });

const figures: string[] = [];
const { harness } = useHarness({}, () => console.log(`EKS calls per pool scenario:\n${figures.join('\n')}`));
let h: Harness;
let started = 0;
beforeEach(() => {
  h = harness();
  started = Date.now();
});

const sim = () => h.cp.simAdmin;
const groups = (cluster: string) => simCluster(h, cluster)?.nodegroups ?? [];
const groupOf = (cluster: string, pool: string) => groups(cluster).find((ng) => ng.pool === pool)!;
/** Updates the simulator started from index `from` on (its update list only grows). */
const updatesSince = (cluster: string, from: number) => simCluster(h, cluster)!.updates.slice(from);

async function record(name: string): Promise<Record<string, number>> {
  const calls = await sim().calls();
  const m = mutating(calls);
  figures.push(`  ${name}: ${total(calls)} calls, mutating ${JSON.stringify(m)}, ${Date.now() - started} ms`);
  return m;
}

/** A converged 3-pool cluster, with the simulator's call counts reset. */
async function threePools(id: string, name: string, over: Partial<CloudClusterSpecInput> = {}) {
  await applyAndSettle(h, id, pools(name, THREE, over));
  expect(await statusOf(h, id)).toMatchObject({ ready: true });
  await sim().resetCalls();
}

function eks(): EKSClient {
  return new EKSClient({ endpoint: h.cp.endpoints.eks, region: 'us-east-1', credentials: LOCAL_CREDENTIALS });
}

async function until(what: string, ok: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('pipeline scenarios: node pools', () => {
  it('a 3-pool cluster from nothing -> Ready, each pool its own node group', async () => {
    await applyAndSettle(h, 'team/pools', pools('pools', THREE));
    const st = await statusOf(h, 'team/pools');
    expect(st).toMatchObject({ ready: true, synced: true, observedGeneration: 1 });
    const ngs = groups('pools');
    expect(ngs).toHaveLength(3);
    const byPool = Object.fromEntries(ngs.map((ng) => [ng.pool, ng]));
    expect(byPool['system']).toMatchObject({
      status: 'ACTIVE',
      instanceTypes: ['t3.large'],
      capacityType: 'ON_DEMAND',
      scaling: { minSize: 2, maxSize: 2, desiredSize: 2 },
      labels: { role: 'system' },
      taints: [{ key: 'CriticalAddonsOnly', effect: 'NO_SCHEDULE' }],
    });
    expect(byPool['general']).toMatchObject({
      instanceTypes: ['m6i.large'],
      capacityType: 'ON_DEMAND',
      scaling: { minSize: 3, maxSize: 3, desiredSize: 3 },
      labels: {},
      taints: [],
    });
    expect(byPool['spot']).toMatchObject({
      instanceTypes: ['m5.large', 'm6i.large'],
      capacityType: 'SPOT',
      scaling: { minSize: 0, maxSize: 10, desiredSize: 2 },
    });
    expect(await record('3 pools from nothing')).toEqual({ CreateCluster: 1, CreateNodegroup: 3 });
  });

  it('a pool added -> one create, nothing else', async () => {
    await threePools('team/add', 'add');
    const before = groups('add').map((ng) => ng.name);
    const batch: PoolInput = { name: 'batch', instanceTypes: ['c6i.large'], nodeCount: 1 };
    await applyAndSettle(h, 'team/add', pools('add', [...THREE, batch]));
    expect(await statusOf(h, 'team/add')).toMatchObject({ ready: true });
    const after = groups('add');
    expect(after).toHaveLength(4);
    expect(after.map((ng) => ng.name)).toEqual(expect.arrayContaining(before));
    expect(groupOf('add', 'batch')).toMatchObject({ status: 'ACTIVE', instanceTypes: ['c6i.large'] });
    expect(await record('pool added')).toEqual({ CreateNodegroup: 1 });
  });

  it('a pool removed -> one delete, made while every other pool is ACTIVE', async () => {
    await threePools('team/remove', 'remove');
    const spot = groupOf('remove', 'spot').name;
    const applies = watchApplies(h, 'remove');
    try {
      await applyAndSettle(h, 'team/remove', pools('remove', [SYSTEM, GENERAL]));
    } finally {
      applies.stop();
    }
    expect(applies.log.map((a) => [a.kind, a.nodegroupName])).toEqual([['DeleteNodegroup', spot]]);
    const others = applies.log[0]!.before.filter((ng) => ng.name !== spot);
    expect(others.map((ng) => [ng.pool, ng.status])).toEqual([
      ['system', 'ACTIVE'],
      ['general', 'ACTIVE'],
    ]);
    expect(groups('remove').map((ng) => ng.pool)).toEqual(['system', 'general']);
    expect(await statusOf(h, 'team/remove')).toMatchObject({ ready: true });
    expect(await record('pool removed')).toEqual({ DeleteNodegroup: 1 });
  });

  it("one pool's instance type changed -> new group ACTIVE before the old is deleted; others untouched", async () => {
    await threePools('team/replace', 'replace');
    const old = groupOf('replace', 'general').name;
    const untouched = groups('replace').filter((ng) => ng.pool !== 'general');
    const updatesBefore = simCluster(h, 'replace')!.updates.length;
    const applies = watchApplies(h, 'replace');
    const sampler = sampleNodegroups(h, 'replace');
    const changed = [SYSTEM, { ...GENERAL, instanceTypes: ['c6i.large'] }, SPOT];
    try {
      await applyAndSettle(h, 'team/replace', pools('replace', changed));
    } finally {
      applies.stop();
    }
    const samples = sampler.stop();
    const general = groupOf('replace', 'general');
    expect(general.name).not.toBe(old);
    expect(general).toMatchObject({ status: 'ACTIVE', instanceTypes: ['c6i.large'] });
    expect(applies.log.map((a) => [a.kind, a.nodegroupName])).toEqual([
      ['CreateNodegroup', general.name],
      ['DeleteNodegroup', old],
    ]);
    // When the old group was deleted, the new one was ACTIVE (and the old one still was).
    const atDelete = applies.log[1]!.before.filter((ng) => ng.pool === 'general');
    expect(atDelete.map((ng) => [ng.name, ng.status])).toEqual(
      expect.arrayContaining([
        [general.name, 'ACTIVE'],
        [old, 'ACTIVE'],
      ]),
    );
    // No capacity gap: in every sample the pool had an ACTIVE group.
    expect(samples.length).toBeGreaterThan(10);
    const gaps = samples.filter((s) => !s.some((ng) => ng.pool === 'general' && ng.status === 'ACTIVE'));
    expect(gaps).toEqual([]);
    // The other pools keep their groups, and no update names them.
    expect(groups('replace').filter((ng) => ng.pool !== 'general')).toEqual(untouched);
    expect(updatesSince('replace', updatesBefore)).toEqual([]);
    expect(await record(`instance type of one pool (${samples.length} samples)`)).toEqual({
      CreateNodegroup: 1,
      DeleteNodegroup: 1,
    });
  });

  it('labels and taints changed in place -> one UpdateNodegroupConfig for that pool', async () => {
    await threePools('team/labels', 'labels');
    const before = groups('labels');
    const updatesBefore = simCluster(h, 'labels')!.updates.length;
    const taints = [{ key: 'dedicated', value: 'sys', effect: 'NO_EXECUTE' as const }];
    const system = { ...SYSTEM, labels: { role: 'core', tier: 'a' }, taints };
    await applyAndSettle(h, 'team/labels', pools('labels', [system, GENERAL, SPOT]));
    expect(await statusOf(h, 'team/labels')).toMatchObject({ ready: true });
    const after = groupOf('labels', 'system');
    expect(after).toMatchObject({ name: before[0]!.name, labels: { role: 'core', tier: 'a' }, taints });
    expect(updatesSince('labels', updatesBefore)).toEqual([
      { type: 'ConfigUpdate', nodegroupName: after.name, version: undefined },
    ]);
    expect(groups('labels').map((ng) => ng.name)).toEqual(before.map((ng) => ng.name));
    expect(await record('labels and taints in place')).toEqual({ UpdateNodegroupConfig: 1 });
  });

  it('1.32 -> 1.34 with 3 pools: CP 1.33, pools 1.33 in spec order, CP 1.34, pools 1.34', async () => {
    // A day on which 1.32 to 1.34 are all in standard support (allowed by the version policy).
    h.clock.now = new Date('2026-01-15T00:00:00Z');
    await threePools('team/upgrade', 'upgrade', { kubernetesVersion: '1.32' });
    const [a, b, c] = ['system', 'general', 'spot'].map((p) => groupOf('upgrade', p).name);
    const updatesBefore = simCluster(h, 'upgrade')!.updates.length;
    await applyAndSettle(h, 'team/upgrade', pools('upgrade', THREE, { kubernetesVersion: '1.34' }));
    expect(await statusOf(h, 'team/upgrade')).toMatchObject({ ready: true });
    const order = updatesSince('upgrade', updatesBefore).map(
      (u) => `${u.nodegroupName ?? 'CP'} ${u.version}`,
    );
    expect(order).toEqual([
      'CP 1.33',
      `${a} 1.33`,
      `${b} 1.33`,
      `${c} 1.33`,
      'CP 1.34',
      `${a} 1.34`,
      `${b} 1.34`,
      `${c} 1.34`,
    ]);
    expect(simCluster(h, 'upgrade')?.version).toBe('1.34');
    expect(groups('upgrade').map((ng) => ng.version)).toEqual(['1.34', '1.34', '1.34']);
    expect(await record('1.32 -> 1.34, 3 pools')).toEqual({
      UpdateClusterVersion: 2,
      UpdateNodegroupVersion: 6,
    });
  });

  it('drift on one pool is corrected by one UpdateNodegroupConfig for that pool only', async () => {
    await threePools('team/drift', 'drift');
    const general = groupOf('drift', 'general').name;
    await sim().driftNodegroup('drift', general, { scaling: { desiredSize: 5, maxSize: 5 } });
    const updatesBefore = simCluster(h, 'drift')!.updates.length;
    await sim().resetCalls();
    // A reconcile of this record only (the sweep path is covered in scenarios.test.ts): the counts are its own.
    await h.cp.reconcile('team/drift');
    expect(groupOf('drift', 'general').scaling).toEqual({ minSize: 3, maxSize: 3, desiredSize: 3 });
    expect(updatesSince('drift', updatesBefore)).toEqual([
      { type: 'ConfigUpdate', nodegroupName: general, version: undefined },
    ]);
    const st = await statusOf(h, 'team/drift');
    expect(st?.ready).toBe(true);
    const fields = st?.lastDrift?.map((d) => d.field) ?? [];
    expect(fields).toContain('nodeGroups[general].nodeCount');
    expect(fields.every((f) => f.startsWith('nodeGroups[general]'))).toBe(true);
    expect(await record('drift on one pool')).toEqual({ UpdateNodegroupConfig: 1 });
  });

  it('flat-field records from main plan to nothing: zero mutating calls, Ready', async () => {
    // The day the fixtures were converged: 1.34 in standard support, 1.33 in extended (a warning).
    const now = new Date('2026-12-01T01:00:00Z');
    h.clock.now = now;
    const fixture = JSON.parse(
      readFileSync(new URL('../fixtures/upgrade-from-main/records.json', import.meta.url), 'utf8'),
    ) as Record<string, Fixture>;
    const ids = Object.keys(fixture).filter((k) => k.startsWith('team/'));
    expect(ids).toHaveLength(3);
    await replayFixtures(ids.map((id) => fixture[id]!));
    await sim().resetCalls();
    for (const id of ids) await h.cp.reconcile(id);
    for (const id of ids) {
      const st = await statusOf(h, id);
      expect({ id, ready: st?.ready, reason: condition(st, 'Ready')?.reason }).toEqual({
        id,
        ready: true,
        reason: 'Reconciled',
      });
      // This run wrote the status (folded into main's last `Converged` entry), not main's copy.
      expect((await h.cp.store.get(id))?.history?.at(-1)).toMatchObject({
        summary: 'Converged',
        lastAt: now.toISOString(),
      });
      // The one group main made still serves the record, as it was.
      const f = fixture[id]!;
      expect(groups(f.spec.clusterName).map((ng) => ng.name)).toEqual(f.eks.nodegroups);
    }
    expect(await record('flat-field records from main (3)')).toEqual({});
  });

  it('a foreign node group is drift; with default policies its deletion is denied and it stays', async () => {
    await threePools('team/foreign-ng', 'foreign-ng');
    const client = eks();
    try {
      await client.send(
        new CreateNodegroupCommand({
          clusterName: 'foreign-ng',
          nodegroupName: 'team-made',
          nodeRole: LOCAL_DEFAULTS.nodeRoleArn!,
          subnets: [...LOCAL_DEFAULTS.subnetIds!],
          instanceTypes: ['t3.medium'],
          scalingConfig: { minSize: 1, maxSize: 1, desiredSize: 1 },
          tags: { team: 'other' },
        }),
      );
    } finally {
      client.destroy();
    }
    await until('team-made ACTIVE', () =>
      groups('foreign-ng').some((ng) => ng.status === 'ACTIVE' && ng.name === 'team-made'),
    );
    await sim().resetCalls();
    await h.cp.reconcile('team/foreign-ng');
    const st = await statusOf(h, 'team/foreign-ng');
    expect(st?.lastDrift).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          field: 'nodeGroups (node group team-made)',
          observed: 'created outside CloudOrch',
        }),
      ]),
    );
    expect(condition(st, 'Drifted')?.status).toBe('True');
    expect(condition(st, 'Ready')).toMatchObject({ status: 'False', reason: 'PolicyViolation' });
    const denial = st?.violations?.find((v) => v.rule === 'foreign-nodegroup-deletion');
    expect(denial?.message).toMatch(/node group team-made/);
    expect(groups('foreign-ng').find((ng) => ng.name === 'team-made')?.status).toBe('ACTIVE');
    expect(groups('foreign-ng')).toHaveLength(4);
    expect(await record('foreign node group (denied)')).toEqual({});
  });
});

/** The parts of one upgrade-from-main fixture record this test reads (see its README). */
interface Fixture {
  readonly spec: { readonly clusterName: string };
  readonly record: { readonly raw: PutItemCommandInput['Item'] };
  readonly claims: readonly { readonly raw: PutItemCommandInput['Item'] }[];
  readonly eks: { readonly nodegroups: readonly string[] };
  readonly requests: readonly { readonly command: string; readonly input: unknown }[];
}

/**
 * Puts main's items into the table as they were stored, and rebuilds their EKS state by replaying
 * main's own create requests (tokens included) through the EKS API, until every group is ACTIVE.
 */
async function replayFixtures(fixtures: readonly Fixture[]): Promise<void> {
  const ddb = new DynamoDBClient({
    endpoint: h.cp.endpoints.dynamodb,
    region: 'us-east-1',
    credentials: LOCAL_CREDENTIALS,
  });
  const client = eks();
  try {
    for (const f of fixtures) {
      for (const r of f.requests) {
        if (r.command === 'CreateCluster') {
          await client.send(new CreateClusterCommand(r.input as CreateClusterCommandInput));
          await until('cluster ACTIVE', () => simCluster(h, f.spec.clusterName)?.status === 'ACTIVE');
        } else await client.send(new CreateNodegroupCommand(r.input as CreateNodegroupCommandInput));
      }
      await until('node groups ACTIVE', () =>
        groups(f.spec.clusterName).every((ng) => ng.status === 'ACTIVE'),
      );
      for (const item of [f.record.raw, ...f.claims.map((c) => c.raw)])
        await ddb.send(new PutItemCommand({ TableName: LOCAL_TABLE, Item: item }));
    }
    await h.cp.settle();
  } finally {
    ddb.destroy();
    client.destroy();
  }
}
