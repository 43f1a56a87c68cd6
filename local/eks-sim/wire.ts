/**
 * Records rendered as EKS's JSON shapes (model members, camelCase, timestamps as epoch seconds with
 * fractions). Only members EKS really returns are emitted.
 */
import type { ClusterRec, NodegroupRec, UpdateRec } from './model.js';

const seconds = (ms: number) => ms / 1000;

export function clusterJson(c: ClusterRec): Record<string, unknown> {
  const ready = c.status !== 'CREATING';
  return {
    name: c.name,
    arn: c.arn,
    createdAt: seconds(c.createdAt),
    version: c.version,
    // The endpoint and CA only exist once the control plane is up.
    ...(ready ? { endpoint: c.endpoint, certificateAuthority: { data: c.caData } } : {}),
    roleArn: c.roleArn,
    resourcesVpcConfig: {
      subnetIds: c.subnetIds,
      securityGroupIds: c.securityGroupIds,
      clusterSecurityGroupId: c.clusterSecurityGroupId,
      vpcId: c.vpcId,
      endpointPublicAccess: c.endpointPublicAccess,
      endpointPrivateAccess: c.endpointPrivateAccess,
      publicAccessCidrs: ['0.0.0.0/0'],
    },
    kubernetesNetworkConfig: { serviceIpv4Cidr: '10.100.0.0/16', ipFamily: 'ipv4' },
    logging: {
      clusterLogging: [
        { types: ['api', 'audit', 'authenticator', 'controllerManager', 'scheduler'], enabled: false },
      ],
    },
    status: c.status,
    ...(c.clientRequestToken ? { clientRequestToken: c.clientRequestToken } : {}),
    platformVersion: c.platformVersion,
    tags: c.tags,
    health: { issues: c.healthIssues.map((i) => ({ ...i, resourceIds: [c.name] })) },
    upgradePolicy: { supportType: 'EXTENDED' },
    deletionProtection: false,
  };
}

export function nodegroupJson(ng: NodegroupRec): Record<string, unknown> {
  return {
    nodegroupName: ng.name,
    nodegroupArn: ng.arn,
    clusterName: ng.clusterName,
    version: ng.version,
    releaseVersion: ng.releaseVersion,
    createdAt: seconds(ng.createdAt),
    modifiedAt: seconds(ng.modifiedAt),
    status: ng.status,
    capacityType: ng.capacityType,
    scalingConfig: { ...ng.scaling },
    instanceTypes: ng.instanceTypes,
    subnets: ng.subnets,
    amiType: ng.amiType,
    nodeRole: ng.nodeRole,
    labels: ng.labels,
    // EKS omits empty lists from answers.
    ...(ng.taints.length > 0 ? { taints: ng.taints.map((t) => ({ ...t })) } : {}),
    resources: ng.status === 'CREATING' ? {} : { autoScalingGroups: [{ name: ng.asgName }] },
    diskSize: ng.diskSize,
    health: { issues: ng.healthIssues.map((i) => ({ ...i, resourceIds: [ng.asgName] })) },
    updateConfig: { ...ng.updateConfig },
    tags: ng.tags,
  };
}

export function updateJson(u: UpdateRec): Record<string, unknown> {
  return {
    id: u.id,
    status: u.status,
    type: u.type,
    params: u.params,
    createdAt: seconds(u.createdAt),
    errors: u.errors,
  };
}
