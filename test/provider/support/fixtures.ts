/** Operations as the planner builds them, and a bounded poll for EKS's asynchronous transitions. */
import type { Observation } from '../../../lambdas/core/observation.js';
import { ownershipTags } from '../../../lambdas/core/ownership.js';
import { idempotencyToken } from '../../../lambdas/core/plan/tokens.js';
import type {
  CreateCluster,
  CreateNodegroup,
  UpdateClusterVersion,
  UpdateNodegroupScaling,
  UpdateNodegroupVersion,
} from '../../../lambdas/core/plan/types.js';
import type { ClusterProvider, ObserveOptions } from '../../../lambdas/core/provider.js';
import { REGION, roleArn } from './servers.js';

export const RECORD = 'default/conformance';
export const CLUSTER = 'conformance';
export const NODEGROUP = 'cloudorch-m5-large-od-abc123';
export const ref = { clusterName: CLUSTER, region: REGION } as const;
const base = { clusterName: CLUSTER, region: REGION } as const;

export function createClusterOp(account: string, generation = 1, version = '1.30'): CreateCluster {
  return {
    kind: 'CreateCluster',
    ...base,
    version,
    roleArn: roleArn(account, 'eks-cluster'),
    subnetIds: ['subnet-a', 'subnet-b'],
    securityGroupIds: ['sg-1'],
    tags: { team: 'platform', ...ownershipTags(RECORD) },
    clientRequestToken: idempotencyToken(RECORD, generation, 'CreateCluster', CLUSTER, version),
  };
}

export function createNodegroupOp(account: string, version = '1.30', generation = 1): CreateNodegroup {
  return {
    kind: 'CreateNodegroup',
    ...base,
    nodegroupName: NODEGROUP,
    version,
    instanceType: 'm5.large',
    capacityType: 'SPOT',
    scaling: { minSize: 1, maxSize: 3, desiredSize: 2 },
    nodeRoleArn: roleArn(account, 'eks-node'),
    subnetIds: ['subnet-a'],
    tags: { team: 'platform', ...ownershipTags(RECORD) },
    clientRequestToken: idempotencyToken(RECORD, generation, 'CreateNodegroup', NODEGROUP, version),
  };
}

export function scalingOp(desiredSize: number, generation = 1): UpdateNodegroupScaling {
  const scaling = { desiredSize };
  return {
    kind: 'UpdateNodegroupScaling',
    ...base,
    nodegroupName: NODEGROUP,
    from: { minSize: 1, maxSize: 3, desiredSize: 2 },
    scaling,
    clientRequestToken: idempotencyToken(
      RECORD,
      generation,
      'UpdateNodegroupScaling',
      NODEGROUP,
      JSON.stringify(scaling),
    ),
  };
}

export function clusterVersionOp(from: string, to: string, generation = 1): UpdateClusterVersion {
  return {
    kind: 'UpdateClusterVersion',
    ...base,
    fromVersion: from,
    toVersion: to,
    clientRequestToken: idempotencyToken(RECORD, generation, 'UpdateClusterVersion', CLUSTER, to),
  };
}

export function nodegroupVersionOp(from: string, to: string, generation = 1): UpdateNodegroupVersion {
  return {
    kind: 'UpdateNodegroupVersion',
    ...base,
    nodegroupName: NODEGROUP,
    fromVersion: from,
    toVersion: to,
    clientRequestToken: idempotencyToken(RECORD, generation, 'UpdateNodegroupVersion', NODEGROUP, to),
  };
}

/**
 * Observes until `done` holds. Bounded by a number of polls, not by time: a transition that never
 * completes fails the test with the last observation.
 */
export async function until(
  provider: ClusterProvider,
  done: (o: Observation) => boolean,
  opts: ObserveOptions = {},
  polls = 400,
): Promise<Observation> {
  let last: Observation | undefined;
  for (let i = 0; i < polls; i++) {
    last = await provider.observe(ref, opts);
    if (done(last)) return last;
    await new Promise((r) => setTimeout(r, 2));
  }
  throw new Error(`condition not reached after ${polls} observations; last: ${JSON.stringify(last)}`);
}

export const clusterActive = (o: Observation) => o.cluster?.status === 'ACTIVE';
export const nodegroupActive = (o: Observation) =>
  o.nodegroups.some((ng) => ng.name === NODEGROUP && ng.status === 'ACTIVE');
