/**
 * Pure mapping from EKS responses to the core's observation facts. A member the observation needs
 * but the response lacks is an error ({@link MalformedResponseError}), never a guessed default;
 * optional facts (endpoint, createdAt) stay undefined when EKS does not send them.
 */
import type { Cluster, Nodegroup, NodegroupUpdateConfig, Taint, Update } from '@aws-sdk/client-eks';
import { PermanentError } from '../core/errors.js';
import { clusterHealth, nodegroupHealth, updateHealth } from '../core/health.js';
import type {
  InFlightUpdate,
  ObservedCluster,
  ObservedNodegroup,
  ObservedTaint,
  UpdateConfig,
} from '../core/observation.js';

export class MalformedResponseError extends PermanentError {
  constructor(what: string) {
    super(`EKS response lacks ${what}`, {
      code: 'MalformedResponse',
      remediation:
        'EKS (or the configured endpoint) returned an incomplete response; check the endpoint configuration.',
    });
  }
}

export function required<T>(value: T | undefined | null, what: string): T {
  if (value === undefined || value === null) throw new MalformedResponseError(what);
  return value;
}

const CAPACITY_TYPES = ['ON_DEMAND', 'SPOT', 'CAPACITY_BLOCK'] as const;
type CapacityType = (typeof CAPACITY_TYPES)[number];

function capacityType(v: string | undefined): CapacityType {
  const c = required(v, 'nodegroup.capacityType');
  if (!(CAPACITY_TYPES as readonly string[]).includes(c))
    throw new MalformedResponseError(`a known capacityType (got ${c})`);
  return c as CapacityType;
}

/** `arn:aws:eks:us-east-1:123456789012:cluster/name` -> `us-east-1`. */
export function regionOfArn(arn: string): string {
  const region = arn.split(':')[3];
  if (!arn.startsWith('arn:') || !region) throw new MalformedResponseError(`a valid ARN (got ${arn})`);
  return region;
}

export function toInFlightUpdate(u: Update): InFlightUpdate {
  const status = required(u.status, 'update.status');
  return {
    id: required(u.id, 'update.id'),
    type: required(u.type, 'update.type'),
    status,
    health: updateHealth(status),
    errorCodes: (u.errors ?? []).flatMap((e) => (e.errorCode ? [e.errorCode] : [])),
  };
}

const newestFirst = (a: Update, b: Update) => (b.createdAt?.getTime() ?? 0) - (a.createdAt?.getTime() ?? 0);

/**
 * The update an observation reports for one resource: the newest still in progress, else the newest
 * that failed or was cancelled. A successful update is done and is not reported.
 */
export function selectUpdate(updates: readonly Update[]): InFlightUpdate | undefined {
  const sorted = [...updates].sort(newestFirst);
  const pick =
    sorted.find((u) => u.status === 'InProgress') ??
    sorted.find((u) => u.status === 'Failed' || u.status === 'Cancelled');
  return pick ? toInFlightUpdate(pick) : undefined;
}

export function toObservedCluster(c: Cluster, update?: InFlightUpdate): ObservedCluster {
  const arn = required(c.arn, 'cluster.arn');
  const status = required(c.status, 'cluster.status');
  const vpc = required(c.resourcesVpcConfig, 'cluster.resourcesVpcConfig');
  return {
    name: required(c.name, 'cluster.name'),
    arn,
    region: regionOfArn(arn),
    version: required(c.version, 'cluster.version'),
    status,
    health: clusterHealth(status, c.health?.issues?.length ?? 0),
    ...(c.endpoint ? { endpoint: c.endpoint } : {}),
    roleArn: required(c.roleArn, 'cluster.roleArn'),
    // EKS omits empty lists and maps; absence means none.
    subnetIds: vpc.subnetIds ?? [],
    securityGroupIds: vpc.securityGroupIds ?? [],
    tags: c.tags ?? {},
    ...(c.createdAt ? { createdAt: c.createdAt.toISOString() } : {}),
    ...(update ? { update } : {}),
    ...(c.accessConfig?.authenticationMode ? { authenticationMode: c.accessConfig.authenticationMode } : {}),
  };
}

function toObservedTaint(t: Taint): ObservedTaint {
  const key = required(t.key, 'nodegroup.taints[].key');
  const effect = required(t.effect, 'nodegroup.taints[].effect');
  return t.value !== undefined && t.value !== null ? { key, value: t.value, effect } : { key, effect };
}

/** Only the two disruption budgets CloudOrch sets; absent when EKS reports neither. */
function toUpdateConfig(u: NodegroupUpdateConfig | undefined): UpdateConfig | undefined {
  const n = u?.maxUnavailable;
  const pct = u?.maxUnavailablePercentage;
  if (n === undefined && pct === undefined) return undefined;
  return {
    ...(n !== undefined ? { maxUnavailable: n } : {}),
    ...(pct !== undefined ? { maxUnavailablePercentage: pct } : {}),
  };
}

export function toObservedNodegroup(ng: Nodegroup, update?: InFlightUpdate): ObservedNodegroup {
  const status = required(ng.status, 'nodegroup.status');
  const s = required(ng.scalingConfig, 'nodegroup.scalingConfig');
  const updateConfig = toUpdateConfig(ng.updateConfig);
  return {
    name: required(ng.nodegroupName, 'nodegroup.nodegroupName'),
    arn: required(ng.nodegroupArn, 'nodegroup.nodegroupArn'),
    version: required(ng.version, 'nodegroup.version'),
    status,
    health: nodegroupHealth(status, ng.health?.issues?.length ?? 0),
    // Null when the group was created from a launch template (model doc); the planner then sees no match.
    instanceTypes: ng.instanceTypes ?? [],
    capacityType: capacityType(ng.capacityType),
    scaling: {
      minSize: required(s.minSize, 'nodegroup.scalingConfig.minSize'),
      maxSize: required(s.maxSize, 'nodegroup.scalingConfig.maxSize'),
      desiredSize: required(s.desiredSize, 'nodegroup.scalingConfig.desiredSize'),
    },
    nodeRole: required(ng.nodeRole, 'nodegroup.nodeRole'),
    subnets: ng.subnets ?? [],
    tags: ng.tags ?? {},
    labels: ng.labels ?? {},
    taints: (ng.taints ?? []).map(toObservedTaint),
    ...(ng.amiType ? { amiType: ng.amiType } : {}),
    ...(ng.diskSize !== undefined ? { diskSize: ng.diskSize } : {}),
    ...(updateConfig ? { updateConfig } : {}),
    ...(update ? { update } : {}),
  };
}
