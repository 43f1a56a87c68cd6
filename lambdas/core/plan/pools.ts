/**
 * Which observed node group serves which pool. A group CloudOrch created belongs to a pool when it has
 * the pool's derived name, or when CloudOrch created it for that pool (its `cloudorch.io/pool` tag; a group
 * made before pools existed has none and belongs to `default`). CloudOrch's groups of pools the spec
 * no longer lists are orphans; groups CloudOrch did not create are foreign.
 */
import type { ObservedNodegroup } from '../observation.js';
import { createdByCloudOrch, POOL_TAG } from '../ownership.js';
import { DEFAULT_POOL } from '../spec/facts.js';
import type { NodePool } from '../spec/pools.js';
import type { CloudClusterSpec } from '../spec/schema.js';
import { desiredNodegroup, matchesFields, matchesShape, type NodegroupShape } from './nodegroup.js';
import { defaultsFor, type PlanDefaults } from './types.js';

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

/** The name the seed derived for its one node group: `cloudorch-<family>-<size>-<od|spot>-<hash>`. */
const SEED_NAME = /^cloudorch-[a-z0-9]+-[a-z0-9]+-(od|spot)-[0-9a-f]{6}$/;

/**
 * The pool a CloudOrch-created group was made for: its pool tag; a group from before pools (the
 * seed's name, no tag) is the pool `default`'s. Undefined when the tag was removed from a pool's
 * group: such a group is never taken for another pool's (it waits, as an orphan, for every pool).
 */
export function poolOfNodegroup(ng: ObservedNodegroup): string | undefined {
  return ng.tags[POOL_TAG] ?? (SEED_NAME.test(ng.name) ? DEFAULT_POOL : undefined);
}

export function assignPools(
  spec: CloudClusterSpec,
  nodegroups: readonly ObservedNodegroup[],
  deployment: PlanDefaults,
): PoolAssignment {
  const defaults = defaultsFor(spec, deployment);
  const shapes = spec.nodeGroups.map((pool) => ({ pool, shape: desiredNodegroup(pool, spec, defaults) }));
  const byName = new Map(shapes.map((s) => [s.shape.name, s.pool.name]));
  const listed = new Set(spec.nodeGroups.map((p) => p.name));
  const members = new Map<string, ObservedNodegroup[]>();
  const orphans: ObservedNodegroup[] = [];
  const foreign: ObservedNodegroup[] = [];
  for (const ng of nodegroups) {
    // A group CloudOrch did not create stays foreign even under a pool's derived name: CloudOrch
    // neither manages nor replaces it (the planner reports the name as taken).
    if (!createdByCloudOrch(ng.tags)) {
      foreign.push(ng);
      continue;
    }
    const pool = byName.get(ng.name) ?? poolOfNodegroup(ng);
    if (pool === undefined || !listed.has(pool)) orphans.push(ng);
    else members.set(pool, [...(members.get(pool) ?? []), ng]);
  }
  const pools = shapes.map(({ pool, shape }) => {
    const mine = members.get(pool.name) ?? [];
    // A group with the pool's fields is kept even under another name (setting a field to the value
    // EKS already runs, or reordering spot instance types, replaces nothing).
    const current = mine.find((ng) => matchesShape(ng, shape)) ?? mine.find((ng) => matchesFields(ng, shape));
    return { pool, shape, current, others: mine.filter((ng) => ng !== current) };
  });
  return { pools, orphans, foreign };
}
