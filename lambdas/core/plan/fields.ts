/**
 * The field table: every spec field, what it is compared with in EKS and how a difference converges;
 * `nodeGroups` holds the pool table (pool-fields.ts), one rule per pool field. `satisfies
 * Record<keyof CloudClusterSpec, …>` makes a missing field a compile error, and a test checks the
 * tables against the schema at run time too. Drift, the planner's check for differences EKS cannot
 * converge, the planner's stages (through each rule's `values`) and `cloudorch describe` all read
 * these tables. So a field is added in one place; a property test fails when the planner calls EKS for
 * a difference no drifting field's `via` names.
 */
import type { Observation } from '../observation.js';
import { ownershipTagsOf } from '../ownership.js';
import type { CloudClusterSpec } from '../spec/schema.js';
import {
  type DriftItem,
  diff,
  type FieldContext,
  fieldContext,
  poolField,
  sorted,
  tagValues,
  versionValues,
} from './compare.js';
import { accessDrift } from './converge-access.js';
import { addonsDrift } from './converge-addons.js';
import { impossible } from './guards.js';
import { POOL_FIELD_TABLE, type PoolRule, poolsDrift } from './pool-fields.js';
import { defaultsFor, type Impossible, type MutatingOperation, type PlanDefaults } from './types.js';

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
export interface Converges {
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
  /** `nodeGroups` only: the rule of each pool field. */
  readonly pools?: Readonly<Record<string, PoolRule>>;
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

export const FIELD_TABLE = {
  provider: { convergence: 'behaviour', observedAs: '(selects the provider)', via: [] },
  accountId: { convergence: 'identity', observedAs: 'the account whose role CloudOrch assumes', via: [] },
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
  nodeGroups: {
    convergence: 'in-place',
    observedAs: "the cluster's managed node groups",
    // A pool added or removed, a group gone, or one CloudOrch did not make. Each pool's own fields
    // are rules of the pool table, read through `pools`.
    via: ['CreateNodegroup', 'DeleteNodegroup'],
    drift: poolsDrift,
    pools: POOL_FIELD_TABLE,
  },
  tags: {
    convergence: 'in-place',
    observedAs: 'cluster.tags, nodegroup.tags',
    via: ['TagResource', 'UntagResource'],
    drift: (ctx) => [
      ...tagValues.drift('tags', ctx, ctx.cluster.tags, ownershipTagsOf(ctx.cluster.tags)),
      ...ctx.assignment.pools.flatMap(({ pool, current }) =>
        current
          ? tagValues.drift(poolField(pool.name, 'tags'), ctx, current.tags, ownershipTagsOf(current.tags))
          : [],
      ),
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
  deletionPolicy: { convergence: 'behaviour', observedAs: '(what deletion does)', via: [] },
  adopt: {
    convergence: 'behaviour',
    observedAs: '(ownership tag cloudorch.io/owner)',
    // Claiming tags the cluster as this record's, or lifts this record's own release mark.
    via: ['TagResource', 'UntagResource'],
  },
  paused: { convergence: 'behaviour', observedAs: '(observe only)', via: [] },
  addons: {
    convergence: 'in-place',
    observedAs: 'ListAddons + DescribeAddon, versions from DescribeAddonVersions',
    // A missing add-on, its version for the cluster's minor, its settings, and the add-ons CloudOrch
    // created that left the list; the tag records which `version` keyword it was converged for.
    via: ['CreateAddon', 'UpdateAddon', 'DeleteAddon', 'TagResource'],
    drift: addonsDrift,
  },
  access: {
    convergence: 'in-place',
    observedAs:
      'cluster.accessConfig, ListAccessEntries + DescribeAccessEntry + ListAssociatedAccessPolicies',
    via: [
      'UpdateClusterConfig',
      'CreateAccessEntry',
      'UpdateAccessEntry',
      'DeleteAccessEntry',
      'AssociateAccessPolicy',
      'DisassociateAccessPolicy',
    ],
    drift: accessDrift,
  },
  upgrade: {
    convergence: 'behaviour',
    observedAs: '(the readiness gate: ListInsights UPGRADE_READINESS)',
    via: [],
  },
} as const satisfies Record<keyof CloudClusterSpec, FieldRule>;

const RULES: readonly FieldRule[] = Object.values(FIELD_TABLE);
const POOL_RULES: readonly PoolRule[] = Object.values(POOL_FIELD_TABLE);

/**
 * Every difference between desired and observed, field by field and pool by pool. A missing cluster
 * is drift, and so are a pool without its node group and node groups no pool wants. Behaviour fields
 * have no counterpart and never drift.
 */
export function detectDrift(
  spec: CloudClusterSpec,
  o: Observation,
  deployment: PlanDefaults = {},
): DriftItem[] {
  if (!o.cluster) return [{ field: 'cluster', desired: 'exists', observed: 'not found' }];
  const ctx = fieldContext(spec, o.cluster, o.nodegroups, defaultsFor(spec, deployment), o);
  const items: DriftItem[] = RULES.flatMap((rule) => rule.drift?.(ctx) ?? []);
  for (const pg of ctx.assignment.pools)
    for (const rule of POOL_RULES) items.push(...(rule.drift?.(ctx, pg) ?? []));
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

function isPoolField(field: string): field is keyof typeof POOL_FIELD_TABLE {
  return Object.hasOwn(POOL_FIELD_TABLE, field);
}

/**
 * The spec field a drift item belongs to, with how it converges: `network.subnetIds` belongs to
 * `network`; `nodeGroups[workers].nodeCount` to the pool field `nodeCount`, while a pool's
 * `kubernetesVersion` and `tags` belong to those cluster fields. Undefined for a missing cluster,
 * which is a resource, not a field.
 */
export function ruleOfDrift(driftField: string): { field: string; rule: Converges } | undefined {
  const pool = /^nodeGroups\[[^\]]*\]\.(\w+)/.exec(driftField)?.[1];
  if (pool !== undefined) {
    if (isPoolField(pool)) return { field: `nodeGroups[].${pool}`, rule: POOL_FIELD_TABLE[pool] };
    return isSpecField(pool) ? { field: pool, rule: FIELD_TABLE[pool] } : undefined;
  }
  const field = /^\w+/.exec(driftField)?.[0] ?? '';
  return isSpecField(field) ? { field, rule: FIELD_TABLE[field] } : undefined;
}
