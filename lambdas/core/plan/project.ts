/**
 * What an observation looks like once an operation has completed in EKS. Used only to preview the
 * rest of a plan (`cloudorch plan`); reconciliation always re-observes the real cluster. Projected
 * ARNs say so in their account field, so they can never pass for real ones.
 */
import { Health } from '../health.js';
import type { Observation, ObservedCluster, ObservedNodegroup } from '../observation.js';
import type { MutatingOperation } from './types.js';

const PROJECTED_ACCOUNT = 'projected';

function retag(tags: Readonly<Record<string, string>>, op: MutatingOperation): Record<string, string> {
  if (op.kind === 'TagResource') return { ...tags, ...op.tags };
  if (op.kind === 'UntagResource')
    return Object.fromEntries(Object.entries(tags).filter(([k]) => !op.tagKeys.includes(k)));
  return { ...tags };
}

function mapNodegroup(
  o: Observation,
  name: string,
  f: (ng: ObservedNodegroup) => ObservedNodegroup,
): Observation {
  return { ...o, nodegroups: o.nodegroups.map((ng) => (ng.name === name ? f(ng) : ng)) };
}

function mapCluster(o: Observation, f: (c: ObservedCluster) => ObservedCluster): Observation {
  return o.cluster ? { ...o, cluster: f(o.cluster) } : o;
}

export function project(o: Observation, op: MutatingOperation): Observation {
  switch (op.kind) {
    case 'CreateCluster':
      return {
        ...o,
        cluster: {
          name: op.clusterName,
          arn: `arn:aws:eks:${op.region}:${PROJECTED_ACCOUNT}:cluster/${op.clusterName}`,
          region: op.region,
          version: op.version,
          status: 'ACTIVE',
          health: Health.Healthy,
          roleArn: op.roleArn ?? '',
          subnetIds: op.subnetIds,
          securityGroupIds: op.securityGroupIds,
          tags: op.tags,
        },
        nodegroups: [],
      };
    case 'CreateNodegroup':
      return {
        ...o,
        nodegroups: [
          ...o.nodegroups,
          {
            name: op.nodegroupName,
            arn: `arn:aws:eks:${op.region}:${PROJECTED_ACCOUNT}:nodegroup/${op.clusterName}/${op.nodegroupName}`,
            version: op.version,
            status: 'ACTIVE',
            health: Health.Healthy,
            instanceTypes: [op.instanceType],
            capacityType: op.capacityType,
            scaling: op.scaling,
            nodeRole: op.nodeRoleArn ?? '',
            subnets: op.subnetIds,
            tags: op.tags,
          },
        ],
      };
    case 'UpdateClusterVersion':
      return mapCluster(o, (c) => ({ ...c, version: op.toVersion }));
    case 'UpdateNodegroupVersion':
      return mapNodegroup(o, op.nodegroupName, (ng) => ({ ...ng, version: op.toVersion }));
    case 'UpdateNodegroupScaling':
      return mapNodegroup(o, op.nodegroupName, (ng) => ({
        ...ng,
        scaling: { ...ng.scaling, ...op.scaling },
      }));
    case 'TagResource':
    case 'UntagResource':
      if (o.cluster?.arn === op.resourceArn) return mapCluster(o, (c) => ({ ...c, tags: retag(c.tags, op) }));
      return {
        ...o,
        nodegroups: o.nodegroups.map((ng) =>
          ng.arn === op.resourceArn ? { ...ng, tags: retag(ng.tags, op) } : ng,
        ),
      };
    case 'DeleteNodegroup':
      return { ...o, nodegroups: o.nodegroups.filter((ng) => ng.name !== op.nodegroupName) };
    case 'DeleteCluster':
      return { ...o, cluster: null, nodegroups: [] };
  }
}
