/**
 * What an observation looks like once an operation has completed in EKS. Used only to preview the
 * rest of a plan (`cloudorch plan`); reconciliation always re-observes the real cluster. Projected
 * ARNs say so in their account field, so they can never pass for real ones.
 */
import { Health } from '../health.js';
import type { Observation, ObservedCluster, ObservedNodegroup } from '../observation.js';
import { sameTaint } from './pool-compare.js';
import type { MutatingOperation, UpdateNodegroupConfig } from './types.js';

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

/** A node group after UpdateNodegroupConfig: EKS's rules for labels and taints (key and effect identify one). */
function configured(ng: ObservedNodegroup, op: UpdateNodegroupConfig): ObservedNodegroup {
  const labels = Object.fromEntries(
    Object.entries({ ...ng.labels, ...op.labels?.addOrUpdateLabels }).filter(
      ([k]) => !op.labels?.removeLabels.includes(k),
    ),
  );
  const touched = [...(op.taints?.addOrUpdateTaints ?? []), ...(op.taints?.removeTaints ?? [])];
  const taints = [
    ...ng.taints.filter((t) => !touched.some((x) => sameTaint(x, t))),
    ...(op.taints?.addOrUpdateTaints ?? []),
  ];
  return {
    ...ng,
    scaling: { ...ng.scaling, ...op.scaling },
    labels,
    taints,
    ...(op.updateConfig ? { updateConfig: op.updateConfig } : {}),
  };
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
            instanceTypes: op.instanceTypes,
            capacityType: op.capacityType,
            scaling: op.scaling,
            nodeRole: op.nodeRoleArn ?? '',
            subnets: op.subnetIds,
            tags: op.tags,
            labels: op.labels,
            taints: op.taints,
            amiType: op.amiType,
            ...(op.diskSize !== undefined ? { diskSize: op.diskSize } : {}),
            ...(op.updateConfig ? { updateConfig: op.updateConfig } : {}),
          },
        ],
      };
    case 'UpdateClusterVersion':
      return mapCluster(o, (c) => ({ ...c, version: op.toVersion }));
    case 'UpdateNodegroupVersion':
      return mapNodegroup(o, op.nodegroupName, (ng) => ({ ...ng, version: op.toVersion }));
    case 'UpdateNodegroupConfig':
      return mapNodegroup(o, op.nodegroupName, (ng) => configured(ng, op));
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
