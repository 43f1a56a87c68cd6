/**
 * Pipeline scenarios for operations the policies hold for approval: the real handlers, the real
 * state machine on the local Step Functions endpoint, the real policy bundle, against the EKS
 * simulator. As a policy denial, an operation awaiting approval makes no mutating EKS call; status
 * says AwaitingApproval and how to approve, and the execution ends.
 */
import { describe, expect, it } from 'vitest';
import type { CloudClusterSpecInput } from '../../lambdas/core/spec/schema.js';
import { applyAndSettle, condition, mutating, spec, statusOf, useHarness } from './support.js';

const { harness, metrics } = useHarness();

/** A production cluster the default policies allow: the core add-ons, a small size. */
const production = (name: string, over: Partial<CloudClusterSpecInput> = {}) =>
  spec(name, {
    tags: { team: 'platform', environment: 'production' },
    addons: [{ name: 'vpc-cni' }, { name: 'coredns' }, { name: 'kube-proxy' }],
    ...over,
  });

describe('pipeline scenarios: approval required', () => {
  it('deleting a production cluster -> no mutating call, AwaitingApproval True, Ready false, nothing released', async () => {
    const h = harness();
    const id = 'team/prod-delete';
    await applyAndSettle(h, id, production('prod-delete'));
    expect((await statusOf(h, id))?.ready).toBe(true);
    await h.cp.simAdmin.resetCalls();

    await h.cp.store.requestDeletion(id);
    await h.cp.settle();

    expect(mutating(await h.cp.simAdmin.calls())).toEqual({});
    const st = await statusOf(h, id);
    expect(st).toMatchObject({ ready: false, synced: false });
    const message =
      'delete cluster prod-delete requires approval (production-deletion-approval): cluster prod-delete is production (tag environment=production): deleting it destroys it and everything running on it; approve it with: cloudorch approve team/prod-delete';
    expect(condition(st, 'AwaitingApproval')).toMatchObject({
      status: 'True',
      reason: 'ApprovalRequired',
      message,
    });
    expect(condition(st, 'Ready')).toMatchObject({ status: 'False', reason: 'ApprovalRequired', message });
    // The policies pass: approval is not a violation, and it is no denial.
    expect(condition(st, 'PolicyCompliant')?.status).toBe('True');
    expect(st?.remediation).toMatch(/approve it with the command the message names/);
    expect(metrics.some((m) => m.name === 'PolicyDenials')).toBe(false);
    // The record stays: deletion goes on only once approved.
    expect((await h.cp.store.get(id))?.deletionRequestedAt).toBeDefined();
  });

  it('replacing a production node group waits for approval; going back to the spec clears AwaitingApproval', async () => {
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
    await applyAndSettle(h, id, {
      ...base,
      nodeGroups: [{ ...base.nodeGroups[0]!, instanceTypes: ['t3.large'] }],
    });
    expect(mutating(await h.cp.simAdmin.calls())).toEqual({});
    const held = await statusOf(h, id);
    expect(held).toMatchObject({ ready: false, synced: false });
    expect(condition(held, 'AwaitingApproval')).toMatchObject({ status: 'True', reason: 'ApprovalRequired' });
    expect(condition(held, 'AwaitingApproval')?.message).toMatch(
      /^replace node group \S+ requires approval \(production-replacement-approval\): .*; approve it with: cloudorch approve team\/prod-replace$/,
    );

    await applyAndSettle(h, id, base);
    const back = await statusOf(h, id);
    expect(back).toMatchObject({ ready: true, synced: true });
    expect(condition(back, 'AwaitingApproval')).toMatchObject({
      status: 'False',
      reason: 'NoApprovalPending',
    });
    expect(mutating(await h.cp.simAdmin.calls())).toEqual({});
  });
});
