/** Builders for specs, desired state and observations used across core tests. */
import { Health } from '../../../lambdas/core/health.js';
import type { Observation, ObservedCluster, ObservedNodegroup } from '../../../lambdas/core/observation.js';
import { ownershipTags } from '../../../lambdas/core/ownership.js';
import { desiredNodegroup, desiredScaling } from '../../../lambdas/core/plan/nodegroup.js';
import type { Desired, PlanDefaults } from '../../../lambdas/core/plan/types.js';
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

export function spec(over: Partial<CloudClusterSpecInput> = {}): CloudClusterSpec {
  return specSchema.parse({ ...baseSpecInput, ...over });
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

/** The node group the planner wants for `s`, as EKS would report it once ACTIVE. */
export function nodegroupFor(s: CloudClusterSpec, over: Partial<ObservedNodegroup> = {}): ObservedNodegroup {
  const shape = desiredNodegroup(s, DEFAULTS);
  return {
    name: shape.name,
    arn: `arn:aws:eks:us-east-1:${ACCOUNT}:nodegroup/demo/${shape.name}/abc`,
    version: s.kubernetesVersion,
    status: 'ACTIVE',
    health: Health.Healthy,
    instanceTypes: [shape.instanceType],
    capacityType: shape.capacityType,
    scaling: desiredScaling(s),
    nodeRole: DEFAULTS.nodeRoleArn!,
    subnets: [...shape.subnetIds],
    tags: { ...s.tags, ...ownershipTags(ID) },
    ...over,
  };
}

export function observation(c: ObservedCluster | null, ngs: ObservedNodegroup[] = []): Observation {
  return { cluster: c, nodegroups: ngs, observedAt: '2026-11-29T12:00:00.000Z' };
}

/** A cluster that already matches `s` exactly. */
export function converged(s: CloudClusterSpec): Observation {
  return observation(cluster({ version: s.kubernetesVersion, tags: { ...s.tags, ...ownershipTags(ID) } }), [
    nodegroupFor(s),
  ]);
}
