/**
 * An approval nobody answers: with a short `approvalTimeoutSeconds` (the definition option the stack
 * sets), the wait ends as ApprovalTimedOut, a denial for that generation; nothing was called in EKS.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_DEFINITION_OPTIONS } from '../../lambdas/statemachine/definition.js';
import { answer, production, waiting } from './approval-support.js';
import { applyAndSettle, condition, mutating, useHarness } from './support.js';

const { harness } = useHarness({ definition: { ...DEFAULT_DEFINITION_OPTIONS, approvalTimeoutSeconds: 2 } });

describe('pipeline scenarios: approval timeout', () => {
  it('nobody answers within approvalTimeoutSeconds -> Ready False ApprovalTimedOut, the lease released, nothing called', async () => {
    const h = harness();
    const id = 'team/prod-timeout';
    await applyAndSettle(h, id, production('prod-timeout'));
    await h.cp.simAdmin.resetCalls();
    await h.cp.store.requestDeletion(id);
    const held = await waiting(h, id);
    // The lease covers the short wait too, not a day.
    expect(held.lease?.expiresAt).toBeLessThan(Date.now() + 2_000 + h.cp.deps.config.leaseTtlMs + 1_000);

    await h.cp.settle();
    const r = await h.cp.store.get(id);
    expect(r?.approval).toBeUndefined();
    expect(r?.lease).toBeUndefined();
    expect(r?.denied).toMatchObject({ generation: held.generation, reason: 'ApprovalTimedOut' });
    expect(condition(r?.status, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'ApprovalTimedOut',
      message: expect.stringMatching(
        /^Nobody approved or denied the held operations before the approval timeout/,
      ),
      remediation: expect.stringMatching(/raise the approval timeout/),
    });
    expect(condition(r?.status, 'AwaitingApproval')).toMatchObject({
      status: 'False',
      reason: 'ApprovalTimedOut',
    });
    expect(mutating(await h.cp.simAdmin.calls())).toEqual({});

    const late = await answer(h, id, { kind: 'approve' });
    expect(late.code).toBe(1);
    expect(late.err[0]).toMatch(/left unapproved until the timeout \(a spec change asks again\)/);
  });
});
