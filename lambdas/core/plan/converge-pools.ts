/**
 * The planner's pool stages, each visiting pools in spec order and acting on the first that needs it:
 * replacement (create the desired group, then delete the pool's old ones), removal of groups no pool
 * wants once every pool is ACTIVE, version catch-up, and UpdateNodegroupConfig for mutable fields.
 */
import { Health } from '../health.js';
import type { ObservedNodegroup } from '../observation.js';
import { ownershipTags, POOL_TAG } from '../ownership.js';
import { LIMITS } from '../spec/rules.js';
import type { Decision, PlanContext, Stage } from './converge-types.js';
import { FIELD_TABLE } from './fields.js';
import { impossible } from './guards.js';
import { amiTypeFor, desiredScaling } from './nodegroup.js';
import { poolLabels, poolScaling, poolTaints, poolUpdateConfig } from './pool-compare.js';
import { type PoolGroups, poolOfNodegroup } from './pools.js';
import { withToken } from './tokens.js';
import type { CreateNodegroup, Impossible, MutatingOperation, NodegroupDeletionReason } from './types.js';

const version = FIELD_TABLE.kubernetesVersion.values;

const act = (next: MutatingOperation): Decision => ({ next });

/** A pool whose group EKS reports failed: reported, and left alone by every pool stage. */
function failedPool({ pool, current }: PoolGroups): Impossible | null {
  if (current?.health !== Health.Failed) return null;
  return impossible(
    `nodeGroups[${pool.name}]`,
    `node group ${current.name} of pool ${pool.name} is ${current.status}`,
    'Check the node group health issues in EKS (subnets, node role, capacity), fix them, then delete the node group so CloudOrch recreates it.',
  );
}

/** The pools the later stages work on: each has its desired group, and it has not failed. */
export function workingPools(x: PlanContext): (PoolGroups & { readonly current: ObservedNodegroup })[] {
  return x.assignment.pools.flatMap((pg) =>
    pg.current && pg.current.health !== Health.Failed ? [{ ...pg, current: pg.current }] : [],
  );
}

function createNodegroup(x: PlanContext, { pool, shape }: PoolGroups): CreateNodegroup {
  const { d, cluster: c, base } = x;
  const op = {
    kind: 'CreateNodegroup',
    ...base,
    nodegroupName: shape.name,
    pool: pool.name,
    // A node group can only be created at the control plane's version.
    version: c.version,
    instanceTypes: shape.instanceTypes,
    capacityType: shape.capacityType,
    amiType: shape.amiType ?? amiTypeFor(shape.instanceTypes[0] ?? ''),
    diskSize: shape.diskSize,
    scaling: desiredScaling(pool),
    labels: pool.labels,
    taints: pool.taints,
    updateConfig: pool.updateConfig,
    nodeRoleArn: shape.nodeRoleArn,
    subnetIds: shape.subnetIds.length > 0 ? shape.subnetIds : c.subnetIds,
    tags: { ...d.spec.tags, ...ownershipTags(d.id), [POOL_TAG]: pool.name },
  } as const;
  return withToken(d, op, c.version);
}

const deleteGroup = (
  x: PlanContext,
  ng: ObservedNodegroup,
  reason: NodegroupDeletionReason,
  pool?: string,
): MutatingOperation => ({
  kind: 'DeleteNodegroup',
  ...x.base,
  nodegroupName: ng.name,
  reason,
  ...(pool !== undefined ? { pool } : {}),
});

/**
 * One pool's replacement: a group of ours squatting on the desired name with another shape goes
 * first; a missing group is created (at EKS's node group quota, a removed pool's group makes room
 * first); once it is ACTIVE the pool's other groups go. Never a capacity gap, per pool.
 */
function replacePool(x: PlanContext, pg: PoolGroups): Decision | undefined {
  const { pool, shape, current, others } = pg;
  const squatter = others.find((ng) => ng.name === shape.name);
  if (squatter) return act(deleteGroup(x, squatter, 'replaced', pool.name));
  if (!current) return createOrMakeRoom(x, pg);
  const old = others[0];
  if (!old) return undefined;
  // DEGRADED may mean no node runs at all (no capacity, launch failures): the old group stays.
  if (current.health !== Health.Healthy)
    return {
      impossible: [
        impossible(
          `nodeGroups[${pool.name}]`,
          `node group ${current.name} of pool ${pool.name} is ${current.status}; the group it replaces (${old.name}) is kept until it is ACTIVE`,
          'Check the node group health issues in EKS (capacity, subnets, node role); once the new group is ACTIVE CloudOrch deletes the old one.',
        ),
      ],
    };
  return act(deleteGroup(x, old, 'replaced', pool.name));
}

function createOrMakeRoom(x: PlanContext, pg: PoolGroups): Decision {
  const { pool, shape } = pg;
  const holder = x.assignment.foreign.find((ng) => ng.name === shape.name);
  if (holder)
    return {
      impossible: [
        impossible(
          `nodeGroups[${pool.name}]`,
          `the node group name ${shape.name} that pool ${pool.name} derives is taken by a group CloudOrch did not create`,
          `Delete that node group (aws eks delete-nodegroup --cluster-name ${x.cluster.name} --nodegroup-name ${shape.name}), or change the pool so it derives another name.`,
        ),
      ],
    };
  const orphan = x.assignment.orphans[0];
  if (orphan && x.nodegroups.length >= LIMITS.pool.nodegroupQuota)
    return act(deleteGroup(x, orphan, 'pool-removed', poolOfNodegroup(orphan)));
  return act(createNodegroup(x, pg));
}

export const replacePools: Stage = (x) => {
  const found: Impossible[] = [];
  for (const pg of x.assignment.pools) {
    const failed = failedPool(pg);
    const decision = failed ? { impossible: [failed] } : replacePool(x, pg);
    found.push(...(decision?.impossible ?? []));
    if (decision?.next) return { impossible: found, next: decision.next };
  }
  return found.length > 0 ? { impossible: found } : undefined;
};

/**
 * Groups no pool wants go only once every pool's group is ACTIVE: removing a pool never takes
 * capacity while another pool is still coming up. CloudOrch's own first, then foreign ones (the
 * policy decides whether those may go; by default it denies it).
 */
export const removeUnwantedGroups: Stage = (x) => {
  const { pools, orphans, foreign } = x.assignment;
  if (!pools.every((pg) => pg.current?.health === Health.Healthy)) return undefined;
  const orphan = orphans[0];
  if (orphan) return act(deleteGroup(x, orphan, 'pool-removed', poolOfNodegroup(orphan)));
  const stranger = foreign[0];
  return stranger ? act(deleteGroup(x, stranger, 'foreign')) : undefined;
};

/** Pools catch up with the control plane, in spec order, before its next step; never past the desired version. */
export const catchUpPoolVersions: Stage = (x) => {
  const { d, cluster: c, base } = x;
  const planeBehind = version.gap(x, c.version) < 0;
  for (const { pool, current: ng } of workingPools(x)) {
    if (!version.behindPlane(ng, c)) continue;
    if (!planeBehind && version.gap(x, ng.version) >= 0) continue;
    const to = planeBehind ? c.version : version.desired(x);
    const op = { kind: 'UpdateNodegroupVersion', ...base, nodegroupName: ng.name } as const;
    return act(withToken(d, { ...op, fromVersion: ng.version, toVersion: to, pool: pool.name }, to));
  }
  return undefined;
};

/** A pool's group ahead of the desired version cannot come back; the rest still converges. */
export const reportPoolsAhead: Stage = (x) => {
  const ahead = workingPools(x).flatMap(({ current }) => version.nodegroupAhead(x, current) ?? []);
  return ahead.length > 0 ? { impossible: ahead } : undefined;
};

/** Every mutable difference of one pool's group in one UpdateNodegroupConfig: one EKS update. */
export const configurePools: Stage = (x) => {
  const { d, base } = x;
  for (const pg of workingPools(x)) {
    const ng = pg.current;
    const changes = {
      ...optional('scaling', poolScaling.toSend(pg, ng)),
      ...optional('labels', poolLabels.changes(pg, ng)),
      ...optional('taints', poolTaints.changes(pg, ng)),
      ...optional('updateConfig', poolUpdateConfig.changes(pg, ng)),
    };
    if (Object.keys(changes).length === 0) continue;
    const op = {
      kind: 'UpdateNodegroupConfig',
      ...base,
      nodegroupName: ng.name,
      pool: pg.pool.name,
      from: ng.scaling,
      ...changes,
    } as const;
    return act(withToken(d, op, JSON.stringify(changes)));
  }
  return undefined;
};

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}
