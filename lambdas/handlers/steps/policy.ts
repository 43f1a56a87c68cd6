/** PolicyCheck: the WASM policy bundle over spec, observation, plan and estimate. Fails closed. */
import { buildPolicyInput, emptyObservation, type PolicyDecision } from '../../core/policy-input.js';
import type { ExecutionState, PolicyOutcome, PolicyResult } from '../contracts.js';
import { depsOf } from '../deps.js';

/** A deny wins over approvals; approvals hold back a plan the policies allow. */
export function policyOutcome(d: PolicyDecision): PolicyOutcome {
  if (!d.allow) return 'deny';
  return d.approvals.length > 0 ? 'approval' : 'allow';
}

export async function policyStep(state: ExecutionState): Promise<PolicyResult> {
  const { policy, now } = depsOf('policy');
  const o = state.observed;
  const p = state.plan;
  // An invalid spec is never evaluated: it is rejected before policy, and nothing is applied.
  if (!o?.spec || !p?.estimate)
    return { allow: false, violations: [], approvals: [], degraded: false, outcome: 'deny' };
  const at = now();
  const input = buildPolicyInput({
    desired: { id: state.id, spec: o.spec, generation: o.generation, deletionRequested: o.deletionRequested },
    observation: o.observation ?? emptyObservation(at),
    plan: p.operations,
    estimate: p.estimate,
    now: at,
  });
  const d = await policy.evaluate(input);
  return {
    allow: d.allow,
    violations: d.violations,
    approvals: d.approvals,
    degraded: d.degraded,
    outcome: policyOutcome(d),
  };
}
