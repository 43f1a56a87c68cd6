/**
 * The store contract, run against dynalite (what local mode uses) and AWS's DynamoDB Local (the
 * reference), so a behaviour that only one server has cannot hide here.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InternalError } from '../../lambdas/core/errors.js';
import { DynamoDesiredStateStore } from '../../lambdas/store/dynamo-store.js';
import {
  ConflictError,
  DeletionInProgressError,
  LeaseHeldError,
  LeaseLostError,
  RecordNotFoundError,
  SpecChangedError,
  TargetChangeError,
  TargetClaimedError,
} from '../../lambdas/store/errors.js';
import { isConditionFailure } from '../../lambdas/store/items.js';
import { leaseView } from '../../lambdas/store/lease.js';
import { specHash } from '../../lambdas/store/spec-hash.js';
import { HISTORY_LIMIT } from '../../lambdas/store/types.js';
import { createTable } from '../../local/store/table.js';
import { type DynamoServer, dynamoClient, startDynalite, startDynamoDbLocal } from './servers.js';
import {
  at,
  beforeNextPut,
  beforeNextUpdate,
  convergedStatus,
  historyEntries,
  spec,
  T0,
  uniqueId,
  uniqueTable,
} from './support.js';

const TTL = 60_000;

/** Each record names its own cluster: a target belongs to one record (claims). */
const specOf = (id: string, over: Parameters<typeof spec>[0] = {}) =>
  spec({ clusterName: id.replace(/[^a-z0-9]+/g, '-'), ...over });

describe.each([
  { name: 'dynalite', start: startDynalite },
  { name: 'DynamoDB Local', start: startDynamoDbLocal },
])('DynamoDesiredStateStore on $name', ({ start }) => {
  let server: DynamoServer;
  let table: string;
  const clients: DynamoDBClient[] = [];

  /** A store with its own client, so a race hook on one store does not touch another. */
  function newStore(): { store: DynamoDesiredStateStore; client: DynamoDBClient } {
    const client = dynamoClient(server);
    clients.push(client);
    return { store: new DynamoDesiredStateStore({ client, tableName: table }), client };
  }

  let store: DynamoDesiredStateStore;

  beforeAll(async () => {
    server = await start();
    table = uniqueTable();
    const { client } = newStore();
    await createTable(client, table);
    store = newStore().store;
  });

  afterAll(async () => {
    for (const c of clients) c.destroy();
    await server?.stop();
  });

  /** A record whose lease `owner` holds. */
  async function leased(prefix: string, owner = 'exec-1') {
    const id = uniqueId(prefix);
    await store.applySpec(id, specOf(id), { now: T0 });
    await store.acquireLease(id, owner, TTL, T0);
    return id;
  }

  describe('applySpec', () => {
    it('creates the record at generation 1 and version 1', async () => {
      const id = uniqueId('create');
      const s = specOf(id);
      const result = await store.applySpec(id, s, { now: T0 });
      const expected = {
        id,
        spec: s,
        specHash: specHash(s),
        generation: 1,
        version: 1,
        createdAt: T0.toISOString(),
      };
      expect(result).toEqual({ record: expected, changed: true, created: true, labelsChanged: false });
      expect(await store.get(id)).toEqual(expected);
      expect(specHash(s)).toMatch(/^[0-9a-f]{64}$/);
    });

    it('re-applying the same spec, keys in another order, writes nothing', async () => {
      const id = uniqueId('noop');
      const s = specOf(id);
      await store.applySpec(id, s, { now: T0 });
      const reordered = Object.fromEntries(Object.entries(s).reverse()) as typeof s;
      const again = await store.applySpec(id, reordered, { now: at(1000) });
      expect(again.changed).toBe(false);
      expect(again.created).toBe(false);
      expect(await store.get(id)).toMatchObject({ generation: 1, version: 1, createdAt: T0.toISOString() });
    });

    it('a real change bumps generation and version and keeps createdAt', async () => {
      const id = uniqueId('change');
      await store.applySpec(id, specOf(id), { now: T0 });
      const changed = specOf(id, { nodeCount: 5 });
      const result = await store.applySpec(id, changed, { now: at(1000) });
      expect(result).toMatchObject({ changed: true, created: false });
      expect(await store.get(id)).toEqual({
        id,
        spec: changed,
        specHash: specHash(changed),
        generation: 2,
        version: 2,
        createdAt: T0.toISOString(),
      });
    });

    it('is conditional on expectedVersion', async () => {
      const id = uniqueId('expected');
      await expect(store.applySpec(id, specOf(id), { expectedVersion: 3 })).rejects.toBeInstanceOf(
        ConflictError,
      );
      expect(await store.get(id)).toBeUndefined();
      await store.applySpec(id, specOf(id), { expectedVersion: 0 }); // 0: create only
      await expect(store.applySpec(id, specOf(id), { expectedVersion: 0 })).rejects.toBeInstanceOf(
        ConflictError,
      );
      await expect(
        store.applySpec(id, specOf(id, { nodeCount: 4 }), { expectedVersion: 2 }),
      ).rejects.toBeInstanceOf(ConflictError);
      expect((await store.get(id))?.spec.nodeGroups[0]?.nodeCount).toBe(3);
      const ok = await store.applySpec(id, specOf(id, { nodeCount: 4 }), { expectedVersion: 1 });
      expect(ok.record).toMatchObject({ generation: 2, version: 2 });
    });

    it('a spec write racing another spec write fails with ConflictError, not an overwrite', async () => {
      const id = uniqueId('race');
      await store.applySpec(id, specOf(id), { now: T0 });
      const a = newStore();
      const b = newStore();
      beforeNextUpdate(a.client, () => b.store.applySpec(id, specOf(id, { nodeCount: 7 })));
      const lost = await a.store.applySpec(id, specOf(id, { nodeCount: 9 })).catch((e: unknown) => e);
      expect(lost).toBeInstanceOf(ConflictError);
      expect(isConditionFailure((lost as ConflictError).cause)).toBe(true);
      expect(await store.get(id)).toMatchObject({
        spec: { nodeGroups: [{ nodeCount: 7 }] },
        generation: 2,
        version: 2,
      });
    });

    it('losing a race to a writer of the very same spec is a no-op, not a conflict', async () => {
      const id = uniqueId('same');
      await store.applySpec(id, specOf(id), { now: T0 });
      const a = newStore();
      const b = newStore();
      beforeNextUpdate(a.client, () => b.store.applySpec(id, specOf(id, { nodeCount: 7 })));
      const result = await a.store.applySpec(id, specOf(id, { nodeCount: 7 }));
      expect(result.changed).toBe(false);
      expect(await store.get(id)).toMatchObject({ generation: 2, version: 2 });
    });

    it('a status write between the read and the write does not conflict with the spec write', async () => {
      const id = await leased('spec-status');
      const a = newStore();
      beforeNextUpdate(a.client, () => store.writeStatus(id, 'exec-1', { status: convergedStatus(1) }));
      const result = await a.store.applySpec(id, specOf(id, { nodeCount: 4 }));
      expect(result.record).toMatchObject({ generation: 2, version: 2 });
      expect(await store.get(id)).toMatchObject({ generation: 2, status: convergedStatus(1) });
    });
  });

  describe('requestDeletion', () => {
    it('marks the record once, bumps version not generation, and blocks spec writes', async () => {
      const id = uniqueId('delete');
      await expect(store.requestDeletion(id, T0)).rejects.toBeInstanceOf(RecordNotFoundError);
      await store.applySpec(id, specOf(id), { now: T0 });
      const first = await store.requestDeletion(id, at(1000));
      expect(first).toMatchObject({ deletionRequestedAt: at(1000).toISOString(), generation: 1, version: 2 });
      const again = await store.requestDeletion(id, at(2000));
      expect(again).toMatchObject({ deletionRequestedAt: at(1000).toISOString(), version: 2 });
      await expect(store.applySpec(id, specOf(id, { nodeCount: 5 }))).rejects.toBeInstanceOf(
        DeletionInProgressError,
      );
      expect((await store.get(id))?.spec.nodeGroups[0]?.nodeCount).toBe(3);
    });
  });

  describe('lease', () => {
    it('is taken when free, refused to others while valid, and re-taken by its owner', async () => {
      const id = uniqueId('lease');
      await expect(store.acquireLease(id, 'a', TTL, T0)).rejects.toBeInstanceOf(RecordNotFoundError);
      await store.applySpec(id, specOf(id), { now: T0 });
      await store.acquireLease(id, 'a', TTL, T0);
      expect((await store.get(id))?.lease).toEqual({ owner: 'a', expiresAt: T0.getTime() + TTL });
      const refused = await store.acquireLease(id, 'b', TTL, at(TTL)).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(LeaseHeldError);
      expect((refused as LeaseHeldError).holder).toBe('a');
      expect(isConditionFailure((refused as LeaseHeldError).cause)).toBe(true);
      await store.acquireLease(id, 'a', TTL, at(1000));
      expect((await store.get(id))?.lease).toEqual({ owner: 'a', expiresAt: at(1000 + TTL).getTime() });
    });

    it('is held through its expiresAt and free after it: the acquire condition and leaseView agree', async () => {
      const id = await leased('boundary', 'a');
      const lease = (await store.get(id))?.lease;
      expect(leaseView(lease, at(TTL), TTL)).toBe('live');
      await expect(store.acquireLease(id, 'b', TTL, at(TTL))).rejects.toBeInstanceOf(LeaseHeldError);
      expect(leaseView(lease, at(TTL + 1), TTL)).toBe('expired');
      await store.acquireLease(id, 'b', TTL, at(TTL + 1));
      expect((await store.get(id))?.lease?.owner).toBe('b');
    });

    it('an expired lease is taken over; the old owner can neither renew nor write status', async () => {
      const id = await leased('takeover', 'a');
      await store.acquireLease(id, 'b', TTL, at(TTL + 1));
      expect((await store.get(id))?.lease?.owner).toBe('b');
      await expect(store.renewLease(id, 'a', TTL, at(TTL + 2))).rejects.toBeInstanceOf(LeaseLostError);
      await expect(store.writeStatus(id, 'a', { status: convergedStatus(1) })).rejects.toBeInstanceOf(
        LeaseLostError,
      );
      await store.releaseLease(id, 'a'); // not ours: a no-op
      expect((await store.get(id))?.lease?.owner).toBe('b');
      expect((await store.get(id))?.status).toBeUndefined();
    });

    it('renew extends, release frees, and a free lease goes to the next owner', async () => {
      const id = await leased('renew', 'a');
      await store.renewLease(id, 'a', TTL, at(30_000));
      expect((await store.get(id))?.lease).toEqual({ owner: 'a', expiresAt: at(30_000 + TTL).getTime() });
      await store.releaseLease(id, 'a');
      expect((await store.get(id))?.lease).toBeUndefined();
      await expect(store.renewLease(id, 'a', TTL, at(31_000))).rejects.toBeInstanceOf(LeaseLostError);
      await store.acquireLease(id, 'b', TTL, at(31_000));
      expect((await store.get(id))?.lease?.owner).toBe('b');
    });

    it('of five concurrent acquirers exactly one wins and the others learn who', async () => {
      const id = uniqueId('contend');
      await store.applySpec(id, specOf(id), { now: T0 });
      const owners = ['a', 'b', 'c', 'd', 'e'];
      const contenders = owners.map(() => newStore().store);
      const results = await Promise.allSettled(
        contenders.map((s, i) => s.acquireLease(id, owners[i]!, TTL, T0)),
      );
      const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [owners[i]] : []));
      expect(won).toHaveLength(1);
      for (const r of results) {
        if (r.status === 'rejected') {
          expect(r.reason).toBeInstanceOf(LeaseHeldError);
          expect((r.reason as LeaseHeldError).holder).toBe(won[0]);
        }
      }
      expect((await store.get(id))?.lease?.owner).toBe(won[0]);
    });
  });

  describe('approval wait', () => {
    const DAY = 86_400_000;
    const pending = (generation: number) => ({
      token: 'tok',
      generation,
      approvals: [{ rule: 'r', operation: 'delete cluster x', reason: 'prod' }],
      requestedAt: T0.toISOString(),
      expiresAt: at(DAY).toISOString(),
    });

    it('is stored with the lease stretched over it; nobody takes that lease, which only a wait makes plausible', async () => {
      const id = await leased('wait', 'a');
      await store.awaitApproval(id, 'a', pending(1), {
        leaseExpiresAt: at(DAY + TTL).getTime(),
        deleting: false,
      });
      const r = await store.get(id);
      expect(r?.approval).toEqual(pending(1));
      expect(r?.lease).toEqual({ owner: 'a', expiresAt: at(DAY + TTL).getTime() });
      expect(leaseView(r?.lease, at(TTL + 1), TTL, true)).toBe('live');
      await expect(store.acquireLease(id, 'b', TTL, at(TTL + 1))).rejects.toBeInstanceOf(LeaseHeldError);
      // Without a pending wait, a lease a day ahead is not one CloudOrch writes: it counts as free.
      await store.endApproval(id, 'a', {});
      expect(leaseView((await store.get(id))?.lease, at(TTL + 1), TTL)).toBe('implausible');
      await store.acquireLease(id, 'b', TTL, at(TTL + 1));
      expect((await store.get(id))?.lease?.owner).toBe('b');
    });

    it('is taken back once the spec moved on (SpecChangedError), and refused when the lease is lost (LeaseLostError)', async () => {
      const id = await leased('wait-stale', 'a');
      await store.applySpec(id, specOf(id, { nodeCount: 5 }), { now: T0 });
      const opts = { leaseExpiresAt: at(DAY).getTime(), deleting: false };
      await expect(store.awaitApproval(id, 'a', pending(1), opts)).rejects.toBeInstanceOf(SpecChangedError);
      // Nobody would answer that wait: it is not left on the record.
      expect((await store.get(id))?.approval).toBeUndefined();
      await expect(store.awaitApproval(id, 'b', pending(2), opts)).rejects.toBeInstanceOf(LeaseLostError);
      await store.requestDeletion(id, T0);
      await expect(store.awaitApproval(id, 'a', pending(2), opts)).rejects.toBeInstanceOf(SpecChangedError);
      await store.awaitApproval(id, 'a', pending(2), { ...opts, deleting: true });
      expect((await store.get(id))?.approval?.generation).toBe(2);
    });

    it('ends with the grant or the denial recorded and the wait removed, only by the lease holder', async () => {
      const id = await leased('wait-end', 'a');
      const opts = { leaseExpiresAt: at(DAY).getTime(), deleting: false };
      await store.awaitApproval(id, 'a', pending(1), opts);
      const approved = { generation: 1, keys: ['r|delete cluster x'], at: T0.toISOString(), by: 'ana' };
      await expect(store.endApproval(id, 'b', { approved })).rejects.toBeInstanceOf(LeaseLostError);
      await store.endApproval(id, 'a', { approved });
      expect(await store.get(id)).toMatchObject({ approved });
      expect((await store.get(id))?.approval).toBeUndefined();
      await store.awaitApproval(id, 'a', pending(1), opts);
      const denied = {
        generation: 1,
        keys: ['r|delete cluster x'],
        reason: 'ApprovalDenied' as const,
        message: 'no',
        at: T0.toISOString(),
      };
      await store.endApproval(id, 'a', { denied });
      expect(await store.get(id)).toMatchObject({ approved, denied });
    });
  });

  describe('writeStatus', () => {
    it('writes exactly the reconciler attributes and never spec, generation or version', async () => {
      const id = await leased('status');
      const status = convergedStatus(1, at(5000));
      const intent = {
        operation: 'CreateCluster',
        clientRequestToken: 'tok-1',
        generation: 1,
        at: T0.toISOString(),
      };
      const trackedUpdates = [{ id: 'upd-1', nodegroupName: 'ng-a' }];
      const history = historyEntries(0, 2);
      const written = await store.writeStatus(id, 'exec-1', { status, intent, trackedUpdates, history });
      const expected = {
        id,
        spec: specOf(id),
        specHash: specHash(specOf(id)),
        generation: 1,
        version: 1,
        createdAt: T0.toISOString(),
        lease: { owner: 'exec-1', expiresAt: T0.getTime() + TTL },
        status,
        intent,
        trackedUpdates,
        history,
        historyAppended: 2,
      };
      expect(written).toEqual(expected);
      expect(await store.get(id)).toEqual(expected);
    });

    it('intent null removes it; a write without history leaves history alone', async () => {
      const id = await leased('intent');
      const intent = { operation: 'UpdateVersion', generation: 1, at: T0.toISOString() };
      await store.writeStatus(id, 'exec-1', {
        status: convergedStatus(1),
        intent,
        history: historyEntries(0, 1),
      });
      await store.writeStatus(id, 'exec-1', { status: convergedStatus(1, at(1)), intent: null });
      const record = await store.get(id);
      expect(record).not.toHaveProperty('intent');
      expect(record?.history).toEqual(historyEntries(0, 1));
      expect(record?.status?.updatedAt).toBe(at(1).toISOString());
    });

    it(`keeps the newest ${HISTORY_LIMIT} history entries, newest last`, async () => {
      const id = await leased('history');
      for (let batch = 0; batch < 7; batch++) {
        await store.writeStatus(id, 'exec-1', {
          status: convergedStatus(1),
          history: historyEntries(batch * 9, 9),
        });
      }
      const record = await store.get(id);
      expect(record?.history).toEqual(historyEntries(63 - HISTORY_LIMIT, HISTORY_LIMIT));
      expect(record?.historyAppended).toBe(63);
      await store.writeStatus(id, 'exec-1', { status: convergedStatus(1), history: historyEntries(100, 55) });
      expect((await store.get(id))?.history).toEqual(historyEntries(105, HISTORY_LIMIT));
    });

    it('an append racing another append by the same holder loses no entry', async () => {
      const id = await leased('history-race');
      const a = newStore();
      beforeNextUpdate(a.client, () =>
        store.writeStatus(id, 'exec-1', { status: convergedStatus(1), history: historyEntries(0, 1) }),
      );
      await a.store.writeStatus(id, 'exec-1', { status: convergedStatus(1), history: historyEntries(1, 1) });
      const record = await store.get(id);
      expect(record?.history).toEqual(historyEntries(0, 2));
      expect(record?.historyAppended).toBe(2);
    });
  });

  describe('target claims', () => {
    const target = (name: string) => ({ region: 'us-east-1', clusterName: name });

    it('a target belongs to one record; a refused apply writes nothing and takes no claim', async () => {
      const a = uniqueId('claim-a');
      const b = uniqueId('claim-b');
      const name = a.replace(/[^a-z0-9]+/g, '-');
      await store.applySpec(a, spec({ clusterName: name }), { now: T0 });
      const lost = await store.applySpec(b, spec({ clusterName: name })).catch((e: unknown) => e);
      expect(lost).toBeInstanceOf(TargetClaimedError);
      expect((lost as TargetClaimedError).holder).toBe(a);
      expect(await store.get(b)).toBeUndefined();
      expect(await store.claimHolder(target(name))).toBe(a);
    });

    it('a claim lost to a concurrent claimer is refused with the refused write as its cause', async () => {
      const name = uniqueId('claim-race').replace(/[^a-z0-9]+/g, '-');
      const a = newStore();
      const winner = uniqueId('claim-winner');
      beforeNextPut(a.client, () => store.claimTarget(target(name), winner, T0));
      const lost = await a.store
        .claimTarget(target(name), uniqueId('claim-loser'), T0)
        .catch((e: unknown) => e);
      expect(lost).toBeInstanceOf(TargetClaimedError);
      expect((lost as TargetClaimedError).holder).toBe(winner);
      expect(isConditionFailure((lost as TargetClaimedError).cause)).toBe(true);
    });

    it('a write refused by its version check leaves no claim behind on the new target', async () => {
      const id = uniqueId('claim-leak');
      await store.applySpec(id, specOf(id), { now: T0 });
      const other = `${id.replace(/[^a-z0-9]+/g, '-')}-other`;
      await expect(
        store.applySpec(id, spec({ clusterName: other }), { expectedVersion: 99 }),
      ).rejects.toBeInstanceOf(ConflictError);
      expect(await store.claimHolder(target(other))).toBeUndefined();
    });

    it('a claim whose holder record is gone, or names another cluster now, is taken over', async () => {
      const gone = uniqueId('claim-gone');
      const name = gone.replace(/[^a-z0-9]+/g, '-');
      await store.claimTarget(target(name), gone, T0);
      const next = uniqueId('claim-next');
      // Within a minute the holder may be an apply on its way: still held.
      await expect(store.claimTarget(target(name), next, at(30_000))).rejects.toBeInstanceOf(
        TargetClaimedError,
      );
      expect(await store.claimTarget(target(name), next, at(61_000))).toBe(true);
      expect(await store.claimHolder(target(name), at(61_000))).toBe(next);
    });

    it('a claim held by a record on its way to that target (a rename in progress) is not stolen', async () => {
      const mover = uniqueId('claim-mover');
      await store.applySpec(mover, specOf(mover), { now: T0 });
      const dest = `${mover.replace(/[^a-z0-9]+/g, '-')}-dest`;
      // The mover has claimed `dest` but its record still names its old cluster.
      await store.claimTarget(target(dest), mover, T0);
      await expect(store.claimTarget(target(dest), uniqueId('thief'), at(1_000))).rejects.toBeInstanceOf(
        TargetClaimedError,
      );
      // Left like that for over a minute (a crash between the two writes), it is stale.
      expect(await store.claimTarget(target(dest), uniqueId('heir'), at(61_000))).toBe(true);
    });

    it('a write that loses to a concurrent write of the same record keeps the claim that record needs', async () => {
      const { store: a, client } = newStore();
      const id = uniqueId('claim-same');
      await a.applySpec(id, specOf(id), { now: T0 });
      const dest = `${id.replace(/[^a-z0-9]+/g, '-')}-dest`;
      beforeNextUpdate(client, () => store.applySpec(id, spec({ clusterName: dest, nodeCount: 7 })));
      await expect(a.applySpec(id, spec({ clusterName: dest, nodeCount: 9 }))).rejects.toBeInstanceOf(
        ConflictError,
      );
      expect((await store.get(id))?.spec.clusterName).toBe(dest);
      expect(await store.claimHolder(target(dest))).toBe(id);
    });

    it('a record that created (or is creating) its cluster cannot be moved to another one', async () => {
      const id = await leased('claim-creating');
      await store.recordIntent(id, 'exec-1', {
        operation: 'CreateCluster',
        generation: 1,
        at: T0.toISOString(),
      });
      await expect(store.applySpec(id, spec({ clusterName: 'elsewhere-2' }))).rejects.toBeInstanceOf(
        TargetChangeError,
      );
    });

    it('a record that owns its cluster cannot be moved to another one', async () => {
      const id = await leased('claim-owned');
      const owned = { ...convergedStatus(1), ownedArn: 'arn:aws:eks:us-east-1:123456789012:cluster/x' };
      await store.writeStatus(id, 'exec-1', { status: owned });
      await expect(store.applySpec(id, spec({ clusterName: 'elsewhere' }))).rejects.toBeInstanceOf(
        TargetChangeError,
      );
    });
  });

  describe('release', () => {
    it('deletes only after deletion was requested and only for the lease holder; repeats are no-ops', async () => {
      const id = await leased('release', 'a');
      await expect(store.release(id, 'a')).rejects.toBeInstanceOf(ConflictError);
      expect(await store.get(id)).toBeDefined();
      await store.requestDeletion(id, at(1000));
      await expect(store.release(id, 'b')).rejects.toBeInstanceOf(LeaseLostError);
      expect(await store.get(id)).toBeDefined();
      await store.release(id, 'a');
      expect(await store.get(id)).toBeUndefined();
      await expect(store.release(id, 'a')).resolves.toBeUndefined();
    });
  });

  describe('scanSegment', () => {
    it('covers every record exactly once across segments and pages', async () => {
      const { client, store: scanStore } = newStore();
      const scanTable = uniqueTable();
      await createTable(client, scanTable, { stream: false });
      const s = new DynamoDesiredStateStore({ client, tableName: scanTable });
      const ids = Array.from({ length: 23 }, (_, i) => `ns/cluster-${String(i).padStart(2, '0')}`);
      for (const id of ids) await s.applySpec(id, specOf(id), { now: T0 });
      const seen: string[] = [];
      let pages = 0;
      for (let segment = 0; segment < 3; segment++) {
        let next: string | undefined;
        do {
          const page = await s.scanSegment(segment, 3, { limit: 4, ...(next ? { next } : {}) });
          seen.push(...page.records.map((r) => r.id));
          next = page.next;
          pages++;
        } while (next);
      }
      expect(seen.sort()).toEqual(ids);
      expect(pages).toBeGreaterThan(3); // paging was exercised, not one page per segment
      await expect(scanStore.scanSegment(0, 3, { next: 'bm90IGEga2V5' })).rejects.toBeInstanceOf(
        InternalError,
      );
    });
  });
});
