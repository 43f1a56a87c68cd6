/**
 * Pipeline scenarios for operations the policies hold for approval: the real handlers, the real
 * state machine on the local Step Functions endpoint, the real policy bundle, against the EKS
 * simulator. An operation awaiting approval makes no mutating EKS call: the execution waits on a task
 * token stored on the record, holding the lease, until `cloudorch approve` resumes it, `cloudorch
 * deny` ends it, or a spec change cancels it.
 */
import { describe, expect, it } from 'vitest';
import { leaseView } from '../../lambdas/store/lease.js';
import { answer, production, waiting } from './approval-support.js';
import { applyAndSettle, condition, mutating, statusOf, useHarness } from './support.js';

const { harness, metrics } = useHarness();

describe('pipeline scenarios: approval required', () => {
  it('deleting a production cluster waits (no EKS call, token on the record, lease held); approve -> the deletion completes', async () => {
    const h = harness();
    const id = 'team/prod-delete';
    await applyAndSettle(h, id, production('prod-delete'));
    expect((await statusOf(h, id))?.ready).toBe(true);
    await h.cp.simAdmin.resetCalls();

    await h.cp.store.requestDeletion(id);
    const held = await waiting(h, id);

    expect(mutating(await h.cp.simAdmin.calls())).toEqual({});
    expect(held.approval).toMatchObject({
      token: expect.any(String),
      generation: held.generation,
      approvals: [{ rule: 'production-deletion-approval', operation: 'delete cluster prod-delete' }],
    });
    // The lease outlives the wait (a day by default), and every reader still counts it as held.
    const now = new Date();
    expect(held.lease?.expiresAt).toBeGreaterThan(now.getTime() + 23 * 3600_000);
    expect(leaseView(held.lease, now, h.cp.deps.config.leaseTtlMs, true)).toBe('live');
    const st = held.status;
    expect(st).toMatchObject({ ready: false, synced: false });
    const message =
      'delete cluster prod-delete requires approval (production-deletion-approval): cluster prod-delete is production (tag environment=production): deleting it destroys it and everything running on it; approve it with: cloudorch approve team/prod-delete (or deny it with: cloudorch deny team/prod-delete --reason ...); who may approve: whoever is allowed states:SendTaskSuccess on the Reconcile state machine';
    expect(condition(st, 'AwaitingApproval')).toMatchObject({
      status: 'True',
      reason: 'ApprovalRequired',
      message,
    });
    expect(condition(st, 'Ready')).toMatchObject({ status: 'False', reason: 'ApprovalRequired', message });
    // The policies pass: approval is not a violation, and it is no denial.
    expect(condition(st, 'PolicyCompliant')?.status).toBe('True');
    expect(metrics.some((m) => m.name === 'PolicyDenials')).toBe(false);

    const approved = await answer(h, id, { kind: 'approve' });
    expect(approved).toMatchObject({ code: 0, err: [] });
    expect(approved.out[0]).toMatch(/^cloudcluster\/team\/prod-delete approved: delete cluster prod-delete/);
    await h.cp.settle();

    // One approval covers the whole deletion of this generation: node groups, then the cluster.
    expect(await h.cp.store.get(id)).toBeUndefined();
    expect(mutating(await h.cp.simAdmin.calls())).toMatchObject({ DeleteCluster: 1 });
  });

  it('deny -> nothing is touched, Ready False ApprovalDenied with the reason; the next sweep does not ask again', async () => {
    const h = harness();
    const id = 'team/prod-deny';
    await applyAndSettle(h, id, production('prod-deny'));
    await h.cp.simAdmin.resetCalls();
    await h.cp.store.requestDeletion(id);
    const held = await waiting(h, id);

    const denied = await answer(h, id, { kind: 'deny', reason: 'not during the freeze' });
    expect(denied).toMatchObject({ code: 0, err: [] });
    await h.cp.settle();

    const r = await h.cp.store.get(id);
    expect(r?.approval).toBeUndefined();
    expect(r?.lease).toBeUndefined();
    expect(r?.denied).toMatchObject({
      generation: held.generation,
      keys: ['production-deletion-approval|delete cluster prod-deny'],
      reason: 'ApprovalDenied',
    });
    expect(condition(r?.status, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'ApprovalDenied',
      message: 'Approval denied: not during the freeze',
    });
    expect(condition(r?.status, 'AwaitingApproval')).toMatchObject({
      status: 'False',
      reason: 'ApprovalDenied',
    });
    expect(mutating(await h.cp.simAdmin.calls())).toEqual({});

    // Same generation: a sweep sees the denial and asks nobody again.
    await h.cp.sweepNow();
    await h.cp.settle();
    const after = await h.cp.store.get(id);
    expect(after?.approval).toBeUndefined();
    expect(condition(after?.status, 'Ready')?.reason).toBe('ApprovalDenied');
    expect(mutating(await h.cp.simAdmin.calls())).toEqual({});

    // Nothing waits now: approve and deny say what the cluster is doing instead, and exit 1.
    const late = await answer(h, id, { kind: 'approve' });
    expect(late.code).toBe(1);
    expect(late.err[0]).toMatch(
      /^error: cloudcluster\/team\/prod-deny has no operation awaiting approval: Ready False \(ApprovalDenied\): Approval denied: not during the freeze; generation \d+ was already denied/,
    );
    expect((await answer(h, id, { kind: 'deny', reason: '  ' })).err).toEqual([
      'error: deny needs --reason TEXT (why the operations must not run)',
    ]);
  });

  it('a spec change while waiting cancels the wait; the new generation is evaluated (and needs none)', async () => {
    const h = harness();
    const id = 'team/prod-replace';
    // The allow tag lifts the nodegroup-replacement deny; the approval is still required.
    const base = production('prod-replace', {
      tags: { team: 'platform', environment: 'production', 'allow-nodegroup-replacement': 'true' },
    });
    await applyAndSettle(h, id, base);
    expect((await statusOf(h, id))?.ready).toBe(true);
    await h.cp.simAdmin.resetCalls();

    // A new instance type is a new node group for the pool: the old one would be replaced.
    await h.cp.store.applySpec(id, {
      ...base,
      nodeGroups: [{ ...base.nodeGroups[0]!, instanceTypes: ['t3.large'] }],
    });
    const held = await waiting(h, id);
    expect(condition(held.status, 'AwaitingApproval')?.message).toMatch(
      /^replace node group \S+ requires approval \(production-replacement-approval\): .*; approve it with: cloudorch approve team\/prod-replace \(or deny it with: cloudorch deny team\/prod-replace --reason \.\.\.\); who may approve: .*$/,
    );

    await applyAndSettle(h, id, base);
    const back = await h.cp.store.get(id);
    expect(back?.generation).toBe(held.generation + 1);
    expect(back?.approval).toBeUndefined();
    expect(back?.denied).toBeUndefined();
    expect(back?.status).toMatchObject({ ready: true, synced: true, observedGeneration: back?.generation });
    expect(condition(back?.status, 'AwaitingApproval')).toMatchObject({
      status: 'False',
      reason: 'NoApprovalPending',
    });
    expect(mutating(await h.cp.simAdmin.calls())).toEqual({});
    // The cancelled token is closed: answering it now finds nothing pending.
    expect((await answer(h, id, { kind: 'approve' })).code).toBe(1);
  });

  it('approve of a name that does not exist is an error naming it', async () => {
    const h = harness();
    const res = await answer(h, 'team/nobody', { kind: 'approve' });
    expect(res.code).toBe(1);
    expect(res.err[0]).toMatch(/team\/nobody/);
  });
});
