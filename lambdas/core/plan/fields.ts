/**
 * The field table: every spec field, what it is compared with in EKS and how a difference converges.
 * `satisfies Record<keyof CloudClusterSpec, …>` makes a missing field a compile error, and a test
 * checks the table against the schema at run time too. Drift, the planner's check for differences
 * EKS cannot converge and `cloudorch describe` all read this table, so a field is added in one place.
 */
import type { Observation, ObservedCluster, ObservedNodegroup } from '../observation.js';
import { AWS_TAG_PREFIX, MANAGED_BY_TAG, OWNER_TAG } from '../ownership.js';
import type { CloudClusterSpec } from '../spec/schema.js';
import { compareVersions } from '../version.js';
import { impossible } from './guards.js';
import { desiredNodegroup, desiredScaling, matchesShape, type NodegroupShape } from './nodegroup.js';
import type { Impossible, MutatingOperation, PlanDefaults } from './types.js';

export type Convergence =
  /** Identifies the cluster; a different value names a different cluster. */
  | 'identity'
  /** Changed in place by an update call. */
  | 'in-place'
  /** Immutable on the node group: a new group replaces the old one (create, wait active, delete). */
  | 'replace-nodegroup'
  /** Immutable on the cluster: reported as impossible, with a remediation. */
  | 'impossible'
  /** Steers CloudOrch's behaviour; has no counterpart in EKS. */
  | 'behaviour';

export interface DriftItem {
  readonly field: string;
  readonly desired: string;
  readonly observed: string;
}

/** What the rules compare: the spec against the observed cluster and its node groups. */
export interface FieldContext {
  readonly spec: CloudClusterSpec;
  readonly cluster: ObservedCluster;
  /** The node group the spec wants, by name and immutable fields. */
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

/**
 * How the planner reports a difference EKS cannot converge. `rank` orders the reports of different
 * fields: status shows the first one's remediation, so the order is kept as users know it.
 */
export interface Unconvergeable {
  readonly rank: number;
  /** The report for one of the field's drift items; null when that difference can converge. */
  readonly impossible: (item: DriftItem, ctx: FieldContext) => Impossible | null;
}

interface RuleBase {
  /** The EKS attribute it is compared with; `cloudorch describe` shows it beside drift. */
  readonly observedAs: string;
  /** Operations that converge it (empty for identity, impossible and behaviour fields). */
  readonly via: readonly MutatingOperation['kind'][];
  /** The comparison: every difference between the spec and EKS for this field. */
  readonly drift?: (ctx: FieldContext) => DriftItem[];
  readonly unconvergeable?: Unconvergeable;
}

/** A field that EKS can have differ must say how it is compared; an immutable one, how it is reported. */
export type FieldRule = RuleBase &
  (
    | { readonly convergence: 'identity' | 'behaviour' }
    | {
        readonly convergence: 'in-place' | 'replace-nodegroup';
        readonly drift: (ctx: FieldContext) => DriftItem[];
      }
    | {
        readonly convergence: 'impossible';
        readonly drift: (ctx: FieldContext) => DriftItem[];
        readonly unconvergeable: Unconvergeable;
      }
  );

const diff = (field: string, desired: unknown, observed: unknown): DriftItem[] => {
  const d = typeof desired === 'string' ? desired : JSON.stringify(desired);
  const o = typeof observed === 'string' ? observed : JSON.stringify(observed);
  return d === o ? [] : [{ field, desired: d, observed: o }];
};

const sorted = (xs: readonly string[]) => [...xs].sort().join(',');
const userTags = (t: Readonly<Record<string, string>>) =>
  Object.fromEntries(
    Object.entries(t)
      .filter(([k]) => k !== OWNER_TAG && k !== MANAGED_BY_TAG && !k.startsWith(AWS_TAG_PREFIX))
      .sort(),
  );

/** A bound of the matching node group's scaling, compared with the one the spec resolves to. */
const scalingBound =
  (bound: 'minSize' | 'maxSize') =>
  ({ spec, nodegroup }: FieldContext): DriftItem[] =>
    nodegroup ? diff(bound, desiredScaling(spec)[bound], nodegroup.scaling[bound]) : [];

/**
 * An immutable node group field: a group matching the desired shape has it right; until one does,
 * every group's value is shown against the wanted one.
 */
const unlessShapeMatches =
  (
    field: string,
    wanted: (spec: CloudClusterSpec) => readonly string[],
    observed: (ng: ObservedNodegroup) => string | readonly string[],
  ) =>
  ({ spec, nodegroup, nodegroups }: FieldContext): DriftItem[] =>
    nodegroup ? [] : diff(field, wanted(spec), nodegroups.flatMap(observed));

export const FIELD_TABLE = {
  provider: { convergence: 'behaviour', observedAs: '(selects the provider)', via: [] },
  region: { convergence: 'identity', observedAs: 'cluster.arn region', via: [] },
  clusterName: { convergence: 'identity', observedAs: 'cluster.name', via: [] },
  kubernetesVersion: {
    convergence: 'in-place',
    observedAs: 'cluster.version, nodegroup.version',
    via: ['UpdateClusterVersion', 'UpdateNodegroupVersion'],
    drift: ({ spec, cluster, nodegroups }) => [
      ...diff('kubernetesVersion', spec.kubernetesVersion, cluster.version),
      ...nodegroups.flatMap((ng) =>
        diff(`kubernetesVersion (node group ${ng.name})`, spec.kubernetesVersion, ng.version),
      ),
    ],
    // Only the control plane is checked up front; a node group past the desired version is reported
    // by the version stage (converge.ts), once the step gets that far.
    unconvergeable: {
      rank: 2,
      impossible: (item, { spec, cluster }) =>
        item.field === 'kubernetesVersion' && compareVersions(cluster.version, spec.kubernetesVersion) > 0
          ? impossible(
              'kubernetesVersion',
              `EKS cannot downgrade the control plane from ${cluster.version} to ${spec.kubernetesVersion}`,
              `Set kubernetesVersion to "${cluster.version}" (EKS may have auto-upgraded the cluster at the end of support).`,
            )
          : null,
    },
  },
  nodeCount: {
    convergence: 'in-place',
    observedAs: 'nodegroup.scalingConfig.desiredSize',
    via: ['UpdateNodegroupScaling'],
    drift: ({ spec, nodegroup }) =>
      spec.scaling === 'external' || !nodegroup
        ? []
        : diff('nodeCount', spec.nodeCount, nodegroup.scaling.desiredSize),
  },
  minSize: {
    convergence: 'in-place',
    observedAs: 'nodegroup.scalingConfig.minSize',
    via: ['UpdateNodegroupScaling'],
    drift: scalingBound('minSize'),
  },
  maxSize: {
    convergence: 'in-place',
    observedAs: 'nodegroup.scalingConfig.maxSize',
    via: ['UpdateNodegroupScaling'],
    drift: scalingBound('maxSize'),
  },
  scaling: { convergence: 'behaviour', observedAs: '(who owns desiredSize)', via: [] },
  instanceType: {
    convergence: 'replace-nodegroup',
    observedAs: 'nodegroup.instanceTypes',
    via: ['CreateNodegroup', 'DeleteNodegroup'],
    drift: unlessShapeMatches(
      'instanceType',
      (spec) => [spec.instanceType],
      (ng) => ng.instanceTypes,
    ),
  },
  spotEnabled: {
    convergence: 'replace-nodegroup',
    observedAs: 'nodegroup.capacityType',
    via: ['CreateNodegroup', 'DeleteNodegroup'],
    drift: unlessShapeMatches(
      'spotEnabled',
      (spec) => [spec.spotEnabled ? 'SPOT' : 'ON_DEMAND'],
      (ng) => ng.capacityType,
    ),
  },
  tags: {
    convergence: 'in-place',
    observedAs: 'cluster.tags, nodegroup.tags',
    via: ['TagResource', 'UntagResource'],
    drift: ({ spec, cluster, nodegroup }) => [
      ...diff('tags', userTags(spec.tags), userTags(cluster.tags)),
      ...(nodegroup
        ? diff(`tags (node group ${nodegroup.name})`, userTags(spec.tags), userTags(nodegroup.tags))
        : []),
    ],
  },
  network: {
    convergence: 'impossible',
    observedAs: 'cluster.resourcesVpcConfig',
    via: [],
    drift: ({ spec, cluster }) =>
      spec.network
        ? [
            ...diff('network.subnetIds', sorted(spec.network.subnetIds), sorted(cluster.subnetIds)),
            ...(spec.network.securityGroupIds
              ? diff(
                  'network.securityGroupIds',
                  sorted(spec.network.securityGroupIds),
                  sorted(cluster.securityGroupIds),
                )
              : []),
          ]
        : [],
    unconvergeable: {
      rank: 1,
      impossible: (item, { cluster }) =>
        item.field === 'network.subnetIds'
          ? impossible(
              item.field,
              `CloudOrch does not move a running cluster's subnets (observed ${cluster.subnetIds.join(', ')})`,
              'Restore the observed subnets in the spec, or change them with aws eks update-cluster-config.',
            )
          : impossible(
              item.field,
              "CloudOrch does not change a running cluster's security groups",
              'Restore the observed security groups in the spec, or change them with aws eks update-cluster-config.',
            ),
    },
  },
  clusterRoleArn: {
    convergence: 'impossible',
    observedAs: 'cluster.roleArn',
    via: [],
    drift: ({ spec, cluster }) =>
      spec.clusterRoleArn ? diff('clusterRoleArn', spec.clusterRoleArn, cluster.roleArn) : [],
    unconvergeable: {
      rank: 0,
      impossible: (_item, { cluster }) =>
        impossible(
          'clusterRoleArn',
          `the cluster role is immutable in EKS (observed ${cluster.roleArn})`,
          'Restore the original clusterRoleArn, or create a new cluster under another clusterName.',
        ),
    },
  },
  nodeRoleArn: {
    convergence: 'replace-nodegroup',
    observedAs: 'nodegroup.nodeRole',
    via: ['CreateNodegroup', 'DeleteNodegroup'],
    drift: ({ spec, nodegroups }) =>
      spec.nodeRoleArn
        ? nodegroups.flatMap((ng) =>
            diff(`nodeRoleArn (node group ${ng.name})`, spec.nodeRoleArn, ng.nodeRole),
          )
        : [],
  },
  deletionPolicy: { convergence: 'behaviour', observedAs: '(what deletion does)', via: [] },
  adopt: { convergence: 'behaviour', observedAs: '(ownership tag cloudorch.io/owner)', via: ['TagResource'] },
  paused: { convergence: 'behaviour', observedAs: '(observe only)', via: [] },
} as const satisfies Record<keyof CloudClusterSpec, FieldRule>;

const RULES: readonly FieldRule[] = Object.values(FIELD_TABLE);

/**
 * Every difference between desired and observed, field by field. A missing cluster or node group is
 * drift too. Behaviour fields have no counterpart and never drift.
 */
export function detectDrift(
  spec: CloudClusterSpec,
  o: Observation,
  defaults: PlanDefaults = {},
): DriftItem[] {
  if (!o.cluster) return [{ field: 'cluster', desired: 'exists', observed: 'not found' }];
  const ctx = fieldContext(spec, o.cluster, o.nodegroups, defaults);
  const items: DriftItem[] = [];
  if (o.nodegroups.length === 0)
    items.push({ field: 'nodegroup', desired: ctx.shape.name, observed: 'none' });
  for (const rule of RULES) items.push(...(rule.drift?.(ctx) ?? []));
  return items;
}

/** The rules that report differences EKS cannot converge, in the order they are reported. */
const UNCONVERGEABLE = RULES.flatMap(({ drift, unconvergeable }) =>
  drift && unconvergeable ? [{ drift, ...unconvergeable }] : [],
).sort((a, b) => a.rank - b.rank);

/** The planner's immutable-field check: each field's own comparison, reported by its own rule. */
export function unconvergeableDifferences(ctx: FieldContext): Impossible[] {
  return UNCONVERGEABLE.flatMap(({ drift, impossible }) =>
    drift(ctx).flatMap((item) => impossible(item, ctx) ?? []),
  );
}

function isSpecField(field: string): field is keyof typeof FIELD_TABLE {
  return Object.hasOwn(FIELD_TABLE, field);
}

/**
 * The spec field a drift item belongs to, with its rule: `network.subnetIds` and
 * `kubernetesVersion (node group x)` belong to `network` and `kubernetesVersion`. Undefined for a
 * missing cluster or node group, which are resources, not fields.
 */
export function ruleOfDrift(
  driftField: string,
): { field: keyof CloudClusterSpec; rule: FieldRule } | undefined {
  const field = /^\w+/.exec(driftField)?.[0] ?? '';
  return isSpecField(field) ? { field, rule: FIELD_TABLE[field] } : undefined;
}
