/** A plan's cost delta compares like with like: an autoscaled pool counts at the size it runs. */
import { describe, expect, it } from 'vitest';
import { estimateObservedCost, estimateSpecCost } from '../../lambdas/core/cost/estimate.js';
import { runningSpec } from '../../lambdas/core/cost/running.js';
import { converged, DEFAULTS, observation, spec } from './support/fixtures.js';
import { GENERAL, SPOT } from './support/pools.js';

const at = new Date('2026-12-01T00:00:00Z');

describe('running cost', () => {
  const s = spec({ kubernetesVersion: '1.34', nodeGroups: [GENERAL, SPOT] });
  const o = converged(s);
  const scaled = observation(o.cluster, [
    o.nodegroups[0]!,
    { ...o.nodegroups[1]!, scaling: { minSize: 0, maxSize: 10, desiredSize: 7 } },
  ]);

  it('an external pool the autoscaler grew: no change planned, no cost delta', () => {
    const running = estimateSpecCost(runningSpec(s, scaled, DEFAULTS), at).monthlyCost;
    expect(running).toBeCloseTo(estimateObservedCost(scaled, s.region, at)!.monthlyCost, 2);
    // The spec alone (nodeCount 2) would show the autoscaler's nodes as a saving.
    expect(estimateSpecCost(s, at).monthlyCost).toBeLessThan(running);
  });

  it('managed pools and pools without a group count as the spec says', () => {
    const r = runningSpec(s, observation(o.cluster, []), DEFAULTS);
    expect(r.nodeGroups.map((p) => p.nodeCount)).toEqual([3, 2]);
    expect(runningSpec(s, scaled, DEFAULTS).nodeGroups.map((p) => p.nodeCount)).toEqual([3, 7]);
  });
});
