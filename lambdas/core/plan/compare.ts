/**
 * The cluster-level comparisons the field table's rules hold (pool-level ones are in pool-compare.ts).
 * Each is written once: drift reports its differences and the planner's version and tag stages act on
 * the same values, read through `FIELD_TABLE`. So the two cannot disagree about what differs.
 */
import type { Observation, ObservedCluster, ObservedNodegroup } from '../observation.js';
import { AWS_TAG_PREFIX, MANAGED_BY_TAG, OWNER_TAG, POOL_TAG } from '../ownership.js';
import type { CloudClusterSpec } from '../spec/schema.js';
import { compareVersions } from '../version.js';
import { impossible } from './guards.js';
import { assignPools, type PoolAssignment } from './pools.js';
import { diffTags, type TagDiff } from './tags.js';
import type { Impossible, PlanDefaults } from './types.js';

export interface DriftItem {
  readonly field: string;
  readonly desired: string;
  readonly observed: string;
}

/** What the rules compare: the spec, resolved against the deployment defaults, and what EKS has. */
export interface FieldContext {
  readonly spec: CloudClusterSpec;
  readonly cluster: ObservedCluster;
  /** Which observed node group serves which pool (spec order), and the groups no pool claims. */
  readonly assignment: PoolAssignment;
  readonly nodegroups: readonly ObservedNodegroup[];
  readonly defaults: PlanDefaults;
  /** The cluster's add-ons, access entries and insights as observed (each absent when not read). */
  readonly parts: ClusterParts;
}

/** What an observation holds beside the cluster and its node groups. */
export type ClusterParts = Pick<Observation, 'addons' | 'addonVersions' | 'accessEntries' | 'insights'>;

export function fieldContext(
  spec: CloudClusterSpec,
  cluster: ObservedCluster,
  nodegroups: readonly ObservedNodegroup[],
  defaults: PlanDefaults,
  parts: ClusterParts = {},
): FieldContext {
  const assignment = assignPools(spec, nodegroups, defaults);
  return { spec, cluster, assignment, nodegroups, defaults, parts };
}

/** The drift field of something about one pool: `nodeGroups[<pool>]`, `nodeGroups[<pool>].<part>`. */
export const poolField = (pool: string, part?: string): string =>
  part === undefined ? `nodeGroups[${pool}]` : `nodeGroups[${pool}].${part}`;

export const diff = (field: string, desired: unknown, observed: unknown): DriftItem[] => {
  const d = typeof desired === 'string' ? desired : JSON.stringify(desired);
  const o = typeof observed === 'string' ? observed : JSON.stringify(observed);
  return d === o ? [] : [{ field, desired: d, observed: o }];
};

export const sorted = (xs: readonly string[]) => [...xs].sort().join(',');

/** kubernetesVersion: the desired version, and how far a resource's version is from it. */
export const versionValues = {
  desired: ({ spec }: FieldContext): string => spec.kubernetesVersion,
  /** Below 0: the resource is behind the desired version; above 0: past it, which EKS cannot undo. */
  gap: (ctx: FieldContext, observed: string): number => compareVersions(observed, ctx.spec.kubernetesVersion),
  /** By `gap`, as the stages decide: two spellings of one version are not drift. */
  drift: (ctx: FieldContext): DriftItem[] =>
    [
      { field: 'kubernetesVersion', observed: ctx.cluster.version },
      ...ctx.assignment.pools.flatMap(({ pool, current }) =>
        current ? [{ field: poolField(pool.name, 'kubernetesVersion'), observed: current.version }] : [],
      ),
    ]
      .filter(({ observed }) => versionValues.gap(ctx, observed) !== 0)
      .map(({ field, observed }) => ({ field, desired: versionValues.desired(ctx), observed })),
  /** EKS keeps node groups at or below the control plane: a group behind it catches up first. */
  behindPlane: (ng: ObservedNodegroup, c: ObservedCluster): boolean =>
    compareVersions(ng.version, c.version) < 0,
  planeAhead: (ctx: FieldContext): Impossible | null =>
    versionValues.gap(ctx, ctx.cluster.version) > 0
      ? impossible(
          'kubernetesVersion',
          `EKS cannot downgrade the control plane from ${ctx.cluster.version} to ${ctx.spec.kubernetesVersion}`,
          `Set kubernetesVersion to "${ctx.cluster.version}" (EKS may have auto-upgraded the cluster at the end of support).`,
        )
      : null,
  nodegroupAhead: (ctx: FieldContext, ng: ObservedNodegroup): Impossible | null =>
    versionValues.gap(ctx, ng.version) > 0
      ? impossible(
          'kubernetesVersion',
          `EKS cannot downgrade node group ${ng.name} from ${ng.version}`,
          `Set kubernetesVersion to "${ng.version}".`,
        )
      : null,
};

const OWNERSHIP_KEYS: ReadonlySet<string> = new Set([OWNER_TAG, MANAGED_BY_TAG, POOL_TAG]);

/** The tags a user manages: ownership marks and AWS's own tags are not theirs to compare. */
const userTags = (t: Readonly<Record<string, string>>) =>
  Object.fromEntries(
    Object.entries(t)
      .filter(([k]) => !OWNERSHIP_KEYS.has(k) && !k.startsWith(AWS_TAG_PREFIX))
      .sort(),
  );

type Tags = Readonly<Record<string, string>>;

/** tags: one resource's tags against the spec's plus the ownership tags it should carry. */
export const tagValues = {
  changes: ({ spec }: FieldContext, observed: Tags, ownership: Tags): TagDiff =>
    diffTags({ ...spec.tags, ...ownership }, observed),
  /** Drift keeps the ownership a resource has (it has no record id); the planner passes its own. */
  drift: (field: string, ctx: FieldContext, observed: Tags, ownership: Tags): DriftItem[] => {
    const { toSet, toRemove } = tagValues.changes(ctx, observed, ownership);
    if (Object.keys(toSet).length === 0 && toRemove.length === 0) return [];
    return [
      {
        field,
        desired: JSON.stringify(userTags(ctx.spec.tags)),
        observed: JSON.stringify(userTags(observed)),
      },
    ];
  },
};
