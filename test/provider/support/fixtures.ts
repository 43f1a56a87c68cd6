/** Operations as the planner builds them, and a bounded poll for EKS's asynchronous transitions. */
import type { Observation } from '../../../lambdas/core/observation.js';
import { ownershipTags, POOL_TAG } from '../../../lambdas/core/ownership.js';
import { idempotencyToken } from '../../../lambdas/core/plan/tokens.js';
import type {
  CreateCluster,
  CreateNodegroup,
  UpdateClusterVersion,
  UpdateNodegroupConfig,
  UpdateNodegroupVersion,
} from '../../../lambdas/core/plan/types.js';
import type { ClusterProvider, ObserveOptions } from '../../../lambdas/core/provider.js';
import { REGION, roleArn } from './servers.js';

export const RECORD = 'default/conformance';
export const CLUSTER = 'conformance';
export const NODEGROUP = 'cloudorch-m5-large-od-abc123';
export const POOL = 'default';
export const ref = { clusterName: CLUSTER, region: REGION } as const;
const base = { clusterName: CLUSTER, region: REGION } as const;

export function createClusterOp(
  account: string,
  generation = 1,
  version = '1.30',
  authenticationMode = 'API_AND_CONFIG_MAP',
): CreateCluster {
  return {
    kind: 'CreateCluster',
    ...base,
    version,
    roleArn: roleArn(account, 'eks-cluster'),
    subnetIds: ['subnet-a', 'subnet-b'],
    securityGroupIds: ['sg-1'],
    tags: { team: 'platform', ...ownershipTags(RECORD) },
    accessConfig: { authenticationMode, bootstrapClusterCreatorAdminPermissions: false },
    clientRequestToken: idempotencyToken(RECORD, generation, 'CreateCluster', CLUSTER, version),
  };
}

export function createNodegroupOp(
  account: string,
  version = '1.30',
  generation = 1,
  over: Partial<CreateNodegroup> = {},
): CreateNodegroup {
  const nodegroupName = over.nodegroupName ?? NODEGROUP;
  const pool = over.pool ?? POOL;
  return {
    kind: 'CreateNodegroup',
    ...base,
    nodegroupName,
    pool,
    version,
    instanceTypes: ['m5.large'],
    capacityType: 'SPOT',
    amiType: 'AL2023_x86_64_STANDARD',
    diskSize: undefined,
    scaling: { minSize: 1, maxSize: 3, desiredSize: 2 },
    labels: {},
    taints: [],
    updateConfig: undefined,
    nodeRoleArn: roleArn(account, 'eks-node'),
    subnetIds: ['subnet-a'],
    tags: { team: 'platform', ...ownershipTags(RECORD), [POOL_TAG]: pool },
    clientRequestToken: idempotencyToken(RECORD, generation, 'CreateNodegroup', nodegroupName, version),
    ...over,
  };
}

/** An UpdateNodegroupConfig of the fixture's group (scaling 1/3/2) with the members given. */
export function configOp(
  change: Pick<UpdateNodegroupConfig, 'scaling' | 'labels' | 'taints' | 'updateConfig'>,
  generation = 1,
  nodegroupName = NODEGROUP,
): UpdateNodegroupConfig {
  return {
    kind: 'UpdateNodegroupConfig',
    ...base,
    nodegroupName,
    pool: POOL,
    from: { minSize: 1, maxSize: 3, desiredSize: 2 },
    ...change,
    clientRequestToken: idempotencyToken(
      RECORD,
      generation,
      'UpdateNodegroupConfig',
      nodegroupName,
      JSON.stringify(change),
    ),
  };
}

export function scalingOp(desiredSize: number, generation = 1): UpdateNodegroupConfig {
  return configOp({ scaling: { desiredSize } }, generation);
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
    pool: POOL,
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
