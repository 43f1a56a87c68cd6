/**
 * An independent model of EKS for the planner's property tests. A call starts a transition the way
 * EKS does (CREATING, UPDATING with an update in flight, DELETING) and `settle` completes every
 * transition. A call that breaks an EKS rule throws, so a test proves the planner never asks EKS for
 * something it refuses. Written from the EKS API reference and user guide, not from the planner's
 * own projection (project.ts), so the two cannot share a mistake.
 */

import { Health } from '../../../lambdas/core/health.js';
import type {
  Observation,
  ObservedCluster,
  ObservedNodegroup,
  ObservedTaint,
  ScalingConfig,
  UpdateConfig,
} from '../../../lambdas/core/observation.js';
import type {
  CreateNodegroup,
  MutatingOperation,
  UpdateNodegroupConfig,
} from '../../../lambdas/core/plan/types.js';
import { PASSING_INSIGHTS } from './fixtures.js';

export class EksRuleViolation extends Error {
  override readonly name = 'EksRuleViolation';
}

/** Service quota "managed node groups per cluster" (default). */
export const NODEGROUPS_PER_CLUSTER = 30;
const MAX_TAGS = 50;
const MAX_TAINTS = 50;
const TAINT_EFFECTS = ['NO_SCHEDULE', 'NO_EXECUTE', 'PREFER_NO_SCHEDULE'];
/** Graviton instance types of the allow-list: they need an ARM64 AMI, and only they take one. */
const ARM_TYPES = new Set(['t4g.medium', 'm6g.large', 'm7g.large']);

const minor = (v: string) => Number(v.split('.')[1]);
const major = (v: string) => Number(v.split('.')[0]);
/** Minor versions between a and b (positive when a is newer). */
export const minorsBetween = (a: string, b: string) => (major(a) - major(b)) * 1000 + (minor(a) - minor(b));

function fail(msg: string): never {
  throw new EksRuleViolation(msg);
}

/** EKS refuses calls on a resource still in a transition (a DEGRADED or FAILED one may be changed). */
const inFlight = (r: { status: string; update?: { status: string } }) =>
  ['CREATING', 'UPDATING', 'DELETING', 'PENDING'].includes(r.status) || r.update?.status === 'InProgress';

let updates = 0;
function startUpdate<T extends ObservedCluster | ObservedNodegroup>(r: T, type: string): T {
  updates += 1;
  return {
    ...r,
    status: 'UPDATING',
    health: Health.Progressing,
    update: { id: `upd-${updates}`, type, status: 'InProgress', health: Health.Progressing, errorCodes: [] },
  };
}

const validScaling = (s: ScalingConfig) =>
  s.minSize >= 0 && s.minSize <= s.desiredSize && s.desiredSize <= s.maxSize && s.maxSize >= 1;

function checkScaling(s: ScalingConfig): void {
  if (!validScaling(s))
    fail(
      `InvalidParameterException: scalingConfig ${JSON.stringify(s)} needs min <= desired <= max, max >= 1`,
    );
}

function checkTaints(taints: readonly ObservedTaint[]): void {
  if (taints.length > MAX_TAINTS) fail(`InvalidParameterException: at most ${MAX_TAINTS} taints`);
  const ids = taints.map((t) => `${t.key}:${t.effect}`);
  if (new Set(ids).size !== ids.length)
    fail('InvalidParameterException: a taint key and effect may appear once');
  for (const t of taints)
    if (!TAINT_EFFECTS.includes(t.effect)) fail(`InvalidParameterException: taint effect ${t.effect}`);
}

function checkUpdateConfig(u: UpdateConfig): void {
  const n = u.maxUnavailable;
  const p = u.maxUnavailablePercentage;
  if ((n === undefined) === (p === undefined))
    fail('InvalidParameterException: exactly one of maxUnavailable, maxUnavailablePercentage');
  if (n !== undefined && (n < 1 || n > 100)) fail('InvalidParameterException: maxUnavailable is 1-100');
  if (p !== undefined && (p < 1 || p > 100))
    fail('InvalidParameterException: maxUnavailablePercentage is 1-100');
}

function checkTags(tags: Readonly<Record<string, string>>): void {
  if (Object.keys(tags).length > MAX_TAGS) fail('BadRequestException: too many tags');
}

function createNodegroup(o: Observation, c: ObservedCluster, op: CreateNodegroup): Observation {
  if (o.nodegroups.some((n) => n.name === op.nodegroupName))
    fail(`ResourceInUseException: NodeGroup already exists with name ${op.nodegroupName}`);
  if (o.nodegroups.length >= NODEGROUPS_PER_CLUSTER)
    fail(`ResourceLimitExceededException: ${NODEGROUPS_PER_CLUSTER} node groups per cluster`);
  // CloudOrch creates at the control plane's version; a group is never ahead of it.
  if (op.version !== c.version)
    fail('InvalidParameterException: node group version must equal the cluster version');
  if (op.instanceTypes.length === 0) fail('InvalidParameterException: instanceTypes is empty');
  const arm = op.amiType.includes('ARM');
  if (op.instanceTypes.some((t) => ARM_TYPES.has(t) !== arm))
    fail(`InvalidParameterException: instance types ${op.instanceTypes.join(',')} do not run ${op.amiType}`);
  if (op.subnetIds.length === 0) fail('InvalidParameterException: subnets are required');
  checkScaling(op.scaling);
  checkTaints(op.taints);
  if (op.updateConfig) checkUpdateConfig(op.updateConfig);
  checkTags(op.tags);
  const created: ObservedNodegroup = {
    name: op.nodegroupName,
    arn: `${c.arn.replace(':cluster/', ':nodegroup/')}/${op.nodegroupName}/x`,
    version: op.version,
    status: 'CREATING',
    health: Health.Progressing,
    instanceTypes: [...op.instanceTypes],
    capacityType: op.capacityType,
    scaling: op.scaling,
    nodeRole: op.nodeRoleArn ?? '',
    subnets: [...op.subnetIds],
    tags: { ...op.tags },
    labels: { ...op.labels },
    taints: [...op.taints],
    amiType: op.amiType,
    diskSize: op.diskSize ?? 20,
    // EKS's default disruption budget: one node at a time.
    updateConfig: op.updateConfig ?? { maxUnavailable: 1 },
  };
  return { ...o, nodegroups: [...o.nodegroups, created] };
}

const sameTaint = (a: ObservedTaint, b: ObservedTaint) => a.key === b.key && a.effect === b.effect;

/** One UpdateNodegroupConfig: labels added or removed by key, taints by key and effect. */
function configure(n: ObservedNodegroup, op: UpdateNodegroupConfig): ObservedNodegroup {
  const add = op.labels?.addOrUpdateLabels ?? {};
  const remove = op.labels?.removeLabels ?? [];
  if (remove.some((k) => Object.hasOwn(add, k)))
    fail('InvalidParameterException: a label cannot be both added and removed');
  const addT = op.taints?.addOrUpdateTaints ?? [];
  const removeT = op.taints?.removeTaints ?? [];
  if (removeT.some((r) => addT.some((a) => sameTaint(a, r))))
    fail('InvalidParameterException: a taint cannot be both added and removed');
  const labels = Object.fromEntries(
    Object.entries({ ...n.labels, ...add }).filter(([k]) => !remove.includes(k)),
  );
  const taints = [
    ...n.taints.filter((t) => ![...addT, ...removeT].some((x) => sameTaint(x, t))),
    ...addT.map((t) => ({ ...t })),
  ];
  checkTaints(taints);
  const scaling = { ...n.scaling, ...op.scaling };
  checkScaling(scaling);
  if (op.updateConfig) checkUpdateConfig(op.updateConfig);
  const updateConfig = op.updateConfig ?? n.updateConfig;
  const next: ObservedNodegroup = {
    ...n,
    labels,
    taints,
    scaling,
    ...(updateConfig ? { updateConfig } : {}),
  };
  const parts = (x: ObservedNodegroup) => JSON.stringify([x.scaling, x.labels, x.taints, x.updateConfig]);
  if (parts(n) === parts(next)) fail('InvalidParameterException: the update changes nothing');
  return startUpdate(next, 'ConfigUpdate');
}

function upgradeControlPlane(o: Observation, c: ObservedCluster, from: string, to: string): Observation {
  if (from !== c.version) fail('planner used a stale version');
  if (minorsBetween(to, c.version) !== 1)
    fail(`InvalidParameterException: Unsupported Kubernetes minor version update from ${c.version} to ${to}`);
  // The control plane steps only when every node group is at its version (CloudOrch's rule too).
  for (const n of o.nodegroups)
    if (n.version !== c.version)
      fail(
        `InvalidParameterException: Nodegroups ${n.name} must be updated to match cluster version ${c.version} before updating cluster version`,
      );
  return { ...o, cluster: startUpdate({ ...c, version: to }, 'VersionUpdate') };
}

function retagged(op: MutatingOperation, t: Readonly<Record<string, string>>): Record<string, string> {
  const next =
    op.kind === 'TagResource'
      ? { ...t, ...op.tags }
      : op.kind === 'UntagResource'
        ? Object.fromEntries(Object.entries(t).filter(([k]) => !op.tagKeys.includes(k)))
        : { ...t };
  checkTags(next);
  return next;
}

function createCluster(
  o: Observation,
  op: Extract<MutatingOperation, { kind: 'CreateCluster' }>,
): Observation {
  if (o.cluster) fail(`ResourceInUseException: Cluster already exists with name: ${op.clusterName}`);
  if (!op.roleArn || op.subnetIds.length < 2)
    fail('InvalidParameterException: roleArn and two subnets are required');
  checkTags(op.tags);
  return {
    ...o,
    cluster: {
      name: op.clusterName,
      arn: `arn:aws:eks:${op.region}:123456789012:cluster/${op.clusterName}`,
      region: op.region,
      version: op.version,
      status: 'CREATING',
      health: Health.Progressing,
      roleArn: op.roleArn,
      subnetIds: op.subnetIds,
      securityGroupIds: op.securityGroupIds,
      tags: op.tags,
    },
    nodegroups: [],
    insights: PASSING_INSIGHTS,
  };
}

/** Applies one call as EKS would accept it: the resource enters its transition. */
export function applyToModel(o: Observation, op: MutatingOperation): Observation {
  if (op.kind === 'CreateCluster') return createCluster(o, op);
  const c = o.cluster ?? fail(`ResourceNotFoundException: No cluster found for name: ${op.clusterName}.`);
  if (op.kind === 'TagResource' || op.kind === 'UntagResource') {
    if (op.resourceArn === c.arn) return { ...o, cluster: { ...c, tags: retagged(op, c.tags) } };
    const n =
      o.nodegroups.find((x) => x.arn === op.resourceArn) ?? fail('NotFoundException: no such resource');
    return {
      ...o,
      nodegroups: o.nodegroups.map((x) => (x === n ? { ...x, tags: retagged(op, x.tags) } : x)),
    };
  }
  if (inFlight(c)) fail(`ResourceInUseException: Cluster '${c.name}' is ${c.status}`);
  if (op.kind === 'CreateNodegroup') return createNodegroup(o, c, op);
  if (op.kind === 'UpdateClusterVersion') return upgradeControlPlane(o, c, op.fromVersion, op.toVersion);
  if (op.kind === 'DeleteCluster') {
    if (o.nodegroups.length > 0) fail('ResourceInUseException: Cluster has nodegroups attached');
    return { ...o, cluster: { ...c, status: 'DELETING', health: Health.Deleting } };
  }
  // The generated specs list no add-ons or access entries: the model covers clusters and node groups.
  if (!('nodegroupName' in op)) return fail(`the model does not cover ${op.kind}`);
  const n =
    o.nodegroups.find((x) => x.name === op.nodegroupName) ??
    fail(`ResourceNotFoundException: No node group found for name: ${op.nodegroupName}.`);
  // At most one update per node group at a time; nothing changes a group that is still changing.
  if (inFlight(n)) fail(`ResourceInUseException: Nodegroup ${n.name} is ${n.status}`);
  const put = (next: ObservedNodegroup): Observation => ({
    ...o,
    nodegroups: o.nodegroups.map((x) => (x === n ? next : x)),
  });
  switch (op.kind) {
    case 'UpdateNodegroupVersion':
      if (minorsBetween(op.toVersion, c.version) > 0)
        fail('InvalidParameterException: a node group cannot pass the control plane version');
      if (minorsBetween(op.toVersion, n.version) <= 0)
        fail('InvalidParameterException: no-op or downgrade of a node group');
      return put(startUpdate({ ...n, version: op.toVersion }, 'VersionUpdate'));
    case 'UpdateNodegroupConfig':
      return put(configure(n, op));
    case 'DeleteNodegroup':
      return put({ ...n, status: 'DELETING', health: Health.Deleting });
  }
}

/** EKS finishes whatever was in flight: deleted resources go, the rest is ACTIVE. */
export function settle(o: Observation): Observation {
  const done = <T extends ObservedCluster | ObservedNodegroup>(r: T): T => {
    const { update: _u, ...rest } = r;
    return { ...rest, status: 'ACTIVE', health: Health.Healthy } as T;
  };
  const c = o.cluster;
  if (c?.health === Health.Deleting) return { ...o, cluster: null, nodegroups: [] };
  return {
    ...o,
    cluster: c ? done(c) : null,
    nodegroups: o.nodegroups.filter((n) => n.health !== Health.Deleting).map(done),
  };
}
