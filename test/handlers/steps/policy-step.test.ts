/**
 * The Policy step's contract with the state machine: `outcome` tells allow, approval and deny apart,
 * a deny wins over approvals, and ApplyStep refuses anything but an allow before touching EKS.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { estimateSpecCost } from '../../../lambdas/core/cost/estimate.js';
import { InternalError } from '../../../lambdas/core/errors.js';
import type { PolicyDecision } from '../../../lambdas/core/policy-input.js';
import type { ApprovalState, ExecutionState, PolicyResult } from '../../../lambdas/handlers/contracts.js';
import { DEFAULT_CONFIG, type Deps, setDeps } from '../../../lambdas/handlers/deps.js';
import { applyStep } from '../../../lambdas/handlers/steps/apply.js';
import { policyStep } from '../../../lambdas/handlers/steps/policy.js';
import { ID, spec } from '../../core/support/fixtures.js';

const NOW = new Date('2026-11-29T12:00:00Z');
const approval = {
  rule: 'production-deletion-approval',
  operation: 'delete cluster demo',
  reason: 'production',
};
const error = { rule: 'required-tags', message: 'tag team is missing', severity: 'error' as const };

const state: ExecutionState = {
  id: ID,
  trigger: 'manual',
  owner: 'exec-1',
  loop: 0,
  observed: {
    generation: 1,
    deletionRequested: false,
    spec: spec(),
    trackedUpdates: [],
    deletionCalls: 0,
    applied: {},
  },
  plan: {
    action: 'apply',
    operations: [],
    descriptions: [],
    impossible: [],
    drift: [],
    estimate: estimateSpecCost(spec(), NOW),
  },
};

/** Deps whose EKS and store fail the test if reached: the steps here must decide before them. */
function install(decision: PolicyDecision & { degraded: boolean }): void {
  const untouched = () => {
    throw new Error('reached EKS or the store');
  };
  setDeps({
    now: () => NOW,
    config: DEFAULT_CONFIG,
    policy: { evaluate: async () => decision },
    store: new Proxy({}, { get: untouched }),
    provider: new Proxy({}, { get: untouched }),
  } as unknown as Deps);
}
afterEach(() => setDeps(undefined));

describe('Policy step outcome', () => {
  it.each([
    {
      why: 'no error, no approval',
      decision: { allow: true, violations: [], approvals: [] },
      outcome: 'allow',
    },
    {
      why: 'an approval',
      decision: { allow: true, violations: [], approvals: [approval] },
      outcome: 'approval',
    },
    {
      why: 'an error and an approval',
      decision: { allow: false, violations: [error], approvals: [approval] },
      outcome: 'deny',
    },
  ])('$why -> $outcome', async ({ decision, outcome }) => {
    install({ ...decision, degraded: false });
    expect(await policyStep(state)).toEqual({ ...decision, degraded: false, outcome });
  });

  it('a degraded engine denies', async () => {
    install({ allow: false, violations: [error], approvals: [], degraded: true });
    expect(await policyStep(state)).toMatchObject({ allow: false, degraded: true, outcome: 'deny' });
  });
});

describe('Policy step: approvals of this generation', () => {
  const withState = (approvalState: ApprovalState): ExecutionState => ({
    ...state,
    observed: { ...state.observed!, approvalState },
  });

  it('an approval granted for this generation counts as given: allow, and it is no longer listed', async () => {
    install({ allow: true, violations: [], approvals: [approval], degraded: false });
    const granted = withState({ granted: ['production-deletion-approval|delete cluster demo'] });
    expect(await policyStep(granted)).toMatchObject({ allow: true, approvals: [], outcome: 'allow' });
  });

  it('a grant of another operation does not cover this one', async () => {
    install({ allow: true, violations: [], approvals: [approval], degraded: false });
    const other = withState({ granted: ['production-deletion-approval|delete cluster other'] });
    expect(await policyStep(other)).toMatchObject({ approvals: [approval], outcome: 'approval' });
  });

  const KEY = 'production-deletion-approval|delete cluster demo';

  it('denied for this generation: outcome denied with why, nothing asked again', async () => {
    install({ allow: true, violations: [], approvals: [approval], degraded: false });
    const denial = { reason: 'ApprovalDenied' as const, message: 'Approval denied: freeze' };
    expect(await policyStep(withState({ granted: [], denied: { keys: [KEY], ...denial } }))).toMatchObject({
      outcome: 'denied',
      denial,
    });
  });

  it('a denial of another operation of the generation does not stop this one being asked for', async () => {
    install({ allow: true, violations: [], approvals: [approval], degraded: false });
    const denied = {
      keys: ['production-replacement-approval|replace node group a'],
      reason: 'ApprovalDenied' as const,
      message: 'no',
    };
    expect(await policyStep(withState({ granted: [], denied }))).toMatchObject({ outcome: 'approval' });
  });

  it('a deny still wins over a denial', async () => {
    install({ allow: false, violations: [error], approvals: [approval], degraded: false });
    const denial = { keys: [KEY], reason: 'ApprovalTimedOut' as const, message: 'timed out' };
    const r = await policyStep(withState({ granted: [], denied: denial }));
    expect(r.outcome).toBe('deny');
    expect(r.denial).toBeUndefined();
  });
});

describe('ApplyStep refuses anything but an allow', () => {
  it.each<PolicyResult>([
    { allow: true, violations: [], approvals: [approval], degraded: false, outcome: 'approval' },
    { allow: false, violations: [error], approvals: [], degraded: false, outcome: 'deny' },
  ])('$outcome: InternalError, nothing read or called', async (policy) => {
    install({ allow: true, violations: [], approvals: [], degraded: false });
    const next = { kind: 'DeleteCluster' as const, clusterName: 'demo', region: 'us-east-1' };
    const planned = { ...state, plan: { ...state.plan!, next }, policy };
    await expect(applyStep(planned)).rejects.toThrow(InternalError);
    await expect(applyStep(planned)).rejects.toThrow(/the policy did not allow this plan/);
  });
});
