/**
 * Converging a cluster this record owns: an ordered list of small stages, each deciding one concern.
 * The order is the EKS rulebook: what cannot converge is reported first, transitions in flight are
 * waited for, ownership is claimed, the node group is replaced without a capacity gap, versions step
 * one minor at a time with node groups brought along first, then scaling, then tags.
 */
import { Health } from '../health.js';
import type { ObservedCluster, ObservedNodegroup } from '../observation.js';
import { OWNER_TAG, ownershipOf, ownershipTags, ownershipTagsOf, RELEASED_TAG } from '../ownership.js';
import { nextMinor } from '../version.js';
import { FIELD_TABLE, type FieldContext, fieldContext, unconvergeableDifferences } from './fields.js';
import { busy, impossible, type Step } from './guards.js';
import { withToken } from './tokens.js';
import type { CreateNodegroup, Desired, Impossible, MutatingOperation, PlanDefaults, Wait } from './types.js';

/** The values each stage acts on: the same ones its field's rule compares for drift. */
const version = FIELD_TABLE.kubernetesVersion.values;
const scaling = FIELD_TABLE.nodeCount.values;
const tags = FIELD_TABLE.tags.values;

/** What every stage reads: the field context, the record, and where its calls go. */
interface Converging extends FieldContext {
  readonly d: Desired;
  readonly base: { readonly clusterName: string; readonly region: string };
}

/**
 * What a stage decided: impossible differences it found, and the step's action if it takes one
 * (`null`: stop with nothing to call). Without `next`, the following stage decides.
 */
interface Decision {
  readonly impossible?: readonly Impossible[];
  readonly next?: MutatingOperation | Wait | null;
}

type Stage = (x: Converging) => Decision | undefined;

const act = (next: MutatingOperation | Wait): Decision => ({ next });
const stop = (blocker: Impossible): Decision => ({ impossible: [blocker], next: null });

/** Fields EKS cannot change are reported whatever else this step does. */
const reportUnconvergeable: Stage = (x) => ({ impossible: unconvergeableDifferences(x) });

/** EKS refuses changes to resources that are still changing: observe again later. */
const waitForEks: Stage = ({ cluster, nodegroups }) => {
  const waiting = busy(cluster, nodegroups);
  return waiting ? act(waiting) : undefined;
};

const stopIfClusterFailed: Stage = ({ cluster: c }) =>
  c.health === Health.Failed
    ? stop(
        impossible(
          'cluster',
          `cluster ${c.name} is FAILED in EKS`,
          'Inspect the cluster in the EKS console; delete it (set deletionPolicy: Delete and delete the record) to start over.',
        ),
      )
    : undefined;

/**
 * Adopting (or re-claiming a released or lost cluster): the ownership comes first. A cluster this
 * very record released only loses its release mark; another record's is tagged as ours (and the
 * stale mark then goes with the other tags).
 */
const claimOwnership: Stage = ({ d, cluster: c, base }) => {
  const owner = ownershipOf(c.tags, d.id);
  if (owner === 'released' && c.tags[OWNER_TAG] === d.id)
    return act({ kind: 'UntagResource', ...base, resourceArn: c.arn, tagKeys: [RELEASED_TAG] });
  if (owner === 'unowned' || owner === 'released')
    return act({ kind: 'TagResource', ...base, resourceArn: c.arn, tags: ownershipTags(d.id) });
  return undefined;
};

function createNodegroup(x: Converging): CreateNodegroup {
  const { d, cluster: c, shape, base } = x;
  const op = {
    kind: 'CreateNodegroup',
    ...base,
    nodegroupName: shape.name,
    // A node group can only be created at the control plane's version.
    version: c.version,
    instanceType: shape.instanceType,
    capacityType: shape.capacityType,
    scaling: scaling.desired(x),
    nodeRoleArn: shape.nodeRoleArn,
    subnetIds: shape.subnetIds.length > 0 ? shape.subnetIds : c.subnetIds,
    tags: { ...d.spec.tags, ...ownershipTags(d.id) },
  } as const;
  return withToken(d, op, c.version);
}

/** Immutable node group fields converge by replacement: create the new group, then delete the old. */
const replaceNodegroup: Stage = (x) => {
  const { nodegroup: current, shape, nodegroups, base } = x;
  if (current?.health === Health.Failed)
    return stop(
      impossible(
        'instanceType',
        `node group ${current.name} is ${current.status}`,
        'Check the node group health issues in EKS (subnets, node role, capacity), fix them, then delete the node group so CloudOrch recreates it.',
      ),
    );
  // A group with the desired name but the wrong shape cannot be repaired in place.
  const squatter = nodegroups.find((ng) => ng.name === shape.name && ng !== current);
  if (squatter) return act({ kind: 'DeleteNodegroup', ...base, nodegroupName: squatter.name });
  if (!current) return act(createNodegroup(x));
  // The replacement is ACTIVE (nothing is transitional here), so the old groups can go: no capacity gap.
  const old = nodegroups.find((ng) => ng !== current);
  return old ? act({ kind: 'DeleteNodegroup', ...base, nodegroupName: old.name }) : undefined;
};

/** The stages after `replaceNodegroup`, which stops every step until the desired group exists. */
const withNodegroup =
  (stage: (x: Converging, ng: ObservedNodegroup) => Decision | undefined): Stage =>
  (x) =>
    x.nodegroup ? stage(x, x.nodegroup) : undefined;

/** Node groups catch up with the control plane before its next step, and never pass the desired version. */
const catchUpNodegroupVersion = withNodegroup((x, ng) => {
  const { d, cluster: c, base } = x;
  const planeBehind = version.gap(x, c.version) < 0;
  if (!version.behindPlane(ng, c)) return undefined;
  if (!planeBehind && version.gap(x, ng.version) >= 0) return undefined;
  const to = planeBehind ? c.version : version.desired(x);
  const op = { kind: 'UpdateNodegroupVersion', ...base, nodegroupName: ng.name } as const;
  return act(withToken(d, { ...op, fromVersion: ng.version, toVersion: to }, to));
});

/** EKS moves the control plane one minor version at a time. */
const upgradeControlPlane: Stage = (x) => {
  const { d, cluster: c, base } = x;
  if (version.gap(x, c.version) >= 0) return undefined;
  const to = nextMinor(c.version);
  const op = { kind: 'UpdateClusterVersion', ...base, fromVersion: c.version, toVersion: to } as const;
  return act(withToken(d, op, to));
};

/** A node group ahead of the desired version cannot come back; the rest still converges. */
const reportNodegroupAhead = withNodegroup((x, ng) => {
  const ahead = version.nodegroupAhead(x, ng);
  return ahead ? { impossible: [ahead] } : undefined;
});

const scaleNodegroup = withNodegroup((x, ng) => {
  const { d, base } = x;
  const { want, changed } = scaling.changes(x, ng);
  if (changed.length === 0) return undefined;
  // Under external scaling the autoscaler's desiredSize is sent only when the bounds must move it.
  const send =
    d.spec.scaling === 'external' && !changed.includes('desiredSize')
      ? { minSize: want.minSize, maxSize: want.maxSize }
      : want;
  const op = { kind: 'UpdateNodegroupScaling', ...base, nodegroupName: ng.name } as const;
  return act(withToken(d, { ...op, from: ng.scaling, scaling: send }, JSON.stringify(send)));
});

/**
 * Tags of one resource. The cluster carries this record's ownership tags; a node group keeps the
 * ownership tags it has (one made under a record that released the cluster stays so: IAM lets no
 * one re-own a node group, and CloudOrch manages it through the cluster's claim).
 */
function retag(
  x: Converging,
  resourceArn: string,
  observed: Readonly<Record<string, string>>,
  ownership: Readonly<Record<string, string>>,
): MutatingOperation | null {
  const { base } = x;
  const { toSet, toRemove } = tags.changes(x, observed, ownership);
  if (Object.keys(toSet).length > 0) return { kind: 'TagResource', ...base, resourceArn, tags: toSet };
  if (toRemove.length > 0) return { kind: 'UntagResource', ...base, resourceArn, tagKeys: toRemove };
  return null;
}

const convergeTags = withNodegroup((x, ng) => {
  const op =
    retag(x, x.cluster.arn, x.cluster.tags, ownershipTags(x.d.id)) ??
    retag(x, ng.arn, ng.tags, ownershipTagsOf(ng.tags));
  return op ? act(op) : undefined;
});

const STAGES: readonly Stage[] = [
  reportUnconvergeable,
  waitForEks,
  stopIfClusterFailed,
  claimOwnership,
  replaceNodegroup,
  catchUpNodegroupVersion,
  upgradeControlPlane,
  reportNodegroupAhead,
  scaleNodegroup,
  convergeTags,
];

/** The next step for a cluster this record may change: the first stage that acts decides it. */
export function convergeStep(
  d: Desired,
  c: ObservedCluster,
  nodegroups: readonly ObservedNodegroup[],
  defaults: PlanDefaults,
): Step {
  const x: Converging = {
    ...fieldContext(d.spec, c, nodegroups, defaults),
    d,
    base: { clusterName: c.name, region: c.region },
  };
  const found: Impossible[] = [];
  for (const stage of STAGES) {
    const decision = stage(x);
    found.push(...(decision?.impossible ?? []));
    if (decision?.next !== undefined) return { impossible: found, next: decision.next };
  }
  return { impossible: found, next: null };
}
