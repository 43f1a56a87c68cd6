/** Managed node group operations: create, describe, list, delete, config (scaling, labels) and version updates. */
import { type NodegroupRec, SimError } from './model.js';
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
  checkName,
  checkNodegroupActive,
  checkNodegroupCreateVersion,
  checkNodegroupVersionStep,
  checkNoImmutableFields,
  checkNoUpdateInProgress,
  checkRoleArn,
  checkScaling,
  checkSubnets,
  checkSupportedVersion,
  checkTags,
  inUse,
  invalidParameter,
  MAX_NODEGROUPS_PER_CLUSTER,
  requireString,
  type Scaling,
} from './rules.js';
import { nodegroupJson, updateJson } from './wire.js';

const CAPACITY_TYPES = ['ON_DEMAND', 'SPOT', 'CAPACITY_BLOCK'];
/** Defaults from the model docs: 1/2/2 scaling, t3.medium, 20 GiB. */
const DEFAULT_SCALING: Scaling = { minSize: 1, maxSize: 2, desiredSize: 2 };

/** The simulator's AMI release naming: one release per Kubernetes minor. */
const releaseFor = (version: string) => `${version}.0-20260101`;

function scalingFrom(v: unknown, base: Scaling): Scaling {
  if (v === undefined || v === null) return { ...base };
  if (typeof v !== 'object') throw invalidParameter('scalingConfig must be an object'); // [sim]
  return { ...base, ...(v as Partial<Scaling>) };
}

export const createNodegroup: Handler = (r) => {
  const { state, body: b } = r;
  const c = state.cluster(r.region, param(r, 'name'));
  const name = requireString(b, 'nodegroupName');
  checkName('nodegroup', name);
  const extra = { clusterName: c.name, nodegroupName: name };
  const subnets = checkSubnets(b.subnets, 1);
  const nodeRole = requireString(b, 'nodeRole');
  checkRoleArn(nodeRole);
  const scaling = scalingFrom(b.scalingConfig, DEFAULT_SCALING);
  checkScaling(scaling, false, extra);
  const instanceTypes =
    b.instanceTypes === undefined ? ['t3.medium'] : stringList(b.instanceTypes, 'instanceTypes');
  if (instanceTypes.length < 1 || instanceTypes.length > 20) {
    throw invalidParameter('instanceTypes must list 1 to 20 instance types', extra); // [sim]
  }
  const capacityType = optionalString(b, 'capacityType') ?? 'ON_DEMAND';
  if (!CAPACITY_TYPES.includes(capacityType))
    throw invalidParameter(`Invalid capacityType: ${capacityType}`, extra); // [sim]
  const tags = stringMap(b.tags, 'tags');
  checkTags(tags);
  const version = optionalString(b, 'version');
  return state.idempotent(tokenKey(r, 'CreateNodegroup', `${c.name}/${name}`), fingerprint(r), () => {
    if (c.nodegroups.has(name)) {
      throw inUse(`NodeGroup already exists with name ${name} and cluster name ${c.name}`, extra); // [real]
    }
    checkClusterActive(c);
    checkNodegroupCreateVersion(c, version, name);
    if (c.nodegroups.size >= MAX_NODEGROUPS_PER_CLUSTER) {
      throw new SimError(
        400,
        'ResourceLimitExceededException',
        'Managed node groups per cluster limit exceeded',
        extra,
      ); // [sim]
    }
    const now = state.now();
    const rec: NodegroupRec = {
      name,
      arn: `arn:aws:eks:${r.region}:${state.config.accountId}:nodegroup/${c.name}/${name}/${state.rng.uuid()}`,
      clusterName: c.name,
      version: c.version,
      releaseVersion: releaseFor(c.version),
      status: 'CREATING',
      transition: { at: state.after(state.config.durations.nodegroupCreate), to: 'ACTIVE' },
      capacityType,
      instanceTypes,
      scaling,
      subnets,
      nodeRole,
      amiType: optionalString(b, 'amiType') ?? 'AL2023_x86_64_STANDARD',
      diskSize: typeof b.diskSize === 'number' ? b.diskSize : 20,
      labels: stringMap(b.labels, 'labels'),
      tags,
      createdAt: now,
      modifiedAt: now,
      healthIssues: [],
      asgName: `eks-${name}-${state.rng.hex(8)}`,
    };
    c.nodegroups.set(name, rec);
    return { nodegroup: nodegroupJson(rec) };
  });
};

export const describeNodegroup: Handler = (r) => {
  const c = r.state.cluster(r.region, param(r, 'name'));
  return { nodegroup: nodegroupJson(r.state.nodegroup(c, param(r, 'nodegroupName'))) };
};

export const listNodegroups: Handler = (r) => {
  const c = r.state.cluster(r.region, param(r, 'name'));
  const { items, nextToken } = page([...c.nodegroups.keys()], r.query);
  return { nodegroups: items, ...(nextToken ? { nextToken } : {}) };
};

export const deleteNodegroup: Handler = (r) => {
  const c = r.state.cluster(r.region, param(r, 'name'));
  const ng = r.state.nodegroup(c, param(r, 'nodegroupName'));
  if (ng.status !== 'DELETING') {
    ng.status = 'DELETING';
    ng.transition = { at: r.state.after(r.state.config.durations.nodegroupDelete), to: null };
  }
  return { nodegroup: nodegroupJson(ng) };
};

function labelChanges(v: unknown): { add: Record<string, string>; remove: string[] } {
  if (v === undefined || v === null) return { add: {}, remove: [] };
  const o = v as Record<string, unknown>;
  return {
    add: stringMap(o.addOrUpdateLabels, 'addOrUpdateLabels'),
    remove: stringList(o.removeLabels, 'removeLabels'),
  };
}

export const updateNodegroupConfig: Handler = (r) => {
  const { state, body: b } = r;
  const c = state.cluster(r.region, param(r, 'name'));
  const ng = state.nodegroup(c, param(r, 'nodegroupName'));
  const extra = { clusterName: c.name, nodegroupName: ng.name };
  checkNoImmutableFields(b, c.name, ng.name);
  for (const k of ['taints', 'updateConfig', 'nodeRepairConfig', 'warmPoolConfig']) {
    if (k in b) throw invalidParameter(`The simulator does not implement ${k} updates`, extra); // [sim]
  }
  if (!('scalingConfig' in b) && !('labels' in b)) {
    throw invalidParameter('The type for nodegroup update was not provided.', extra); // [sim] modelled on the cluster message
  }
  return state.idempotent(
    tokenKey(r, 'UpdateNodegroupConfig', `${c.name}/${ng.name}`),
    fingerprint(r),
    () => {
      checkNoUpdateInProgress(c, 'ConfigUpdate', ng.name);
      checkNodegroupActive(c, ng);
      const scaling = scalingFrom(b.scalingConfig, ng.scaling);
      checkScaling(scaling, true, extra);
      const labels = labelChanges(b.labels);
      const nextLabels = { ...ng.labels, ...labels.add };
      for (const k of labels.remove) delete nextLabels[k];
      const sameScaling = (['minSize', 'maxSize', 'desiredSize'] as const).every(
        (k) => scaling[k] === ng.scaling[k],
      );
      if (sameScaling && JSON.stringify(nextLabels) === JSON.stringify(ng.labels)) {
        // [sim] modelled on "No changes needed for the logging config provided".
        throw invalidParameter('No changes needed for the nodegroup configuration provided', extra);
      }
      const given = (b.scalingConfig ?? {}) as Partial<Scaling>;
      const params = [
        ...(given.minSize !== undefined ? [{ type: 'MinSize', value: String(scaling.minSize) }] : []),
        ...(given.maxSize !== undefined ? [{ type: 'MaxSize', value: String(scaling.maxSize) }] : []),
        ...(given.desiredSize !== undefined
          ? [{ type: 'DesiredSize', value: String(scaling.desiredSize) }]
          : []),
        ...(Object.keys(labels.add).length > 0
          ? [{ type: 'LabelsToAdd', value: JSON.stringify(labels.add) }]
          : []),
        ...(labels.remove.length > 0
          ? [{ type: 'LabelsToRemove', value: JSON.stringify(labels.remove) }]
          : []),
      ];
      const u = state.startUpdate(
        c,
        {
          type: 'ConfigUpdate',
          nodegroupName: ng.name,
          params,
          effect: () => {
            ng.scaling = scaling;
            ng.labels = nextLabels;
          },
        },
        state.config.durations.nodegroupConfigUpdate,
      );
      return { update: updateJson(u) };
    },
  );
};

export const updateNodegroupVersion: Handler = (r) => {
  const { state, body: b } = r;
  const c = state.cluster(r.region, param(r, 'name'));
  const ng = state.nodegroup(c, param(r, 'nodegroupName'));
  const extra = { clusterName: c.name, nodegroupName: ng.name };
  if ('launchTemplate' in b)
    throw invalidParameter('The simulator does not implement launch templates', extra); // [sim]
  return state.idempotent(
    tokenKey(r, 'UpdateNodegroupVersion', `${c.name}/${ng.name}`),
    fingerprint(r),
    () => {
      checkNoUpdateInProgress(c, 'VersionUpdate', ng.name);
      checkNodegroupActive(c, ng);
      // Without a version, EKS updates to the cluster's version.
      const to = optionalString(b, 'version') ?? c.version;
      checkSupportedVersion(to, state.config.supportedVersions);
      const release = optionalString(b, 'releaseVersion');
      if (release !== undefined && release !== releaseFor(to)) {
        // [real] eksctl#7976.
        throw invalidParameter(
          `Requested release version ${release} is not valid for kubernetes version ${to}.`,
          extra,
        );
      }
      if (!(release !== undefined && release !== ng.releaseVersion && to === ng.version)) {
        checkNodegroupVersionStep(c, ng, to);
      }
      const u = state.startUpdate(
        c,
        {
          type: 'VersionUpdate',
          nodegroupName: ng.name,
          params: [
            { type: 'Version', value: to },
            { type: 'ReleaseVersion', value: releaseFor(to) },
          ],
          effect: () => {
            ng.version = to;
            ng.releaseVersion = releaseFor(to);
          },
        },
        state.config.durations.nodegroupVersionUpdate,
      );
      return { update: updateJson(u) };
    },
  );
};
