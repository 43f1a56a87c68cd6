/**
 * The spec as the cluster will run it, for a cost delta: a pool under `scaling: external` keeps the
 * size its autoscaler chose (clamped into the spec's bounds), so a plan that changes nothing shows no
 * cost change however far the autoscaler has moved from `nodeCount`.
 */
import type { Observation } from '../observation.js';
import { desiredScaling } from '../plan/nodegroup.js';
import { assignPools } from '../plan/pools.js';
import type { PlanDefaults } from '../plan/types.js';
import type { CloudClusterSpec } from '../spec/schema.js';

export function runningSpec(
  spec: CloudClusterSpec,
  o: Observation,
  defaults: PlanDefaults,
): CloudClusterSpec {
  const { pools } = assignPools(spec, o.nodegroups, defaults);
  return {
    ...spec,
    nodeGroups: pools.map(({ pool, current }) =>
      pool.scaling === 'external' && current
        ? { ...pool, nodeCount: desiredScaling(pool, current.scaling).desiredSize }
        : pool,
    ),
  };
}
