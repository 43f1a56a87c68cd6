/**
 * What an observation looks like once an operation has completed in EKS. Used only to preview the
 * rest of a plan (`cloudorch plan`); reconciliation always re-observes the real cluster. Projected
 * ARNs say so in their account field, so they can never pass for real ones.
 */
import { InternalError } from '../errors.js';
import { Health } from '../health.js';
import type {
  Observation,
  ObservedAccessEntry,
  ObservedAddon,
  ObservedCluster,
  ObservedNodegroup,
} from '../observation.js';
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

function mapAddon(o: Observation, name: string, f: (a: ObservedAddon) => ObservedAddon): Observation {
  return { ...o, addons: (o.addons ?? []).map((a) => (a.name === name ? f(a) : a)) };
}

function mapEntry(
  o: Observation,
  principal: string,
  f: (e: ObservedAccessEntry) => ObservedAccessEntry,
): Observation {
  return {
    ...o,
    accessEntries: (o.accessEntries ?? []).map((e) => (e.principalArn === principal ? f(e) : e)),
  };
}

/** A tag change on whichever resource carries the ARN: the cluster, a node group or an add-on. */
function retagged(o: Observation, op: MutatingOperation & { resourceArn: string }): Observation {
  if (o.cluster?.arn === op.resourceArn) return mapCluster(o, (c) => ({ ...c, tags: retag(c.tags, op) }));
  return {
    ...o,
    nodegroups: o.nodegroups.map((ng) =>
      ng.arn === op.resourceArn ? { ...ng, tags: retag(ng.tags, op) } : ng,
    ),
    ...(o.addons
      ? { addons: o.addons.map((a) => (a.arn === op.resourceArn ? { ...a, tags: retag(a.tags, op) } : a)) }
      : {}),
  };
}

/** Add-on operations. */
function projectAddon(o: Observation, op: MutatingOperation): Observation | undefined {
  switch (op.kind) {
    case 'CreateAddon':
      return {
        ...o,
        addons: [
          ...(o.addons ?? []),
          {
            name: op.addonName,
            arn: `arn:aws:eks:${op.region}:${PROJECTED_ACCOUNT}:addon/${op.clusterName}/${op.addonName}/projected`,
            version: op.addonVersion,
            status: 'ACTIVE',
            health: Health.Healthy,
            issues: [],
            ...(op.serviceAccountRoleArn ? { serviceAccountRoleArn: op.serviceAccountRoleArn } : {}),
            ...(op.configurationValues !== undefined ? { configurationValues: op.configurationValues } : {}),
            podIdentityAssociations: (op.podIdentityAssociations ?? []).map((p) => ({
              ...p,
              associationArn: `arn:aws:eks:${op.region}:${PROJECTED_ACCOUNT}:podidentityassociation/${op.clusterName}/projected`,
            })),
            tags: op.tags,
          },
        ],
      };
    case 'UpdateAddon':
      return mapAddon(o, op.addonName, (a) => ({
        ...a,
        version: op.addonVersion,
        ...(op.serviceAccountRoleArn ? { serviceAccountRoleArn: op.serviceAccountRoleArn } : {}),
        ...(op.configurationValues !== undefined ? { configurationValues: op.configurationValues } : {}),
        ...(op.podIdentityAssociations
          ? {
              podIdentityAssociations: op.podIdentityAssociations.map((p) => ({
                ...p,
                associationArn: `arn:aws:eks:${op.region}:${PROJECTED_ACCOUNT}:podidentityassociation/${op.clusterName}/projected`,
              })),
            }
          : {}),
      }));
    case 'DeleteAddon':
      return { ...o, addons: (o.addons ?? []).filter((a) => a.name !== op.addonName) };
    default:
      return undefined;
  }
}

/** Access operations: the authentication mode, entries and their policies. */
function projectAccess(o: Observation, op: MutatingOperation): Observation | undefined {
  switch (op.kind) {
    case 'UpdateClusterConfig':
      // Entries become readable once the mode leaves CONFIG_MAP; none exist yet but the spec's.
      return {
        ...mapCluster(o, (c) => ({ ...c, authenticationMode: op.authenticationMode })),
        accessEntries: o.accessEntries ?? [],
      };
    case 'CreateAccessEntry':
      return {
        ...o,
        accessEntries: [
          ...(o.accessEntries ?? []),
          {
            principalArn: op.principalArn,
            arn: `arn:aws:eks:${op.region}:${PROJECTED_ACCOUNT}:access-entry/${op.clusterName}/projected`,
            type: op.type,
            kubernetesGroups: op.kubernetesGroups,
            tags: op.tags,
            policies: [],
          },
        ],
      };
    case 'UpdateAccessEntry':
      return mapEntry(o, op.principalArn, (e) => ({ ...e, kubernetesGroups: op.kubernetesGroups }));
    case 'DeleteAccessEntry':
      return {
        ...o,
        accessEntries: (o.accessEntries ?? []).filter((e) => e.principalArn !== op.principalArn),
      };
    case 'AssociateAccessPolicy':
      return mapEntry(o, op.principalArn, (e) => ({
        ...e,
        policies: [
          ...e.policies.filter((p) => p.policyArn !== op.policyArn),
          { policyArn: op.policyArn, scope: op.accessScope },
        ],
      }));
    case 'DisassociateAccessPolicy':
      return mapEntry(o, op.principalArn, (e) => ({
        ...e,
        policies: e.policies.filter((p) => p.policyArn !== op.policyArn),
      }));
    default:
      return undefined;
  }
}

export function project(o: Observation, op: MutatingOperation): Observation {
  const part = projectAddon(o, op) ?? projectAccess(o, op);
  if (part) return part;
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
          authenticationMode: op.accessConfig.authenticationMode,
        },
        nodegroups: [],
        // A new cluster has no EKS add-ons, no access entries (no creator admin) and no insights.
        addons: [],
        accessEntries: [],
        insights: [],
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
      return retagged(o, op);
    case 'DeleteNodegroup':
      return { ...o, nodegroups: o.nodegroups.filter((ng) => ng.name !== op.nodegroupName) };
    case 'DeleteCluster':
      return { ...o, cluster: null, nodegroups: [] };
    default:
      throw new InternalError(`no projection for ${op.kind}`);
  }
}
