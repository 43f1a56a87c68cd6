/**
 * The field table: every spec field, what it is compared with in EKS and how a difference converges.
 * `satisfies Record<keyof CloudClusterSpec, …>` makes a missing field a compile error, and a test
 * checks the table against the schema at run time too. Drift, the planner's check for differences
 * EKS cannot converge, the planner's version, scaling and tag stages (through each rule's `values`)
 * and `cloudorch describe` all read this table; the node-group replacement stage and the rules of the
 * fields that replace a group share one resolved shape (`FieldContext.shape`). So a field is added
 * in one place; a property test fails when the planner calls EKS for a difference no drifting
 * field's `via` names.
 */
import type { Observation, ObservedNodegroup } from '../observation.js';
import { ownershipTagsOf } from '../ownership.js';
import type { CloudClusterSpec } from '../spec/schema.js';
import {
  type DriftItem,
  diff,
  type FieldContext,
  fieldContext,
  scalingValues,
  sorted,
  tagValues,
  versionValues,
} from './compare.js';
import { impossible } from './guards.js';
import type { NodegroupShape } from './nodegroup.js';
import type { Impossible, MutatingOperation, PlanDefaults } from './types.js';

export { type DriftItem, type FieldContext, fieldContext } from './compare.js';

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

/**
 * How the planner reports a difference EKS cannot converge. `rank` orders the reports of different
 * fields: status shows the first one's remediation, so the order is kept as users know it.
 */
export interface Unconvergeable {
  readonly rank: number;
  /** The report for one of the field's drift items; null when that difference can converge. */
  readonly impossible: (item: DriftItem, ctx: FieldContext) => Impossible | null;
}

/** How one comparison converges, and what `cloudorch describe` shows beside its drift. */
interface Converges {
  readonly convergence: Convergence;
  /** The EKS attribute it is compared with. */
  readonly observedAs: string;
  /**
   * Operations that converge it: empty for identity and impossible fields; for a behaviour field,
   * the operations it makes the planner send when set (adopt claims the cluster by tagging it).
   */
  readonly via: readonly MutatingOperation['kind'][];
}

interface RuleBase extends Converges {
  /** The comparison: every difference between the resolved spec and EKS for this field. */
  readonly drift?: (ctx: FieldContext) => DriftItem[];
  readonly unconvergeable?: Unconvergeable;
  /** The values the drift compares, for the planner's stage that converges the field. */
  readonly values?: object;
  /**
   * The part of the field node groups carry, when it converges otherwise than the cluster's part.
   * Its drift items name the group: `<field> (node group <name>)`.
   */
  readonly onNodegroup?: Converges & {
    readonly convergence: Extract<Convergence, 'replace-nodegroup'>;
    readonly drift: (ctx: FieldContext) => DriftItem[];
  };
}

/** A field that EKS can have differ must say how it is compared; an immutable one, how it is reported. */
export type FieldRule = RuleBase &
  (
    | { readonly convergence: Extract<Convergence, 'identity' | 'behaviour'> }
    | {
        readonly convergence: Extract<Convergence, 'in-place' | 'replace-nodegroup'>;
        readonly drift: (ctx: FieldContext) => DriftItem[];
      }
    | {
        readonly convergence: Extract<Convergence, 'impossible'>;
        readonly drift: (ctx: FieldContext) => DriftItem[];
        readonly unconvergeable: Unconvergeable;
      }
  );

/**
 * An immutable node group field the group's name does not vouch for on its own: a group matching
 * the desired shape has it right; until one does, every group's value is shown against the wanted one.
 */
const unlessShapeMatches =
  (
    field: string,
    wanted: (shape: NodegroupShape) => readonly string[],
    observed: (ng: ObservedNodegroup) => string | readonly string[],
  ) =>
  ({ shape, nodegroup, nodegroups }: FieldContext): DriftItem[] =>
    nodegroup ? [] : diff(field, wanted(shape), nodegroups.flatMap(observed));

/**
 * An immutable node group field the desired group's name is hashed over: every other group whose
 * value differs from the resolved one is replaced. Nothing is compared when nothing is resolved
 * (EKS then picks the value).
 */
const perNodegroup =
  (
    field: string,
    wanted: (shape: NodegroupShape) => string | undefined,
    observed: (ng: ObservedNodegroup) => string,
  ) =>
  ({ shape, nodegroup, nodegroups }: FieldContext): DriftItem[] => {
    const want = wanted(shape);
    if (!want) return [];
    return nodegroups.flatMap((ng) =>
      ng === nodegroup ? [] : diff(`${field} (node group ${ng.name})`, want, observed(ng)),
    );
  };

export const FIELD_TABLE = {
  provider: { convergence: 'behaviour', observedAs: '(selects the provider)', via: [] },
  region: { convergence: 'identity', observedAs: 'cluster.arn region', via: [] },
  clusterName: { convergence: 'identity', observedAs: 'cluster.name', via: [] },
  kubernetesVersion: {
    convergence: 'in-place',
    observedAs: 'cluster.version, nodegroup.version',
    via: ['UpdateClusterVersion', 'UpdateNodegroupVersion'],
    drift: versionValues.drift,
    // Only the control plane is checked up front; a node group past the desired version is reported
    // by the version stage (converge.ts) through `values.nodegroupAhead`, once the step gets that far.
    unconvergeable: {
      rank: 2,
      impossible: (item, ctx) => (item.field === 'kubernetesVersion' ? versionValues.planeAhead(ctx) : null),
    },
    values: versionValues,
  },
  nodeCount: {
    convergence: 'in-place',
    observedAs: 'nodegroup.scalingConfig.desiredSize',
    via: ['UpdateNodegroupScaling'],
    drift: scalingValues.drift('nodeCount', 'desiredSize'),
    values: scalingValues,
  },
  minSize: {
    convergence: 'in-place',
    observedAs: 'nodegroup.scalingConfig.minSize',
    via: ['UpdateNodegroupScaling'],
    drift: scalingValues.drift('minSize', 'minSize'),
    values: scalingValues,
  },
  maxSize: {
    convergence: 'in-place',
    observedAs: 'nodegroup.scalingConfig.maxSize',
    via: ['UpdateNodegroupScaling'],
    drift: scalingValues.drift('maxSize', 'maxSize'),
    values: scalingValues,
  },
  scaling: { convergence: 'behaviour', observedAs: '(who owns desiredSize)', via: [] },
  instanceType: {
    convergence: 'replace-nodegroup',
    observedAs: 'nodegroup.instanceTypes',
    via: ['CreateNodegroup', 'DeleteNodegroup'],
    drift: unlessShapeMatches(
      'instanceType',
      (shape) => [shape.instanceType],
      (ng) => ng.instanceTypes,
    ),
  },
  spotEnabled: {
    convergence: 'replace-nodegroup',
    observedAs: 'nodegroup.capacityType',
    via: ['CreateNodegroup', 'DeleteNodegroup'],
    drift: unlessShapeMatches(
      'spotEnabled',
      (shape) => [shape.capacityType],
      (ng) => ng.capacityType,
    ),
  },
  tags: {
    convergence: 'in-place',
    observedAs: 'cluster.tags, nodegroup.tags',
    via: ['TagResource', 'UntagResource'],
    drift: (ctx) => [
      ...tagValues.drift('tags', ctx, ctx.cluster.tags, ownershipTagsOf(ctx.cluster.tags)),
      ...(ctx.nodegroup
        ? tagValues.drift(
            `tags (node group ${ctx.nodegroup.name})`,
            ctx,
            ctx.nodegroup.tags,
            ownershipTagsOf(ctx.nodegroup.tags),
          )
        : []),
    ],
    values: tagValues,
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
    // The node group's subnets (the spec's, else the default ones) are hashed into its name: a
    // change there replaces the group, while the cluster's own subnets stay impossible to move.
    onNodegroup: {
      convergence: 'replace-nodegroup',
      observedAs: 'nodegroup.subnets',
      via: ['CreateNodegroup', 'DeleteNodegroup'],
      drift: perNodegroup(
        'network.subnetIds',
        (shape) => (shape.subnetIds.length > 0 ? sorted(shape.subnetIds) : undefined),
        (ng) => sorted(ng.subnets),
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
    drift: perNodegroup(
      'nodeRoleArn',
      (shape) => shape.nodeRoleArn,
      (ng) => ng.nodeRole,
    ),
  },
  deletionPolicy: { convergence: 'behaviour', observedAs: '(what deletion does)', via: [] },
  adopt: {
    convergence: 'behaviour',
    observedAs: '(ownership tag cloudorch.io/owner)',
    // Claiming tags the cluster as this record's, or lifts this record's own release mark.
    via: ['TagResource', 'UntagResource'],
  },
  paused: { convergence: 'behaviour', observedAs: '(observe only)', via: [] },
} as const satisfies Record<keyof CloudClusterSpec, FieldRule>;

const RULES: readonly FieldRule[] = Object.values(FIELD_TABLE);

/**
 * Every difference between desired and observed, field by field. A missing cluster is drift, and so
 * are node groups other than exactly the desired one (the planner creates it and deletes the rest).
 * Behaviour fields have no counterpart and never drift.
 */
export function detectDrift(
  spec: CloudClusterSpec,
  o: Observation,
  defaults: PlanDefaults = {},
): DriftItem[] {
  if (!o.cluster) return [{ field: 'cluster', desired: 'exists', observed: 'not found' }];
  const ctx = fieldContext(spec, o.cluster, o.nodegroups, defaults);
  const items: DriftItem[] = [];
  if (!ctx.nodegroup || o.nodegroups.length > 1) {
    const names = o.nodegroups.map((ng) => ng.name).join(', ');
    items.push({ field: 'nodegroup', desired: ctx.shape.name, observed: names || 'none' });
  }
  for (const rule of RULES) items.push(...(rule.drift?.(ctx) ?? []), ...(rule.onNodegroup?.drift(ctx) ?? []));
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
 * The spec field a drift item belongs to, with how it converges: `network.subnetIds` and
 * `kubernetesVersion (node group x)` belong to `network` and `kubernetesVersion`, and a node group's
 * item to the field's node group part where it has one. Undefined for a missing cluster or node
 * group, which are resources, not fields.
 */
export function ruleOfDrift(
  driftField: string,
): { field: keyof CloudClusterSpec; rule: Converges } | undefined {
  const field = /^\w+/.exec(driftField)?.[0] ?? '';
  if (!isSpecField(field)) return undefined;
  const rule: FieldRule = FIELD_TABLE[field];
  const part = driftField.includes(' (node group ') ? rule.onNodegroup : undefined;
  return { field, rule: part ?? rule };
}
