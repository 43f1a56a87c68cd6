/**
 * Turns the raw wasm result into a typed decision, or refuses it. Anything but one well-formed,
 * self-consistent `{allow, violations, approvals}` is an error, and the engine answers an error with
 * a deny. `approvals` is required: a bundle that cannot say what needs approving is not trusted to.
 */
import type { PolicyDecision } from '../core/policy-input.js';
import type { PolicyApproval, PolicyViolation } from '../core/status.js';
import { PolicyDecisionError } from './errors.js';

/** Rules the engine itself reports; they are never produced by Rego. */
export const ENGINE_RULES = {
  /** No usable bundle: missing, corrupt, unloadable, or refused by the self-check. */
  degraded: 'policy-engine-degraded',
  /** The bundle is loaded but this evaluation failed or returned something malformed. */
  evaluationFailed: 'policy-evaluation-failed',
} as const;

export function denyDecision(rule: string, message: string): PolicyDecision {
  return { allow: false, violations: [{ rule, message, severity: 'error' }], approvals: [] };
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function violation(v: unknown, i: number): PolicyViolation {
  if (
    !isRecord(v) ||
    typeof v.rule !== 'string' ||
    typeof v.message !== 'string' ||
    (v.severity !== 'error' && v.severity !== 'warn')
  ) {
    throw new PolicyDecisionError(`violations[${i}] is not {rule, message, severity: error|warn}`);
  }
  return { rule: v.rule, message: v.message, severity: v.severity };
}

function approval(a: unknown, i: number): PolicyApproval {
  if (
    !isRecord(a) ||
    typeof a.rule !== 'string' ||
    typeof a.operation !== 'string' ||
    typeof a.reason !== 'string'
  ) {
    throw new PolicyDecisionError(`approvals[${i}] is not {rule, operation, reason} (all strings)`);
  }
  return { rule: a.rule, operation: a.operation, reason: a.reason };
}

/** `result` is what `LoadedPolicy.evaluate` returns: a result set, `[{result: <decision>}]`. */
export function parseDecision(result: unknown): PolicyDecision {
  if (!Array.isArray(result) || result.length !== 1) {
    throw new PolicyDecisionError(
      `expected exactly one result, got ${Array.isArray(result) ? result.length : typeof result} (is the decision undefined?)`,
    );
  }
  const first: unknown = result[0];
  const d = isRecord(first) ? first.result : undefined;
  if (
    !isRecord(d) ||
    typeof d.allow !== 'boolean' ||
    !Array.isArray(d.violations) ||
    !Array.isArray(d.approvals)
  ) {
    throw new PolicyDecisionError(
      'the decision is not {allow: boolean, violations: [...], approvals: [...]}',
    );
  }
  const violations = d.violations.map(violation);
  const approvals = d.approvals.map(approval);
  const errors = violations.filter((v) => v.severity === 'error').length;
  // allow and the errors must agree; a policy that says otherwise is broken, not permissive.
  if (d.allow !== (errors === 0)) {
    throw new PolicyDecisionError(
      `inconsistent decision: allow=${d.allow} with ${errors} error violation(s)`,
    );
  }
  return { allow: d.allow, violations, approvals };
}
