/**
 * The next step towards desired state: every impossible difference, then at most one action (one
 * mutating operation, or a wait while EKS is busy). The fixed order of checks is the EKS rulebook:
 * ownership, create, wait for transitions, node group replacement without a capacity gap, one-minor
 * control plane steps with node groups brought along first, scaling, then tags.
 */
import { Health } from '../health.js';
import type { Observation, ObservedCluster } from '../observation.js';
import { OWNER_TAG, ownershipOf, ownershipTags, ownershipTagsOf, RELEASED_TAG } from '../ownership.js';
import { compareVersions, nextMinor } from '../version.js';
import { deletionStep } from './deletion.js';
import type { Step } from './guards.js';
import { busy, claimBlock, impossible, ownershipBlock } from './guards.js';
import { desiredNodegroup, desiredScaling, matchesShape, sameScaling } from './nodegroup.js';
import { diffTags } from './tags.js';
import { applyKey, idempotencyToken } from './tokens.js';
import type { Desired, Impossible, MutatingOperation, PlanDefaults } from './types.js';

export type { Step } from './guards.js';

const none = (impossible: Impossible[] = []): Step => ({ impossible, next: null });

function createCluster(d: Desired, defaults: PlanDefaults): Step {
  const { spec } = d;
  const roleArn = spec.clusterRoleArn ?? defaults.clusterRoleArn;
  const subnetIds = spec.network?.subnetIds ?? defaults.subnetIds ?? [];
  const blockers: Impossible[] = [];
  if (!roleArn)
    blockers.push(
      impossible(
        'clusterRoleArn',
        'no cluster IAM role is known',
        'Set spec.clusterRoleArn or deploy CloudOrch with a default cluster role.',
      ),
    );
  if (subnetIds.length < 2)
    blockers.push(
      impossible(
        'network.subnetIds',
        'EKS needs at least two subnets',
        'Set spec.network.subnetIds or deploy CloudOrch with default subnets.',
      ),
    );
  if (blockers.length > 0) return none(blockers);
  return {
    impossible: [],
    next: {
      kind: 'CreateCluster',
      clusterName: spec.clusterName,
      region: spec.region,
      version: spec.kubernetesVersion,
      roleArn,
      subnetIds,
      securityGroupIds: spec.network?.securityGroupIds ?? defaults.securityGroupIds ?? [],
      tags: { ...spec.tags, ...ownershipTags(d.id) },
      clientRequestToken: idempotencyToken(
        d.id,
        d.generation,
        'CreateCluster',
        spec.clusterName,
        spec.kubernetesVersion,
        d.applied?.[applyKey('CreateCluster', spec.clusterName)] ?? 0,
      ),
    },
  };
}

function immutableClusterFields(d: Desired, c: ObservedCluster): Impossible[] {
  const out: Impossible[] = [];
  const { spec } = d;
  if (spec.clusterRoleArn && spec.clusterRoleArn !== c.roleArn) {
    out.push(
      impossible(
        'clusterRoleArn',
        `the cluster role is immutable in EKS (observed ${c.roleArn})`,
        'Restore the original clusterRoleArn, or create a new cluster under another clusterName.',
      ),
    );
  }
  const subnets = spec.network?.subnetIds;
  if (subnets && [...subnets].sort().join(',') !== [...c.subnetIds].sort().join(',')) {
    out.push(
      impossible(
        'network.subnetIds',
        `CloudOrch does not move a running cluster's subnets (observed ${c.subnetIds.join(', ')})`,
        'Restore the observed subnets in the spec, or change them with aws eks update-cluster-config.',
      ),
    );
  }
  const sgs = spec.network?.securityGroupIds;
  if (sgs && [...sgs].sort().join(',') !== [...c.securityGroupIds].sort().join(',')) {
    out.push(
      impossible(
        'network.securityGroupIds',
        "CloudOrch does not change a running cluster's security groups",
        'Restore the observed security groups in the spec, or change them with aws eks update-cluster-config.',
      ),
    );
  }
  const cmp = compareVersions(c.version, spec.kubernetesVersion);
  if (cmp > 0) {
    out.push(
      impossible(
        'kubernetesVersion',
        `EKS cannot downgrade the control plane from ${c.version} to ${spec.kubernetesVersion}`,
        `Set kubernetesVersion to "${c.version}" (EKS may have auto-upgraded the cluster at the end of support).`,
      ),
    );
  }
  return out;
}

/**
 * Tags of one resource. The cluster carries this record's ownership tags; a node group keeps the
 * ownership tags it has (one made under a record that released the cluster stays so: IAM lets no
 * one re-own a node group, and CloudOrch manages it through the cluster's claim).
 */
function tagStep(
  d: Desired,
  c: ObservedCluster,
  arn: string,
  observed: Readonly<Record<string, string>>,
  ownership: Readonly<Record<string, string>>,
): MutatingOperation | null {
  const { toSet, toRemove } = diffTags({ ...d.spec.tags, ...ownership }, observed);
  const base = { clusterName: c.name, region: c.region, resourceArn: arn };
  if (Object.keys(toSet).length > 0) return { kind: 'TagResource', ...base, tags: toSet };
  if (toRemove.length > 0) return { kind: 'UntagResource', ...base, tagKeys: toRemove };
  return null;
}

function convergeStep(d: Desired, o: Observation, c: ObservedCluster, defaults: PlanDefaults): Step {
  const { spec } = d;
  const blockers = immutableClusterFields(d, c);
  const waiting = busy(c, o.nodegroups);
  if (waiting) return { impossible: blockers, next: waiting };
  if (c.health === Health.Failed) {
    blockers.push(
      impossible(
        'cluster',
        `cluster ${c.name} is FAILED in EKS`,
        'Inspect the cluster in the EKS console; delete it (set deletionPolicy: Delete and delete the record) to start over.',
      ),
    );
    return none(blockers);
  }
  const step = (next: MutatingOperation): Step => ({ impossible: blockers, next });
  const token = (kind: string, target: string, value: string) =>
    idempotencyToken(d.id, d.generation, kind, target, value, d.applied?.[applyKey(kind, target)] ?? 0);
  const base = { clusterName: c.name, region: c.region };

  // Adopting (or re-claiming a released or lost cluster): the ownership comes first. A cluster this
  // very record released only loses its release mark; another record's is tagged as ours (and the
  // stale mark then goes with the other tags).
  const owner = ownershipOf(c.tags, d.id);
  if (owner === 'released' && c.tags[OWNER_TAG] === d.id)
    return step({ kind: 'UntagResource', ...base, resourceArn: c.arn, tagKeys: [RELEASED_TAG] });
  if (owner === 'unowned' || owner === 'released') {
    return step({ kind: 'TagResource', ...base, resourceArn: c.arn, tags: ownershipTags(d.id) });
  }

  const shape = desiredNodegroup(spec, defaults);
  const current = o.nodegroups.find((ng) => matchesShape(ng, shape));
  const squatter = o.nodegroups.find((ng) => ng.name === shape.name && ng !== current);
  const obsolete = o.nodegroups.filter((ng) => ng !== current && ng !== squatter);

  for (const ng of o.nodegroups) {
    if (ng.health === Health.Failed && ng === current) {
      blockers.push(
        impossible(
          'instanceType',
          `node group ${ng.name} is ${ng.status}`,
          'Check the node group health issues in EKS (subnets, node role, capacity), fix them, then delete the node group so CloudOrch recreates it.',
        ),
      );
      return none(blockers);
    }
  }
  // A group with the desired name but the wrong shape cannot be repaired in place.
  if (squatter) return step({ kind: 'DeleteNodegroup', ...base, nodegroupName: squatter.name });

  if (!current) {
    const scaling = desiredScaling(spec);
    return step({
      kind: 'CreateNodegroup',
      ...base,
      nodegroupName: shape.name,
      // A node group can only be created at the control plane's version.
      version: c.version,
      instanceType: shape.instanceType,
      capacityType: shape.capacityType,
      scaling,
      nodeRoleArn: shape.nodeRoleArn,
      subnetIds: shape.subnetIds.length > 0 ? shape.subnetIds : c.subnetIds,
      tags: { ...spec.tags, ...ownershipTags(d.id) },
      clientRequestToken: token('CreateNodegroup', shape.name, c.version),
    });
  }
  // The replacement is ACTIVE (nothing is transitional here), so the old groups can go: no capacity gap.
  const old = obsolete[0];
  if (old) return step({ kind: 'DeleteNodegroup', ...base, nodegroupName: old.name });

  const cmp = compareVersions(c.version, spec.kubernetesVersion);
  if (
    compareVersions(current.version, c.version) < 0 &&
    (cmp < 0 || compareVersions(current.version, spec.kubernetesVersion) < 0)
  ) {
    // Node groups catch up with the control plane before its next step, and never pass the desired version.
    const to = cmp < 0 ? c.version : spec.kubernetesVersion;
    return step({
      kind: 'UpdateNodegroupVersion',
      ...base,
      nodegroupName: current.name,
      fromVersion: current.version,
      toVersion: to,
      clientRequestToken: token('UpdateNodegroupVersion', current.name, to),
    });
  }
  if (cmp < 0) {
    const to = nextMinor(c.version);
    return step({
      kind: 'UpdateClusterVersion',
      ...base,
      fromVersion: c.version,
      toVersion: to,
      clientRequestToken: token('UpdateClusterVersion', c.name, to),
    });
  }
  if (compareVersions(current.version, spec.kubernetesVersion) > 0) {
    blockers.push(
      impossible(
        'kubernetesVersion',
        `EKS cannot downgrade node group ${current.name} from ${current.version}`,
        `Set kubernetesVersion to "${current.version}".`,
      ),
    );
  }

  const want = desiredScaling(spec, current.scaling);
  if (!sameScaling(want, current.scaling)) {
    const scaling =
      spec.scaling === 'external' && want.desiredSize === current.scaling.desiredSize
        ? { minSize: want.minSize, maxSize: want.maxSize }
        : want;
    return step({
      kind: 'UpdateNodegroupScaling',
      ...base,
      nodegroupName: current.name,
      from: current.scaling,
      scaling,
      clientRequestToken: token('UpdateNodegroupScaling', current.name, JSON.stringify(scaling)),
    });
  }

  const tagOp =
    tagStep(d, c, c.arn, c.tags, ownershipTags(d.id)) ??
    tagStep(d, c, current.arn, current.tags, ownershipTagsOf(current.tags));
  return tagOp ? step(tagOp) : none(blockers);
}

/** The next step for one cluster. Pure: the same input always gives the same step. */
export function nextStep(d: Desired, o: Observation, defaults: PlanDefaults = {}): Step {
  if (d.deletionRequested) return deletionStep(d, o);
  if (d.spec.paused) return none();
  const c = o.cluster;
  // A target another record holds is never created or changed by this one.
  const claimed = claimBlock(d);
  if (claimed) return none([claimed]);
  if (!c) return createCluster(d, defaults);
  const block = ownershipBlock(d, c);
  if (block) return none([block]);
  return convergeStep(d, o, c, defaults);
}
