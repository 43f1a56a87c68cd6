/**
 * Stage planning over random fleets and stage lists: whenever a plan comes out, every selected
 * cluster is in exactly one stage, no stage is empty, ids are sorted and concurrency is at least 1.
 * Whenever none does, the error names a stage or a cluster.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { validateRolloutSpec } from '../../../lambdas/core/rollout/schema.js';
import { matchesSelector } from '../../../lambdas/core/rollout/selector.js';
import { type Candidate, planStages } from '../../../lambdas/core/rollout/stages.js';

const TIERS = ['web', 'db', 'cache'] as const;

const fleetArb = fc
  .uniqueArray(fc.integer({ min: 1, max: 60 }), { minLength: 0, maxLength: 25 })
  .chain((ns) =>
    fc.tuple(
      ...ns.map((n) =>
        fc.record({
          id: fc.constant(`ns/c${n}`),
          labels: fc.record({ env: fc.constantFrom('prod', 'dev'), tier: fc.constantFrom(...TIERS) }),
        }),
      ),
    ),
  );

const pickArb = fc.oneof(
  fc.record({ share: fc.integer({ min: 1, max: 100 }).map((n) => `${n}%`) }),
  fc.record({ selector: fc.constantFrom(...TIERS).map((tier) => ({ matchLabels: { tier } })) }),
);
const concurrencyArb = fc.oneof(fc.integer({ min: 1, max: 5 }), fc.constantFrom('10%', '50%', '100%'));

const specArb = fc
  .tuple(
    fc.array(fc.tuple(pickArb, concurrencyArb), { minLength: 1, maxLength: 5 }),
    fc.option(concurrencyArb, { nil: undefined }),
  )
  .map(([picks, rest]) => ({
    selector: { matchLabels: { env: 'prod' } },
    change: { kubernetesVersion: '1.32' },
    stages: [
      ...picks.map(([pick, maxConcurrency]) => ({ ...pick, maxConcurrency })),
      // The catch-all stage, last, or none (then clusters may be left over).
      ...(rest === undefined ? [] : [{ maxConcurrency: rest }]),
    ].map((s, i) => ({ name: `s${i}`, ...s })),
  }));

describe('planStages: property', () => {
  it('assigns every selected cluster to exactly one non-empty stage, or names why not', () => {
    let planned = 0;
    fc.assert(
      fc.property(fleetArb, specArb, (fleet: Candidate[], input) => {
        const v = validateRolloutSpec(input);
        expect(v.ok).toBe(true);
        if (!v.ok) return;
        const r = planStages(v.spec, fleet);
        const selected = fleet.filter((c) => c.labels.env === 'prod').map((c) => c.id);
        if (!r.ok) {
          expect(r.error).toMatch(/stage s\d|no stage takes|selects no cluster/);
          return;
        }
        planned += 1;
        const all = r.stages.flatMap((s) => s.clusters);
        expect([...all].sort()).toEqual([...selected].sort());
        expect(new Set(all).size).toBe(all.length);
        for (const [i, s] of r.stages.entries()) {
          expect(s.clusters.length).toBeGreaterThan(0);
          expect(s.clusters).toEqual([...s.clusters].sort());
          expect(s.maxConcurrency).toBeGreaterThanOrEqual(1);
          const sel = v.spec.stages[i]?.selector;
          if (sel)
            for (const id of s.clusters)
              expect(matchesSelector(fleet.find((c) => c.id === id)?.labels ?? {}, sel)).toBe(true);
        }
      }),
      // Seeded: the vacuity check below counts plans, and an unseeded run fell under it now and then.
      { numRuns: 300, seed: 20261201 },
    );
    // Not vacuous: a good share of the runs produce a plan.
    expect(planned).toBeGreaterThan(30);
  });
});
