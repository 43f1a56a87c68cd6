/**
 * The comparisons the field table's rules hold. Each is written once: drift reports its differences
 * and the planner's version, scaling and tag stages act on the same values, read through
 * `FIELD_TABLE`; the replacement stage and the replace-nodegroup rules share the resolved `shape`.
 * So the two cannot disagree about what differs.
 */
import type { ObservedCluster, ObservedNodegroup, ScalingConfig } from '../observation.js';
import { AWS_TAG_PREFIX, MANAGED_BY_TAG, OWNER_TAG } from '../ownership.js';
import type { CloudClusterSpec } from '../spec/schema.js';
import { compareVersions } from '../version.js';
import { impossible } from './guards.js';
import { desiredNodegroup, desiredScaling, matchesShape, type NodegroupShape } from './nodegroup.js';
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
  /** The node group the spec wants, defaults included: the planner replaces groups from it. */
  readonly shape: NodegroupShape;
  /** The node group matching the desired shape, if any. */
  readonly nodegroup: ObservedNodegroup | undefined;
  readonly nodegroups: readonly ObservedNodegroup[];
  readonly defaults: PlanDefaults;
}

export function fieldContext(
  spec: CloudClusterSpec,
  cluster: ObservedCluster,
  nodegroups: readonly ObservedNodegroup[],
  defaults: PlanDefaults,
): FieldContext {
  const shape = desiredNodegroup(spec, defaults);
  const nodegroup = nodegroups.find((ng) => matchesShape(ng, shape));
  return { spec, cluster, shape, nodegroup, nodegroups, defaults };
}

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
      ...ctx.nodegroups.map((ng) => ({
        field: `kubernetesVersion (node group ${ng.name})`,
        observed: ng.version,
      })),
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

const SCALING_MEMBERS = ['minSize', 'maxSize', 'desiredSize'] as const;
type ScalingMember = (typeof SCALING_MEMBERS)[number];

/** nodeCount, minSize and maxSize: the matching node group's scaling against the desired one. */
export const scalingValues = {
  desired: ({ spec }: FieldContext, observed?: ScalingConfig): ScalingConfig =>
    desiredScaling(spec, observed),
  /** The desired scaling for a node group, and the members in which the group differs from it. */
  changes: (ctx: FieldContext, ng: ObservedNodegroup) => {
    const want = scalingValues.desired(ctx, ng.scaling);
    return { want, changed: SCALING_MEMBERS.filter((m) => want[m] !== ng.scaling[m]) };
  },
  drift:
    (field: string, member: ScalingMember) =>
    (ctx: FieldContext): DriftItem[] => {
      if (!ctx.nodegroup) return [];
      // Under external scaling the autoscaler owns desiredSize: only the bounds can drift.
      if (member === 'desiredSize' && ctx.spec.scaling === 'external') return [];
      const { want, changed } = scalingValues.changes(ctx, ctx.nodegroup);
      return changed.includes(member)
        ? [{ field, desired: String(want[member]), observed: String(ctx.nodegroup.scaling[member]) }]
        : [];
    },
};

/** The tags a user manages: ownership marks and AWS's own tags are not theirs to compare. */
const userTags = (t: Readonly<Record<string, string>>) =>
  Object.fromEntries(
    Object.entries(t)
      .filter(([k]) => k !== OWNER_TAG && k !== MANAGED_BY_TAG && !k.startsWith(AWS_TAG_PREFIX))
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
