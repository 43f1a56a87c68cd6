/**
 * Which observed node group serves which pool. A group CloudOrch created belongs to a pool when it has
 * the pool's derived name, or when CloudOrch created it for that pool (its `cloudorch.io/pool` tag; a group
 * made before pools existed has none and belongs to `default`). CloudOrch's groups of pools the spec
 * no longer lists are orphans; groups CloudOrch did not create are foreign.
 */
import type { ObservedNodegroup } from '../observation.js';
import { createdByCloudOrch, POOL_TAG } from '../ownership.js';
import { DEFAULT_POOL, type NodePool } from '../spec/pools.js';
import type { CloudClusterSpec } from '../spec/schema.js';
import { desiredNodegroup, matchesShape, type NodegroupShape } from './nodegroup.js';
import type { PlanDefaults } from './types.js';

export interface PoolGroups {
  readonly pool: NodePool;
  readonly shape: NodegroupShape;
  /** The group with the pool's derived name and the shape it promises: the pool's capacity. */
  readonly current: ObservedNodegroup | undefined;
  /** The pool's other groups: ones being replaced, or one squatting on its name with another shape. */
  readonly others: readonly ObservedNodegroup[];
}

export interface PoolAssignment {
  /** In spec order. */
  readonly pools: readonly PoolGroups[];
  /** Groups CloudOrch created for pools the spec no longer lists. */
  readonly orphans: readonly ObservedNodegroup[];
  /** Groups CloudOrch did not create and no pool names: created out of band, or there before adoption. */
  readonly foreign: readonly ObservedNodegroup[];
}

/** The pool a CloudOrch-created group was made for. */
export function poolOfNodegroup(ng: ObservedNodegroup): string {
  return ng.tags[POOL_TAG] ?? DEFAULT_POOL;
}

export function assignPools(
  spec: CloudClusterSpec,
  nodegroups: readonly ObservedNodegroup[],
  defaults: PlanDefaults,
): PoolAssignment {
  const shapes = spec.nodeGroups.map((pool) => ({ pool, shape: desiredNodegroup(pool, spec, defaults) }));
  const byName = new Map(shapes.map((s) => [s.shape.name, s.pool.name]));
  const listed = new Set(spec.nodeGroups.map((p) => p.name));
  const members = new Map<string, ObservedNodegroup[]>();
  const orphans: ObservedNodegroup[] = [];
  const foreign: ObservedNodegroup[] = [];
  for (const ng of nodegroups) {
    // A group CloudOrch did not create stays foreign even under a pool's derived name: CloudOrch
    // neither manages nor replaces it (the planner reports the name as taken).
    const ours = createdByCloudOrch(ng.tags);
    const pool = ours ? (byName.get(ng.name) ?? poolOfNodegroup(ng)) : undefined;
    if (pool === undefined) foreign.push(ng);
    else if (!listed.has(pool)) orphans.push(ng);
    else members.set(pool, [...(members.get(pool) ?? []), ng]);
  }
  const pools = shapes.map(({ pool, shape }) => {
    const mine = members.get(pool.name) ?? [];
    const current = mine.find((ng) => matchesShape(ng, shape));
    return { pool, shape, current, others: mine.filter((ng) => ng !== current) };
  });
  return { pools, orphans, foreign };
}
