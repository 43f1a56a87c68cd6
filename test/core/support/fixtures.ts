/** Builders for specs, desired state and observations used across core tests. */
import { Health } from '../../../lambdas/core/health.js';
import type {
  AddonVersion,
  Observation,
  ObservedCluster,
  ObservedInsight,
  ObservedNodegroup,
} from '../../../lambdas/core/observation.js';
import { ownershipTags, POOL_TAG } from '../../../lambdas/core/ownership.js';
import { amiTypeFor, desiredNodegroup, desiredScaling } from '../../../lambdas/core/plan/nodegroup.js';
import type { Desired, PlanDefaults } from '../../../lambdas/core/plan/types.js';
import { DEFAULT_POOL } from '../../../lambdas/core/spec/pools.js';
import {
  type CloudClusterSpec,
  type CloudClusterSpecInput,
  specSchema,
} from '../../../lambdas/core/spec/schema.js';

export const ID = 'team-a/demo';
export const ACCOUNT = '111122223333';
export const DEFAULTS: PlanDefaults = {
  clusterRoleArn: `arn:aws:iam::${ACCOUNT}:role/eks-cluster`,
  nodeRoleArn: `arn:aws:iam::${ACCOUNT}:role/eks-node`,
  subnetIds: ['subnet-0000000a', 'subnet-0000000b'],
};

export const baseSpecInput: CloudClusterSpecInput = {
  provider: 'aws',
  region: 'us-east-1',
  clusterName: 'demo',
  kubernetesVersion: '1.31',
  nodeCount: 3,
  instanceType: 't3.large',
  tags: { team: 'a' },
};

/** A spec from the base one; `nodeGroups` in `over` replaces the base's flat node fields. */
export function spec(over: Partial<CloudClusterSpecInput> = {}): CloudClusterSpec {
  const { nodeCount: _n, instanceType: _i, ...common } = baseSpecInput;
  return specSchema.parse({ ...(over.nodeGroups ? common : baseSpecInput), ...over });
}

export function desired(over: Partial<CloudClusterSpecInput> = {}, extra: Partial<Desired> = {}): Desired {
  return { id: ID, spec: spec(over), generation: 1, deletionRequested: false, ...extra };
}

export function cluster(over: Partial<ObservedCluster> = {}): ObservedCluster {
  return {
    name: 'demo',
    arn: `arn:aws:eks:us-east-1:${ACCOUNT}:cluster/demo`,
    region: 'us-east-1',
    version: '1.31',
    status: 'ACTIVE',
    health: Health.Healthy,
    roleArn: DEFAULTS.clusterRoleArn!,
    subnetIds: DEFAULTS.subnetIds!,
    securityGroupIds: [],
    tags: { team: 'a', ...ownershipTags(ID) },
    ...over,
  };
}

/** The node group the planner wants for pool `pool` of `s` (the first pool by default), as EKS would report it once ACTIVE. */
export function nodegroupFor(
  s: CloudClusterSpec,
  over: Partial<ObservedNodegroup> = {},
  pool: string = s.nodeGroups[0]!.name,
): ObservedNodegroup {
  const p = s.nodeGroups.find((x) => x.name === pool)!;
  const shape = desiredNodegroup(p, s, DEFAULTS);
  return {
    name: shape.name,
    arn: `arn:aws:eks:us-east-1:${ACCOUNT}:nodegroup/demo/${shape.name}/abc`,
    version: s.kubernetesVersion,
    status: 'ACTIVE',
    health: Health.Healthy,
    instanceTypes: [...shape.instanceTypes],
    capacityType: shape.capacityType,
    scaling: desiredScaling(p),
    nodeRole: shape.nodeRoleArn ?? DEFAULTS.nodeRoleArn!,
    subnets: [...shape.subnetIds],
    tags: { ...s.tags, ...ownershipTags(ID), ...(pool === DEFAULT_POOL ? {} : { [POOL_TAG]: pool }) },
    labels: { ...p.labels },
    taints: [...p.taints],
    amiType: shape.amiType ?? amiTypeFor(shape.instanceTypes[0]!),
    diskSize: shape.diskSize ?? 20,
    updateConfig: p.updateConfig ?? { maxUnavailable: 1 },
    ...over,
  };
}

export function observation(c: ObservedCluster | null, ngs: ObservedNodegroup[] = []): Observation {
  // Insights read, all passing: the readiness gate passes (it holds a step when none is about it).
  return { cluster: c, nodegroups: ngs, observedAt: '2026-11-29T12:00:00.000Z', insights: PASSING_INSIGHTS };
}

/** A cluster that already matches `s` exactly. */
export function converged(s: CloudClusterSpec): Observation {
  return {
    ...observation(
      cluster({ version: s.kubernetesVersion, tags: { ...s.tags, ...ownershipTags(ID) } }),
      s.nodeGroups.map((p) => nodegroupFor(s, {}, p.name)),
    ),
    addons: [],
    addonVersions: ADDON_VERSIONS,
  };
}

/** One PASSING upgrade insight about every minor the tests step to, as EKS's standard checks read. */
export const PASSING_INSIGHTS: readonly ObservedInsight[] = [
  '1.28',
  '1.29',
  '1.30',
  '1.31',
  '1.32',
  '1.33',
  '1.34',
  '1.35',
  '1.36',
].map((v) => ({
  id: `passing-${v}`,
  name: `Deprecated APIs removed in Kubernetes v${v}`,
  kubernetesVersion: v,
  status: 'PASSING',
}));

/**
 * A small add-on table in DescribeAddonVersions' shape (test data): per minor 1.29-1.35, kube-proxy
 * has one version of that minor only (the default); vpc-cni's versions each run on three minors.
 */
export const ADDON_VERSIONS: Readonly<Record<string, readonly AddonVersion[]>> = (() => {
  const minors = ['1.29', '1.30', '1.31', '1.32', '1.33', '1.34', '1.35'];
  const compat = (ms: readonly string[], def: string) =>
    ms.map((m) => ({ clusterVersion: m, defaultVersion: m === def }));
  return {
    'kube-proxy': minors.map((m) => ({ version: `v${m}.0-eksbuild.1`, compatibilities: compat([m], m) })),
    'vpc-cni': minors.map((m, i) => ({
      version: `v1.${20 + i}.0-eksbuild.1`,
      compatibilities: compat(minors.slice(i, i + 3), m),
    })),
    coredns: minors.map((m, i) => ({
      version: `v1.11.${i}-eksbuild.1`,
      compatibilities: compat(minors.slice(i, i + 2), m),
    })),
  };
})();
