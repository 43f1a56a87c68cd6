/** parseDecision: the wasm result becomes a typed decision, or an error the engine turns into a deny. */
import { describe, expect, it } from 'vitest';
import { denyDecision, parseDecision } from '../../lambdas/policy/decision.js';
import { PolicyDecisionError } from '../../lambdas/policy/errors.js';

const approval = {
  rule: 'production-deletion-approval',
  operation: 'delete cluster prod',
  reason: 'production',
};
const warn = { rule: 'kubernetes-version', message: 'extended support', severity: 'warn' };
const error = { rule: 'required-tags', message: 'tag team is missing', severity: 'error' };
const result = (decision: unknown) => [{ result: decision }];

describe('parseDecision', () => {
  it('keeps approvals beside an allow: they never change it', () => {
    expect(parseDecision(result({ allow: true, violations: [warn], approvals: [approval] }))).toEqual({
      allow: true,
      violations: [warn],
      approvals: [approval],
    });
  });

  it('keeps approvals listed under a deny: the deny wins', () => {
    expect(parseDecision(result({ allow: false, violations: [error], approvals: [approval] }))).toEqual({
      allow: false,
      violations: [error],
      approvals: [approval],
    });
  });

  it('copies only the three fields of an approval', () => {
    const d = parseDecision(result({ allow: true, violations: [], approvals: [{ ...approval, extra: 1 }] }));
    expect(d.approvals).toEqual([approval]);
  });

  it.each([
    { why: 'approvals missing', decision: { allow: true, violations: [] }, msg: /approvals: \[\.\.\.\]/ },
    {
      why: 'approvals not a list',
      decision: { allow: true, violations: [], approvals: 'x' },
      msg: /approvals/,
    },
    {
      why: 'an approval that is not an object',
      decision: { allow: true, violations: [], approvals: ['delete'] },
      msg: /approvals\[0\] is not \{rule, operation, reason\}/,
    },
    {
      why: 'an approval without an operation',
      decision: { allow: true, violations: [], approvals: [{ rule: 'r', reason: 'x' }] },
      msg: /approvals\[0\]/,
    },
    {
      why: 'an approval whose reason is not a string',
      decision: { allow: true, violations: [], approvals: [approval, { ...approval, reason: null }] },
      msg: /approvals\[1\]/,
    },
  ])('refuses $why', ({ decision, msg }) => {
    expect(() => parseDecision(result(decision))).toThrow(PolicyDecisionError);
    expect(() => parseDecision(result(decision))).toThrow(msg);
  });

  it("the engine's own deny lists no approvals", () => {
    expect(denyDecision('policy-engine-degraded', 'no bundle')).toEqual({
      allow: false,
      violations: [{ rule: 'policy-engine-degraded', message: 'no bundle', severity: 'error' }],
      approvals: [],
    });
  });
});
