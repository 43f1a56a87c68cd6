/**
 * The property check catches broken planners. Each mutant wraps the real `plan` and reorders its
 * output the way a plausible bug would, so its first action breaks one rule the property states;
 * the same fast-check run (fixed seed) must find a counterexample for every mutant and none for the
 * real planner, and each mutant's must break the rule that mutant targets.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plan } from '../../lambdas/core/plan/plan.js';
import type { Operation } from '../../lambdas/core/plan/types.js';
import { checkConvergence, type Planner, PropertyViolation, scenarioArb } from './support/planner-check.js';

/** Moves the operation `pick` finds (if any) to the front: it becomes the step's action. */
const promoting =
  (pick: (ops: readonly Operation[]) => number): Planner =>
  (d, o, defaults) => {
    const ops = plan(d, o, defaults);
    const at = pick(ops);
    return at <= 0 ? ops : [ops[at]!, ...ops.slice(0, at), ...ops.slice(at + 1)];
  };

/** Each mutant, and the rule its counterexample must break. */
const MUTANTS: Record<string, { readonly planner: Planner; readonly breaks: RegExp }> = {
  // Deletes a pool's old group before its replacement is ACTIVE.
  'old group deleted first': {
    breaks: /^capacity gap in pool/,
    planner: promoting((ops) =>
      ops.findIndex((op) => op.kind === 'DeleteNodegroup' && op.reason === 'replaced'),
    ),
  },
  // Upgrades the control plane while pools are still to catch up with it.
  'control plane before pools': {
    breaks: /^control plane moved to .* while .* behind/,
    planner: promoting((ops) => {
      const pool = ops.findIndex((op) => op.kind === 'UpdateNodegroupVersion');
      const plane = ops.findIndex((op) => op.kind === 'UpdateClusterVersion');
      return pool >= 0 && plane > pool ? plane : -1;
    }),
  },
  // Upgrades the pools of one control-plane minor in reverse spec order.
  'pools out of order': {
    breaks: /^pool .* upgraded after pool .* \(spec order/,
    planner: promoting((ops) => {
      const first = ops.findIndex((op) => op.kind === 'UpdateNodegroupVersion');
      if (first !== 0) return -1;
      let last = first;
      while (ops[last + 1]?.kind === 'UpdateNodegroupVersion') last++;
      return last;
    }),
  },
};

// A different seed from the property test's: together they cover more scenarios. No shrinking:
// the first counterexample is enough to show the mutant is caught.
const RUNS = { numRuns: 80, seed: 1201, endOnFailure: true };

function counterexample(planner: Planner): string | null {
  const result = fc.check(
    fc.property(scenarioArb, (sc) => {
      checkConvergence(planner, sc);
    }),
    RUNS,
  );
  if (!result.failed) return null;
  // Only the property's own verdicts count: a crash of the test itself is not a caught mutant.
  expect(result.errorInstance).toBeInstanceOf(PropertyViolation);
  return `${(result.errorInstance as Error).message}\n${JSON.stringify(result.counterexample)}`;
}

describe('planner property: catches broken planners', () => {
  it('finds no counterexample for the real planner', () => {
    expect(counterexample(plan)).toBeNull();
  });

  for (const [name, { planner, breaks }] of Object.entries(MUTANTS))
    it(`finds a counterexample for the mutant "${name}"`, () => {
      expect(counterexample(planner)).toMatch(breaks);
    });
});
