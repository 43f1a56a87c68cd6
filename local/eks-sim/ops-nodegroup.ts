/** Managed node group operations: create, describe, list, delete, config (scaling, labels, taints, updateConfig) and version updates. */
import { addNodeRoleEntry } from './access-config.js';
import { type NodegroupRec, SimError, type Taint, type UpdateConfig } from './model.js';
import {
  amiTypeFrom,
  applyTaints,
  capacityTypeFrom,
  checkTaintCount,
  DEFAULT_UPDATE_CONFIG,
  diskSizeFrom,
  labelChanges,
  labelsFrom,
  sameUpdateConfig,
  taintChanges,
  taintsFrom,
  updateConfigFrom,
} from './nodegroup-config.js';
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

/** Defaults from the model docs: 1/2/2 scaling, t3.medium. */
const DEFAULT_SCALING: Scaling = { minSize: 1, maxSize: 2, desiredSize: 2 };

/** The simulator's AMI release naming: one release per Kubernetes minor. */
const releaseFor = (version: string) => `${version}.0-20260101`;

function scalingFrom(v: unknown, base: Scaling): Scaling {
  if (v === undefined || v === null) return { ...base };
  if (typeof v !== 'object') throw invalidParameter('scalingConfig must be an object'); // [sim]
  return { ...base, ...(v as Partial<Scaling>) };
}

/** CreateNodegroup's members that become the record, validated in the order EKS reports them. */
function createSpec(b: Readonly<Record<string, unknown>>, extra: SimError['extra']) {
  for (const k of ['launchTemplate', 'remoteAccess', 'nodeRepairConfig', 'warmPoolConfig']) {
    if (k in b) throw invalidParameter(`The simulator does not implement ${k}`, extra); // [sim]
  }
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
  const amiType = amiTypeFrom(b, extra);
  const tags = stringMap(b.tags, 'tags');
  checkTags(tags);
  return {
    subnets,
    nodeRole,
    scaling,
    instanceTypes,
    capacityType: capacityTypeFrom(b, extra),
    amiType,
    diskSize: diskSizeFrom(b.diskSize, amiType, extra),
    labels: labelsFrom(b.labels, 'labels', extra),
    taints: taintsFrom(b.taints, 'taints', extra),
    updateConfig:
      b.updateConfig === undefined
        ? DEFAULT_UPDATE_CONFIG
        : updateConfigFrom(b.updateConfig, scaling.maxSize, extra),
    tags,
  };
}

export const createNodegroup: Handler = (r) => {
  const { state, body: b } = r;
  const c = state.cluster(r.region, param(r, 'name'), r.caller.account);
  const name = requireString(b, 'nodegroupName');
  checkName('nodegroup', name);
  const extra = { clusterName: c.name, nodegroupName: name };
  const spec = createSpec(b, extra);
  const version = optionalString(b, 'version');
  const release = optionalString(b, 'releaseVersion');
  return state.idempotent(tokenKey(r, 'CreateNodegroup', `${c.name}/${name}`), fingerprint(r), () => {
    if (c.nodegroups.has(name)) {
      throw inUse(`NodeGroup already exists with name ${name} and cluster name ${c.name}`, extra); // [real]
    }
    checkClusterActive(c);
    checkNodegroupCreateVersion(c, version, name);
    if (release !== undefined && release !== releaseFor(c.version)) {
      // [real] eksctl#7976 (as UpdateNodegroupVersion).
      throw invalidParameter(
        `Requested release version ${release} is not valid for kubernetes version ${c.version}.`,
        extra,
      );
    }
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
      arn: `arn:aws:eks:${r.region}:${c.account}:nodegroup/${c.name}/${name}/${state.rng.uuid()}`,
      clusterName: c.name,
      version: c.version,
      releaseVersion: releaseFor(c.version),
      status: 'CREATING',
      transition: { at: state.after(state.config.durations.nodegroupCreate), to: 'ACTIVE' },
      ...spec,
      createdAt: now,
      modifiedAt: now,
      healthIssues: [],
      asgName: `eks-${name}-${state.rng.hex(8)}`,
    };
    c.nodegroups.set(name, rec);
    // EKS gives a managed node group's role its EC2_LINUX access entry (in an API mode).
    addNodeRoleEntry(state, c, rec.nodeRole);
    return { nodegroup: nodegroupJson(rec) };
  });
};

export const describeNodegroup: Handler = (r) => {
  const c = r.state.cluster(r.region, param(r, 'name'), r.caller.account);
  return { nodegroup: nodegroupJson(r.state.nodegroup(c, param(r, 'nodegroupName'))) };
};

export const listNodegroups: Handler = (r) => {
  const c = r.state.cluster(r.region, param(r, 'name'), r.caller.account);
  const { items, nextToken } = page([...c.nodegroups.keys()], r.query);
  return { nodegroups: items, ...(nextToken ? { nextToken } : {}) };
};

export const deleteNodegroup: Handler = (r) => {
  const c = r.state.cluster(r.region, param(r, 'name'), r.caller.account);
  const ng = r.state.nodegroup(c, param(r, 'nodegroupName'));
  if (ng.status !== 'DELETING') {
    ng.status = 'DELETING';
    ng.transition = { at: r.state.after(r.state.config.durations.nodegroupDelete), to: null };
  }
  return { nodegroup: nodegroupJson(ng) };
};

/** The update params EKS reports for a config update: only the members the request carried. */
function configParams(
  given: Partial<Scaling>,
  scaling: Scaling,
  labels: { add: Record<string, string>; remove: string[] },
  taints: { add: Taint[]; remove: Taint[] },
  updateConfig: UpdateConfig | undefined,
): { type: string; value: string }[] {
  const p: { type: string; value: string }[] = [];
  for (const [k, type] of [
    ['minSize', 'MinSize'],
    ['maxSize', 'MaxSize'],
    ['desiredSize', 'DesiredSize'],
  ] as const) {
    if (given[k] !== undefined) p.push({ type, value: String(scaling[k]) });
  }
  // [sim] the values' format is not documented: JSON of what was asked.
  if (Object.keys(labels.add).length > 0) p.push({ type: 'LabelsToAdd', value: JSON.stringify(labels.add) });
  if (labels.remove.length > 0) p.push({ type: 'LabelsToRemove', value: JSON.stringify(labels.remove) });
  if (taints.add.length > 0) p.push({ type: 'TaintsToAdd', value: JSON.stringify(taints.add) });
  if (taints.remove.length > 0) p.push({ type: 'TaintsToRemove', value: JSON.stringify(taints.remove) });
  if (updateConfig && 'maxUnavailable' in updateConfig) {
    p.push({ type: 'MaxUnavailable', value: String(updateConfig.maxUnavailable) });
  }
  if (updateConfig && 'maxUnavailablePercentage' in updateConfig) {
    p.push({ type: 'MaxUnavailablePercentage', value: String(updateConfig.maxUnavailablePercentage) });
  }
  return p;
}

const CONFIG_MEMBERS = ['scalingConfig', 'labels', 'taints', 'updateConfig'];

export const updateNodegroupConfig: Handler = (r) => {
  const { state, body: b } = r;
  const c = state.cluster(r.region, param(r, 'name'), r.caller.account);
  const ng = state.nodegroup(c, param(r, 'nodegroupName'));
  const extra = { clusterName: c.name, nodegroupName: ng.name };
  checkNoImmutableFields(b, c.name, ng.name);
  for (const k of ['nodeRepairConfig', 'warmPoolConfig']) {
    if (k in b) throw invalidParameter(`The simulator does not implement ${k} updates`, extra); // [sim]
  }
  if (!CONFIG_MEMBERS.some((k) => k in b)) {
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
      const labels = labelChanges(b.labels, extra);
      const nextLabels = { ...ng.labels, ...labels.add };
      for (const k of labels.remove) delete nextLabels[k];
      const taints = taintChanges(b.taints, extra);
      const nextTaints = applyTaints(ng.taints, taints);
      checkTaintCount(nextTaints, extra);
      const updateConfig =
        b.updateConfig === undefined ? undefined : updateConfigFrom(b.updateConfig, scaling.maxSize, extra);
      const nextUpdateConfig = updateConfig ?? ng.updateConfig;
      const unchanged =
        (['minSize', 'maxSize', 'desiredSize'] as const).every((k) => scaling[k] === ng.scaling[k]) &&
        JSON.stringify(nextLabels) === JSON.stringify(ng.labels) &&
        JSON.stringify(nextTaints) === JSON.stringify(ng.taints) &&
        sameUpdateConfig(nextUpdateConfig, ng.updateConfig);
      if (unchanged) {
        // [sim] modelled on "No changes needed for the logging config provided".
        throw invalidParameter('No changes needed for the nodegroup configuration provided', extra);
      }
      const params = configParams(
        (b.scalingConfig ?? {}) as Partial<Scaling>,
        scaling,
        labels,
        taints,
        updateConfig,
      );
      const u = state.startUpdate(
        c,
        {
          type: 'ConfigUpdate',
          nodegroupName: ng.name,
          params,
          effect: () => {
            ng.scaling = scaling;
            ng.labels = nextLabels;
            ng.taints = nextTaints;
            ng.updateConfig = nextUpdateConfig;
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
  const c = state.cluster(r.region, param(r, 'name'), r.caller.account);
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
