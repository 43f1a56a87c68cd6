/**
 * What a CloudRollout would do, decided as its Plan step decides it, before anything is written: its
 * stages over the fleet's records (with the CloudClusters of the same apply in place of theirs), and
 * the change merged into each selected cluster's spec. Every refusal names the cluster and the field.
 */
import { InternalError } from '../../lambdas/core/errors.js';
import type { Labels } from '../../lambdas/core/labels.js';
import type { CloudClusterManifest } from '../../lambdas/core/manifest.js';
import { changeSatisfied, previewChange } from '../../lambdas/core/rollout/change.js';
import type { RolloutSpec } from '../../lambdas/core/rollout/schema.js';
import { type PlannedStage, planStages } from '../../lambdas/core/rollout/stages.js';
import type { CloudClusterSpec } from '../../lambdas/core/spec/schema.js';
import { validateSpec } from '../../lambdas/core/spec/validate.js';
import { listItems } from '../../lambdas/store/list.js';
import type { DesiredStateStore } from '../../lambdas/store/types.js';

/** One cluster as a rollout would see it. */
export interface FleetMember {
  readonly id: string;
  readonly labels: Labels;
  readonly spec: CloudClusterSpec;
  /** The stored generation (0 for a cluster this apply creates). */
  readonly generation: number;
  readonly deletionRequested: boolean;
}

export type Fleet = ReadonlyMap<string, FleetMember>;

/**
 * The records (malformed items left out, as the Plan step's scan leaves them), each replaced by the
 * manifest of the same id when one is applied together with the rollout.
 */
export async function fleetOf(
  store: Pick<DesiredStateStore, 'scanSegment'>,
  manifests: readonly CloudClusterManifest[] = [],
): Promise<Fleet> {
  const fleet = new Map<string, FleetMember>();
  for (const r of (await listItems(store)).records)
    fleet.set(r.id, {
      id: r.id,
      labels: r.labels ?? {},
      spec: r.spec,
      generation: r.generation,
      deletionRequested: r.deletionRequestedAt !== undefined,
    });
  for (const m of manifests) {
    const old = fleet.get(m.id);
    fleet.set(m.id, {
      id: m.id,
      labels: m.labels,
      spec: m.spec,
      generation: old?.generation ?? 0,
      deletionRequested: old?.deletionRequested ?? false,
    });
  }
  return fleet;
}

/** One selected cluster: its spec now and with the change merged in. */
export interface ClusterPreview {
  readonly member: FleetMember;
  readonly merged: CloudClusterSpec;
  /** The cluster already has what the change sets: the rollout counts it done without a write. */
  readonly satisfied: boolean;
}

export type RolloutPreview =
  | {
      readonly ok: true;
      readonly stages: PlannedStage[];
      readonly clusters: ReadonlyMap<string, ClusterPreview>;
    }
  | { readonly ok: false; readonly errors: string[] };

function previewOne(member: FleetMember, spec: RolloutSpec): ClusterPreview | string[] {
  if (member.deletionRequested) return [`${member.id}: its deletion was requested`];
  const p = previewChange(member.id, member.spec, spec.change);
  if (!p.ok) return p.issues.map((i) => i.message);
  const v = validateSpec(p.spec);
  if (!v.ok) return v.issues.map((i) => `${member.id}: ${i.message}`);
  return { member, merged: v.spec, satisfied: changeSatisfied(member.spec, spec.change) };
}

/** The stages and every cluster's merged spec, or every reason the rollout cannot run on this fleet. */
export function previewRollout(spec: RolloutSpec, fleet: Fleet): RolloutPreview {
  const members = [...fleet.values()];
  const planned = planStages(
    spec,
    members.map((m) => ({ id: m.id, labels: m.labels })),
  );
  if (!planned.ok) return { ok: false, errors: [planned.error] };
  const clusters = new Map<string, ClusterPreview>();
  const errors: string[] = [];
  for (const id of planned.stages.flatMap((s) => s.clusters)) {
    const member = fleet.get(id);
    if (!member) throw new InternalError(`planStages returned ${id}, which is not in the fleet`);
    const p = previewOne(member, spec);
    if (Array.isArray(p)) errors.push(...p);
    else clusters.set(id, p);
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, stages: planned.stages, clusters };
}
