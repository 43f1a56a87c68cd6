/**
 * EKS validation rules with EKS's status codes, error types and messages. Messages quoted from real
 * EKS responses (bug reports, moto's cURL-sourced strings) are marked [real]; where no real message
 * was found the wording is ours and marked [sim]. Callers must never depend on message text anyway.
 */
import { type ClusterRec, type NodegroupRec, SimError, type UpdateRec } from './model.js';

const NAME = /^[0-9A-Za-z][A-Za-z0-9\-_]*$/;
const ROLE_ARN = /^arn:aws(-[a-z]+)*:iam::\d{12}:role\/.+$/;
const VERSION = /^(\d+)\.(\d+)$/;

export const MAX_TAGS = 50;
export const MAX_NODEGROUPS_PER_CLUSTER = 30;
/** Service quota "Nodes per managed node group" (L-BD136A63): 450 by default. */
export const MAX_NODES_PER_NODEGROUP = 450;

export const invalidParameter = (message: string, extra?: SimError['extra']) =>
  new SimError(400, 'InvalidParameterException', message, extra);
export const invalidRequest = (message: string, extra?: SimError['extra']) =>
  new SimError(400, 'InvalidRequestException', message, extra);
export const inUse = (message: string, extra?: SimError['extra']) =>
  new SimError(409, 'ResourceInUseException', message, extra);

/** [real] moto's messages, "obtained through cURL responses from the actual APIs". */
export const clusterNotFound = (name: string) =>
  new SimError(404, 'ResourceNotFoundException', `No cluster found for name: ${name}.`, {
    clusterName: name,
  });
export const nodegroupNotFound = (cluster: string, ng: string) =>
  new SimError(404, 'ResourceNotFoundException', `No node group found for name: ${ng}.`, {
    clusterName: cluster,
    nodegroupName: ng,
  });

export function requireString(body: Record<string, unknown>, key: string): string {
  const v = body[key];
  // [sim] EKS rejects a request without a required member; the exact text is not documented.
  if (typeof v !== 'string' || v.length === 0) throw invalidParameter(`${key} is required`);
  return v;
}

export function checkName(kind: 'cluster' | 'nodegroup', name: string): void {
  if (name.length > 100 || !NAME.test(name)) {
    // [sim] the model's pattern ^[0-9A-Za-z][A-Za-z0-9\-_]*, 1-100 characters.
    throw invalidParameter(
      `${kind === 'cluster' ? 'Cluster' : 'Nodegroup'} name ${name} must satisfy regular expression pattern: [0-9A-Za-z][A-Za-z0-9\\-_]* and be at most 100 characters`,
    );
  }
}

export function checkRoleArn(arn: string): void {
  // [real] moto utils.validate_role_arn message.
  if (!ROLE_ARN.test(arn)) throw invalidParameter(`Invalid Role Arn: '${arn}'`);
}

export function checkSupportedVersion(version: string, supported: readonly string[]): void {
  // [real] "unsupported Kubernetes version 1.24" (CreateCluster and UpdateClusterVersion).
  if (!supported.includes(version)) throw invalidParameter(`unsupported Kubernetes version ${version}`);
}

function minor(v: string): [number, number] {
  const m = VERSION.exec(v);
  return m ? [Number(m[1]), Number(m[2])] : [Number.NaN, Number.NaN];
}

export function compareVersions(a: string, b: string): number {
  const [am, an] = minor(a);
  const [bm, bn] = minor(b);
  return am !== bm ? am - bm : an - bn;
}

/** The control plane moves exactly one minor at a time: no skip, no downgrade, no same-version no-op. */
export function checkControlPlaneStep(c: ClusterRec, to: string): void {
  const [fm, fn] = minor(c.version);
  const [tm, tn] = minor(to);
  if (!(tm === fm && tn === fn + 1)) {
    // [real] rancher/rancher#26908 and #28939 (skip and downgrade).
    throw invalidParameter(`Unsupported Kubernetes minor version update from ${c.version} to ${to}`, {
      clusterName: c.name,
    });
  }
}

/** Before a control-plane step, node groups must be at the cluster version (strict) or within three minors. */
export function checkNodegroupSkew(c: ClusterRec, to: string, mode: 'strict-match' | 'n-3'): void {
  const behind = [...c.nodegroups.values()].filter((ng) =>
    mode === 'strict-match' ? ng.version !== c.version : minor(to)[1] - minor(ng.version)[1] > 3,
  );
  if (behind.length > 0) {
    // [real] hashicorp/terraform-provider-aws#19478.
    throw invalidParameter(
      `Nodegroups ${behind.map((ng) => ng.name).join(',')} must be updated to match cluster version ${c.version} before updating cluster version`,
      { clusterName: c.name },
    );
  }
}

/** A node group is created at the control plane's version: "this is the only accepted specified value". */
export function checkNodegroupCreateVersion(c: ClusterRec, version: string | undefined, ng: string): void {
  if (version !== undefined && version !== c.version) {
    // [sim] wording modelled on "Requested Nodegroup release version X is invalid. Allowed release version is Y".
    throw invalidParameter(
      `Requested Nodegroup version ${version} is invalid. Allowed version is ${c.version}`,
      {
        clusterName: c.name,
        nodegroupName: ng,
      },
    );
  }
}

/** A node group version update never passes the control plane and never goes back. */
export function checkNodegroupVersionStep(c: ClusterRec, ng: NodegroupRec, to: string): void {
  const extra = { clusterName: c.name, nodegroupName: ng.name };
  if (compareVersions(to, c.version) > 0) {
    // [sim] the rule is documented ("can't be greater than the control plane's version"), the text is ours.
    throw invalidParameter(
      `Requested Nodegroup version ${to} is invalid. Nodegroup version can't be greater than cluster version ${c.version}`,
      extra,
    );
  }
  if (compareVersions(to, ng.version) < 0) {
    throw invalidParameter(`Nodegroup version can't be downgraded from ${ng.version} to ${to}`, extra); // [sim]
  }
  if (to === ng.version) {
    throw invalidParameter(`Nodegroup ${ng.name} is already at version ${to}`, extra); // [sim] no-op update
  }
}

export interface Scaling {
  minSize: number;
  maxSize: number;
  desiredSize: number;
}

function isCount(n: unknown): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n >= 0;
}

/** Scaling bounds: minSize >= 0, maxSize >= 1, min <= desired <= max, max within the nodes-per-group quota. */
export function checkScaling(s: Scaling, onUpdate: boolean, extra: SimError['extra']): void {
  if (!isCount(s.minSize) || !isCount(s.desiredSize) || !isCount(s.maxSize) || s.maxSize < 1) {
    throw invalidParameter('scalingConfig is not valid: minSize >= 0, desiredSize >= 0, maxSize >= 1', extra); // [sim]
  }
  if (s.minSize > s.desiredSize) {
    // [real] update: "Minimum capacity 2 can't be greater than desired size 1"; create: "minSize can't be greater than desiredSize".
    throw invalidParameter(
      onUpdate
        ? `Minimum capacity ${s.minSize} can't be greater than desired size ${s.desiredSize}`
        : "minSize can't be greater than desiredSize",
      extra,
    );
  }
  if (s.desiredSize > s.maxSize) throw invalidParameter("desiredSize can't be greater than maxSize", extra); // [real]
  if (s.maxSize > MAX_NODES_PER_NODEGROUP) {
    // [sim] text and error code; the limit is the service quota's.
    throw invalidParameter(
      `maxSize ${s.maxSize} exceeds the limit of ${MAX_NODES_PER_NODEGROUP} nodes per managed node group`,
      extra,
    );
  }
}

export function checkSubnets(subnets: unknown, min: number): string[] {
  if (!Array.isArray(subnets) || subnets.some((s) => typeof s !== 'string')) {
    throw invalidParameter('subnets are required'); // [sim]
  }
  // [real] CreateCluster: EKS wants subnets in two AZs; the simulator has no AZs and counts distinct subnets.
  if (new Set(subnets).size < min)
    throw invalidParameter('Subnets specified must be in at least two different AZs');
  return subnets as string[];
}

export function checkTags(tags: Record<string, unknown>, type = 'InvalidParameterException'): void {
  const keys = Object.keys(tags);
  const bad = (m: string) => new SimError(400, type, m);
  if (keys.length > MAX_TAGS) throw bad(`Tag limit exceeded: a resource can have at most ${MAX_TAGS} tags`); // [sim]
  for (const k of keys) {
    const v = tags[k];
    if (k.length < 1 || k.length > 128) throw bad(`Tag key ${k} must be 1-128 characters`); // [sim]
    if (k.toLowerCase().startsWith('aws:')) throw bad('Tag keys starting with aws: are reserved'); // [sim]
    if (typeof v !== 'string' || v.length > 256)
      throw bad(`Tag value for ${k} must be at most 256 characters`); // [sim]
  }
}

/** The update still in progress on a resource (cluster scope when `ng` is undefined), if any. */
export function inProgress(c: ClusterRec, ng?: string): UpdateRec | undefined {
  return c.updates.find((u) => u.status === 'InProgress' && u.nodegroupName === ng);
}

/** One update at a time per resource: a second one is a 409, even while the status still reads ACTIVE. */
export function checkNoUpdateInProgress(c: ClusterRec, updateType: string, ng?: string): void {
  const u = inProgress(c, ng);
  if (!u) return;
  const what = ng === undefined ? `cluster ${c.name}` : `nodegroup ${ng}`;
  // [real] "Cannot EndpointAccessUpdate because cluster X currently has update <id> in progress" (ACK#1192).
  throw inUse(`Cannot ${updateType} because ${what} currently has update ${u.id} in progress`, {
    clusterName: c.name,
    ...(ng === undefined ? {} : { nodegroupName: ng }),
  });
}

export function checkClusterActive(c: ClusterRec): void {
  // [real] moto's CreateNodegroup message (from real EKS): "Cluster 'X' is not in ACTIVE status".
  if (c.status !== 'ACTIVE')
    throw invalidRequest(`Cluster '${c.name}' is not in ACTIVE status`, { clusterName: c.name });
}

export function checkNodegroupActive(c: ClusterRec, ng: NodegroupRec): void {
  if (ng.status !== 'ACTIVE' && ng.status !== 'DEGRADED') {
    throw invalidRequest(`Nodegroup '${ng.name}' is not in ACTIVE status`, {
      clusterName: c.name,
      nodegroupName: ng.name,
    }); // [sim] modelled on the cluster message
  }
}

/** Node group fields EKS has no API to change: a replacement node group is the only way. */
export const IMMUTABLE_NODEGROUP_FIELDS = [
  'instanceTypes',
  'capacityType',
  'amiType',
  'diskSize',
  'subnets',
  'nodeRole',
  'remoteAccess',
  'launchTemplate',
] as const;

export function checkNoImmutableFields(body: Record<string, unknown>, c: string, ng: string): void {
  const hit = IMMUTABLE_NODEGROUP_FIELDS.filter((f) => f in body);
  if (hit.length > 0) {
    // [sim] real EKS has no member for these in UpdateNodegroupConfig; the simulator refuses them explicitly.
    throw invalidParameter(
      `${hit.join(', ')} cannot be updated on an existing node group; create a new node group`,
      {
        clusterName: c,
        nodegroupName: ng,
      },
    );
  }
  if ('version' in body || 'releaseVersion' in body) {
    // [real] "Version and ReleaseVersion updates cannot be combined with other updates" (eksctl#2565).
    throw invalidParameter('Version and ReleaseVersion updates cannot be combined with other updates', {
      clusterName: c,
      nodegroupName: ng,
    });
  }
}
