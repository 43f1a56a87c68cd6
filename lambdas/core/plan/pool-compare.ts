/**
 * The comparisons of one pool against the node groups serving it. Drift reports them and the
 * planner's pool stages act on the same values (through `POOL_FIELD_TABLE`), so the two cannot
 * disagree. Mutable parts (sizes, labels, taints, updateConfig) are compared on the pool's current
 * group; immutable parts on the groups still being replaced.
 */
import type { ObservedNodegroup, ObservedTaint, ScalingConfig, UpdateConfig } from '../observation.js';
import { type DriftItem, diff, type FieldContext, poolField, sorted } from './compare.js';
import { desiredScaling, type NodegroupShape } from './nodegroup.js';
import type { PoolGroups } from './pools.js';
import type { LabelChanges, TaintChanges } from './types.js';

/** A pool rule's comparison: every difference between one pool and the groups serving it. */
export type PoolDrift = (ctx: FieldContext, pg: PoolGroups) => DriftItem[];

const SCALING_MEMBERS = ['minSize', 'maxSize', 'desiredSize'] as const;
type ScalingMember = (typeof SCALING_MEMBERS)[number];

/** nodeCount, minSize and maxSize: the current group's scaling against the pool's. */
export const poolScaling = {
  /** The desired scaling for the group, and the members in which the group differs from it. */
  changes: ({ pool }: PoolGroups, ng: ObservedNodegroup) => {
    const want = desiredScaling(pool, ng.scaling);
    return { want, changed: SCALING_MEMBERS.filter((m) => want[m] !== ng.scaling[m]) };
  },
  /** What UpdateNodegroupConfig sends: under external scaling, desiredSize only when the bounds move it. */
  toSend: (pg: PoolGroups, ng: ObservedNodegroup): Partial<ScalingConfig> | undefined => {
    const { want, changed } = poolScaling.changes(pg, ng);
    if (changed.length === 0) return undefined;
    return pg.pool.scaling === 'external' && !changed.includes('desiredSize')
      ? { minSize: want.minSize, maxSize: want.maxSize }
      : want;
  },
  drift:
    (field: string, member: ScalingMember): PoolDrift =>
    (_ctx, pg) => {
      const ng = pg.current;
      // Under external scaling the autoscaler owns desiredSize: only the bounds can drift.
      if (!ng || (member === 'desiredSize' && pg.pool.scaling === 'external')) return [];
      const { want, changed } = poolScaling.changes(pg, ng);
      return changed.includes(member)
        ? [
            {
              field: poolField(pg.pool.name, field),
              desired: String(want[member]),
              observed: String(ng.scaling[member]),
            },
          ]
        : [];
    },
};

/**
 * A mutable part compared on the pool's current group: what an update would send (undefined when
 * nothing differs), and the drift it shows, as text of the wanted and the observed value.
 */
function mutablePart<Change, Value>(
  part: string,
  changes: (pg: PoolGroups, ng: ObservedNodegroup) => Change | undefined,
  wanted: (pg: PoolGroups) => Value,
  observed: (ng: ObservedNodegroup) => Value,
  text: (v: Value) => string,
) {
  const drift: PoolDrift = (_ctx, pg) =>
    pg.current && changes(pg, pg.current) !== undefined
      ? diff(poolField(pg.pool.name, part), text(wanted(pg)), text(observed(pg.current)))
      : [];
  return { changes, drift };
}

const sortedEntries = (labels: Readonly<Record<string, string>>) =>
  JSON.stringify(Object.fromEntries(Object.entries(labels).sort()));

/** labels: the pool's Kubernetes labels, exactly (labels CloudOrch did not ask for are removed). */
function labelChanges({ pool }: PoolGroups, ng: ObservedNodegroup): LabelChanges | undefined {
  const add = Object.fromEntries(Object.entries(pool.labels).filter(([k, v]) => ng.labels[k] !== v));
  const remove = Object.keys(ng.labels).filter((k) => !Object.hasOwn(pool.labels, k));
  return Object.keys(add).length === 0 && remove.length === 0
    ? undefined
    : { addOrUpdateLabels: add, removeLabels: remove };
}

export const poolLabels = mutablePart(
  'labels',
  labelChanges,
  (pg) => pg.pool.labels,
  (ng) => ng.labels,
  sortedEntries,
);

/** Key and effect identify a taint (as in Kubernetes and EKS); the value is what an update changes. */
export const sameTaint = (a: ObservedTaint, b: ObservedTaint) => a.key === b.key && a.effect === b.effect;
const taintText = (ts: readonly ObservedTaint[]) =>
  ts
    .map((t) => `${t.key}${t.value ? `=${t.value}` : ''}:${t.effect}`)
    .sort()
    .join(',');

/** taints: the pool's taints, exactly. */
function taintChanges({ pool }: PoolGroups, ng: ObservedNodegroup): TaintChanges | undefined {
  const add = pool.taints.filter(
    (t) => !ng.taints.some((o) => sameTaint(o, t) && (o.value ?? '') === (t.value ?? '')),
  );
  const remove = ng.taints.filter((o) => !pool.taints.some((t) => sameTaint(o, t)));
  return add.length === 0 && remove.length === 0
    ? undefined
    : { addOrUpdateTaints: add, removeTaints: remove };
}

export const poolTaints = mutablePart(
  'taints',
  taintChanges,
  (pg): readonly ObservedTaint[] => pg.pool.taints,
  (ng) => ng.taints,
  taintText,
);

const updateConfigText = (u: UpdateConfig | undefined) =>
  u?.maxUnavailablePercentage !== undefined
    ? `maxUnavailablePercentage ${u.maxUnavailablePercentage}`
    : `maxUnavailable ${u?.maxUnavailable ?? '(EKS default)'}`;

/** updateConfig: compared only when the pool sets it (unset, EKS's default stands). */
function updateConfigChanges({ pool }: PoolGroups, ng: ObservedNodegroup): UpdateConfig | undefined {
  const want = pool.updateConfig;
  if (!want) return undefined;
  const same =
    want.maxUnavailable === ng.updateConfig?.maxUnavailable &&
    want.maxUnavailablePercentage === ng.updateConfig?.maxUnavailablePercentage;
  return same ? undefined : want;
}

export const poolUpdateConfig = mutablePart(
  'updateConfig',
  updateConfigChanges,
  (pg): UpdateConfig | undefined => pg.pool.updateConfig,
  (ng) => ng.updateConfig,
  updateConfigText,
);

/**
 * An immutable part the pool's group name is hashed over: while the pool has no group of the desired
 * shape, every group still serving it shows its value against the wanted one. Nothing is compared
 * when the spec leaves the value to EKS.
 */
export const immutablePart =
  (
    part: string,
    wanted: (shape: NodegroupShape) => string | readonly string[] | number | undefined,
    observed: (ng: ObservedNodegroup) => string | readonly string[] | number | undefined,
  ): PoolDrift =>
  (_ctx, { pool, shape, current, others }) => {
    const want = wanted(shape);
    if (current || want === undefined) return [];
    const text = (v: string | readonly string[] | number | undefined) =>
      typeof v === 'object' ? sorted(v) : String(v ?? '-');
    return others.flatMap((ng) =>
      diff(`${poolField(pool.name, part)} (node group ${ng.name})`, text(want), text(observed(ng))),
    );
  };
