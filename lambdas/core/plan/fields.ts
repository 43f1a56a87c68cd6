/**
 * The field table: every spec field, what it is compared with in EKS and how a difference converges.
 * `satisfies Record<keyof CloudClusterSpec, …>` makes a missing field a compile error, and a test
 * checks the table against the schema at run time too. Drift detection is driven by this table,
 * so no field can be forgotten by the diff.
 */
import type { Observation, ObservedCluster, ObservedNodegroup } from '../observation.js';
import { MANAGED_BY_TAG, OWNER_TAG } from '../ownership.js';
import type { CloudClusterSpec } from '../spec/schema.js';
import { desiredNodegroup, desiredScaling, matchesShape } from './nodegroup.js';
import type { MutatingOperation, PlanDefaults } from './types.js';

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

export interface FieldContext {
  readonly spec: CloudClusterSpec;
  readonly cluster: ObservedCluster;
  /** The node group matching the desired shape, if any. */
  readonly nodegroup: ObservedNodegroup | undefined;
  readonly nodegroups: readonly ObservedNodegroup[];
  readonly defaults: PlanDefaults;
}

export interface FieldRule {
  readonly convergence: Convergence;
  /** The EKS attribute it is compared with (documentation: nothing reads it at run time). */
  readonly observedAs: string;
  /** Operations that converge it (empty for identity, impossible and behaviour fields). */
  readonly via: readonly MutatingOperation['kind'][];
  readonly drift?: (ctx: FieldContext) => DriftItem[];
}

const diff = (field: string, desired: unknown, observed: unknown): DriftItem[] => {
  const d = typeof desired === 'string' ? desired : JSON.stringify(desired);
  const o = typeof observed === 'string' ? observed : JSON.stringify(observed);
  return d === o ? [] : [{ field, desired: d, observed: o }];
};

const sorted = (xs: readonly string[]) => [...xs].sort().join(',');
const userTags = (t: Readonly<Record<string, string>>) =>
  Object.fromEntries(
    Object.entries(t)
      .filter(([k]) => k !== OWNER_TAG && k !== MANAGED_BY_TAG && !k.startsWith('aws:'))
      .sort(),
  );

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
    drift: ({ spec, nodegroup }) =>
      nodegroup ? diff('minSize', desiredScaling(spec).minSize, nodegroup.scaling.minSize) : [],
  },
  maxSize: {
    convergence: 'in-place',
    observedAs: 'nodegroup.scalingConfig.maxSize',
    via: ['UpdateNodegroupScaling'],
    drift: ({ spec, nodegroup }) =>
      nodegroup ? diff('maxSize', desiredScaling(spec).maxSize, nodegroup.scaling.maxSize) : [],
  },
  scaling: { convergence: 'behaviour', observedAs: '(who owns desiredSize)', via: [] },
  instanceType: {
    convergence: 'replace-nodegroup',
    observedAs: 'nodegroup.instanceTypes',
    via: ['CreateNodegroup', 'DeleteNodegroup'],
    drift: ({ spec, nodegroup, nodegroups }) =>
      nodegroup
        ? []
        : diff(
            'instanceType',
            [spec.instanceType],
            nodegroups.flatMap((ng) => ng.instanceTypes),
          ),
  },
  spotEnabled: {
    convergence: 'replace-nodegroup',
    observedAs: 'nodegroup.capacityType',
    via: ['CreateNodegroup', 'DeleteNodegroup'],
    drift: ({ spec, nodegroup, nodegroups }) =>
      nodegroup
        ? []
        : diff(
            'spotEnabled',
            [spec.spotEnabled ? 'SPOT' : 'ON_DEMAND'],
            nodegroups.map((ng) => ng.capacityType),
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
  },
  clusterRoleArn: {
    convergence: 'impossible',
    observedAs: 'cluster.roleArn',
    via: [],
    drift: ({ spec, cluster }) =>
      spec.clusterRoleArn ? diff('clusterRoleArn', spec.clusterRoleArn, cluster.roleArn) : [],
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

/**
 * Every difference between desired and observed, field by field. A missing cluster or node group is
 * drift too. Behaviour fields have no counterpart and never drift.
 */
export function detectDrift(
  spec: CloudClusterSpec,
  o: Observation,
  defaults: PlanDefaults = {},
): DriftItem[] {
  const cluster = o.cluster;
  if (!cluster) return [{ field: 'cluster', desired: 'exists', observed: 'not found' }];
  const shape = desiredNodegroup(spec, defaults);
  const nodegroup = o.nodegroups.find((ng) => matchesShape(ng, shape));
  const ctx: FieldContext = { spec, cluster, nodegroup, nodegroups: o.nodegroups, defaults };
  const items: DriftItem[] = [];
  if (o.nodegroups.length === 0) items.push({ field: 'nodegroup', desired: shape.name, observed: 'none' });
  for (const rule of Object.values(FIELD_TABLE) as FieldRule[]) items.push(...(rule.drift?.(ctx) ?? []));
  return items;
}
