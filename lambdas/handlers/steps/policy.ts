/**
 * PolicyCheck: the WASM policy bundle over spec, observation, plan and estimate. Fails closed.
 * Approvals a human granted for this generation count as given; once one was denied (or its wait
 * timed out) for this generation, nothing is asked again until the spec changes.
 */
import { buildPolicyInput, emptyObservation, type PolicyDecision } from '../../core/policy-input.js';
import { approvalKey } from '../../core/status-approval.js';
import type { ApprovalState, ExecutionState, PolicyOutcome, PolicyResult } from '../contracts.js';
import { depsOf } from '../deps.js';

/** A deny wins over approvals; approvals hold back a plan the policies allow, or end it once denied. */
export function policyOutcome(d: PolicyDecision, denied = false): PolicyOutcome {
  if (!d.allow) return 'deny';
  if (d.approvals.length === 0) return 'allow';
  return denied ? 'denied' : 'approval';
}

/** The decision without the approvals already granted for this generation. */
export function withoutGranted(d: PolicyDecision, s: ApprovalState | undefined): PolicyDecision {
  const granted = new Set(s?.granted ?? []);
  return { ...d, approvals: d.approvals.filter((a) => !granted.has(approvalKey(a))) };
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
  const evaluated = await policy.evaluate(input);
  const d = withoutGranted(evaluated, o.approvalState);
  // Only what was denied stays denied: another operation of the same generation is asked for.
  const denial = o.approvalState?.denied;
  const denied = denial !== undefined && d.approvals.some((a) => denial.keys.includes(approvalKey(a)));
  const outcome = policyOutcome(d, denied);
  return {
    allow: d.allow,
    violations: d.violations,
    approvals: d.approvals,
    degraded: evaluated.degraded,
    outcome,
    ...(outcome === 'denied' && denial ? { denial: { reason: denial.reason, message: denial.message } } : {}),
  };
}
