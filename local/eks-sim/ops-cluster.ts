/** Cluster operations, updates and tagging, each answering with EKS's wrapper object. */

import { accessConfigJson, accessOf, initAccess, parseAccessConfig } from './access-model.js';
import { addonsOf, addonUpdateJson, addonUpdates } from './addon-state.js';
import { type ClusterRec, SimError } from './model.js';
import {
  fingerprint,
  type Handler,
  optionalString,
  page,
  param,
  stringList,
  stringMap,
  tokenKey,
} from './request.js';
import {
  checkClusterActive,
  checkControlPlaneStep,
  checkName,
  checkNodegroupSkew,
  checkNoUpdateInProgress,
  checkRoleArn,
  checkSubnets,
  checkSupportedVersion,
  checkTags,
  inProgress,
  inUse,
  invalidParameter,
  MAX_TAGS,
  requireString,
} from './rules.js';
import { clusterJson, updateJson } from './wire.js';

export const createCluster: Handler = (r) => {
  const b = r.body;
  const name = requireString(b, 'name');
  checkName('cluster', name);
  const roleArn = requireString(b, 'roleArn');
  checkRoleArn(roleArn);
  const vpc = b.resourcesVpcConfig;
  if (typeof vpc !== 'object' || vpc === null) throw invalidParameter('resourcesVpcConfig is required'); // [sim]
  const v = vpc as Record<string, unknown>;
  const subnetIds = checkSubnets(v.subnetIds, 2);
  const securityGroupIds = stringList(v.securityGroupIds, 'securityGroupIds');
  if (securityGroupIds.length > 5) throw invalidParameter('You can specify up to five security groups'); // [sim]
  const version = optionalString(b, 'version') ?? r.state.config.defaultVersion;
  checkSupportedVersion(version, r.state.config.supportedVersions);
  const tags = stringMap(b.tags, 'tags');
  checkTags(tags);
  const accessConfig = parseAccessConfig(b.accessConfig);
  const { state, region } = r;
  return state.idempotent(tokenKey(r, 'CreateCluster', name), fingerprint(r), () => {
    const { account, principalArn } = r.caller;
    const clusters = state.clusters(region, account);
    if (clusters.has(name)) throw inUse(`Cluster already exists with name: ${name}`, { clusterName: name }); // [real]
    if (clusters.size >= state.accounts.quota(account, state.config.clustersPerRegion)) {
      throw new SimError(400, 'ResourceLimitExceededException', 'Clusters per region limit exceeded', {
        clusterName: name,
      }); // [sim]
    }
    const rng = state.rng;
    const token = optionalString(b, 'clientRequestToken');
    const rec: ClusterRec = {
      name,
      arn: `arn:aws:eks:${region}:${account}:cluster/${name}`,
      account,
      creatorArn: principalArn,
      region,
      version,
      platformVersion: 'eks.1',
      status: 'CREATING',
      transition: { at: state.after(state.config.durations.clusterCreate), to: 'ACTIVE' },
      roleArn,
      subnetIds,
      securityGroupIds,
      endpointPublicAccess: v.endpointPublicAccess !== false,
      endpointPrivateAccess: v.endpointPrivateAccess === true,
      endpoint: `https://${rng.hex(32).toUpperCase()}.gr7.${region}.eks.amazonaws.com`,
      caData: Buffer.from(`simulated-ca-${rng.hex(16)}`).toString('base64'),
      clusterSecurityGroupId: `sg-${rng.hex(17)}`,
      vpcId: `vpc-${rng.hex(17)}`,
      tags,
      createdAt: state.now(),
      ...(token ? { clientRequestToken: token } : {}),
      healthIssues: [],
      nodegroups: new Map(),
      updates: [],
      failNext: new Map(),
    };
    clusters.set(name, rec);
    initAccess(state, rec, accessConfig);
    return { cluster: { ...clusterJson(rec), ...accessConfigJson(state, rec) } };
  });
};

export const describeCluster: Handler = (r) => {
  const c = r.state.cluster(r.region, param(r, 'name'), r.caller.account);
  return { cluster: { ...clusterJson(c), ...accessConfigJson(r.state, c) } };
};

export const listClusters: Handler = (r) => {
  const { items, nextToken } = page([...r.state.clusters(r.region, r.caller.account).keys()], r.query);
  return { clusters: items, ...(nextToken ? { nextToken } : {}) };
};

export const deleteCluster: Handler = (r) => {
  const c = r.state.cluster(r.region, param(r, 'name'), r.caller.account);
  // [real] moto CLUSTER_IN_USE_MSG; CAPA#2176. Node groups that are still DELETING count as attached.
  if (c.nodegroups.size > 0) throw inUse('Cluster has nodegroups attached', { clusterName: c.name });
  const u = inProgress(c);
  if (u) throw inUse(`Cannot delete because cluster ${c.name} currently has update ${u.id} in progress`); // [sim]
  if (c.status !== 'DELETING') {
    c.status = 'DELETING';
    c.transition = { at: r.state.after(r.state.config.durations.clusterDelete), to: null };
  }
  return { cluster: clusterJson(c) };
};

export const updateClusterVersion: Handler = (r) => {
  const { state } = r;
  const c = state.cluster(r.region, param(r, 'name'), r.caller.account);
  const to = requireString(r.body, 'version');
  checkSupportedVersion(to, state.config.supportedVersions);
  return state.idempotent(tokenKey(r, 'UpdateClusterVersion', c.name), fingerprint(r), () => {
    checkNoUpdateInProgress(c, 'VersionUpdate');
    checkClusterActive(c);
    checkControlPlaneStep(c, to);
    checkNodegroupSkew(c, to, state.config.nodegroupSkew);
    const u = state.startUpdate(
      c,
      {
        type: 'VersionUpdate',
        params: [
          { type: 'Version', value: to },
          { type: 'PlatformVersion', value: 'eks.1' },
        ],
        effect: () => {
          c.version = to;
          c.platformVersion = 'eks.1';
        },
      },
      state.config.durations.clusterVersionUpdate,
    );
    return { update: updateJson(u) };
  });
};

/** `nodegroupName` in the query scopes update lookups to that node group; without it they are cluster-scoped. */
function updateScope(r: Parameters<Handler>[0], c: ClusterRec): string | undefined {
  const ng = r.query.get('nodegroupName') ?? undefined;
  if (ng !== undefined) r.state.nodegroup(c, ng);
  return ng;
}

/** An update of the lookup's scope, with how EKS renders it. */
interface ScopedUpdate {
  readonly id: string;
  json(): Record<string, unknown>;
}

/**
 * The updates a ListUpdates/DescribeUpdate sees: EKS scopes them by `nodegroupName` or `addonName` in the
 * query, so without either only the cluster's own updates are found.
 */
function scopedUpdates(r: Parameters<Handler>[0], c: ClusterRec): ScopedUpdate[] {
  const addon = r.query.get('addonName');
  if (addon !== null) {
    if (r.query.has('nodegroupName')) {
      throw invalidParameter('Specify either nodegroupName or addonName, not both', { clusterName: c.name }); // [sim]
    }
    return addonUpdates(r.state, c, addon).map((u) => ({ id: u.id, json: () => addonUpdateJson(u) }));
  }
  const ng = updateScope(r, c);
  return c.updates
    .filter((u) => u.nodegroupName === ng)
    .map((u) => ({ id: u.id, json: () => updateJson(u) }));
}

export const listUpdates: Handler = (r) => {
  const c = r.state.cluster(r.region, param(r, 'name'), r.caller.account);
  const { items, nextToken } = page(
    scopedUpdates(r, c).map((u) => u.id),
    r.query,
  );
  return { updateIds: items, ...(nextToken ? { nextToken } : {}) };
};

export const describeUpdate: Handler = (r) => {
  const c = r.state.cluster(r.region, param(r, 'name'), r.caller.account);
  const id = param(r, 'updateId');
  const u = scopedUpdates(r, c).find((x) => x.id === id);
  if (!u)
    throw new SimError(404, 'ResourceNotFoundException', `No update found for ID: ${id}`, {
      clusterName: c.name,
    }); // [sim]
  return { update: u.json() };
};

/**
 * The tag target: a cluster, node group, add-on or access entry ARN of this region and the caller's account. Tag APIs use
 * their own error types.
 */
function taggable(r: Parameters<Handler>[0]): { tags: Record<string, string> } {
  const arn = param(r, 'resourceArn');
  const m = /^arn:aws:eks:([^:]+):(\d{12}):(cluster|nodegroup|addon|access-entry)\/([^/]+)(?:\/(.+))?$/.exec(
    arn,
  );
  if (!m) throw new SimError(400, 'BadRequestException', `${arn} is not a valid resource ARN`); // [sim]
  const notFound = new SimError(404, 'NotFoundException', `Resource ${arn} was not found`); // [sim]
  // Only the caller's own account: another account's ARN is not found, its ARN check below fails.
  const c = r.state.clusters(m[1] as string, r.caller.account).get(m[4] as string);
  if (!c) throw notFound;
  const found = ((): { arn: string; tags: Record<string, string> } | undefined => {
    switch (m[3]) {
      case 'cluster':
        return m[5] === undefined ? c : undefined;
      case 'nodegroup':
        return c.nodegroups.get((m[5] ?? '').split('/')[0] as string);
      case 'addon':
        return addonsOf(r.state, c).get((m[5] ?? '').split('/')[0] as string);
      default:
        return [...accessOf(r.state, c).entries.values()].find((e) => e.arn === arn);
    }
  })();
  if (!found || found.arn !== arn) throw notFound;
  return found;
}

export const tagResource: Handler = (r) => {
  const target = taggable(r);
  const tags = stringMap(r.body.tags, 'tags');
  if (Object.keys(tags).length === 0)
    throw new SimError(400, 'BadRequestException', 'tags must not be empty'); // [sim]
  checkTags(tags, 'BadRequestException');
  const merged = { ...target.tags, ...tags };
  if (Object.keys(merged).length > MAX_TAGS) {
    throw new SimError(
      400,
      'BadRequestException',
      `Tag limit exceeded: a resource can have at most ${MAX_TAGS} tags`,
    ); // [sim]
  }
  target.tags = merged;
  return {};
};

export const untagResource: Handler = (r) => {
  const target = taggable(r);
  const keys = r.query.getAll('tagKeys');
  if (keys.length === 0) throw new SimError(400, 'BadRequestException', 'tagKeys must not be empty'); // [sim]
  const next = { ...target.tags };
  for (const k of keys) delete next[k];
  target.tags = next;
  return {};
};

export const listTagsForResource: Handler = (r) => ({ tags: taggable(r).tags });
