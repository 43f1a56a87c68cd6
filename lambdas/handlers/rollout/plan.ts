/**
 * The Plan step of a rollout: validate the spec, pick the clusters and split them into stages,
 * preview the change on every one of them, lock them against a second rollout, and freeze the stages
 * on the record. A resumed execution of the same generation reuses the frozen stages, so a cluster
 * labelled meanwhile does not move between stages halfway through. Nothing is written to a cluster
 * here: a spec that fails for any cluster stops the rollout before it starts.
 */
import { PermanentError } from '../../core/errors.js';
import { previewChange } from '../../core/rollout/change.js';
import { validateRolloutSpec } from '../../core/rollout/schema.js';
import { planStages } from '../../core/rollout/stages.js';
import { initialStatus, plannedOf, resumed } from '../../core/rollout/transitions.js';
import type { ClusterRecord } from '../../store/types.js';
import { depsOf } from '../deps.js';
import type { RolloutPlanInput, RolloutPlanOutput } from './contracts.js';
import { RolloutConflictError, readRollout } from './read.js';

const FIX = 'Fix the rollout (or the clusters), apply it again, and `cloudorch rollout resume` it.';

async function allClusters(): Promise<ClusterRecord[]> {
  const { store } = depsOf('rolloutPlan');
  const out: ClusterRecord[] = [];
  let next: string | undefined;
  do {
    const page = await store.scanSegment(0, 1, next ? { next } : {});
    out.push(...page.records);
    next = page.next;
  } while (next);
  return out;
}

export async function rolloutPlanStep(input: RolloutPlanInput): Promise<RolloutPlanOutput> {
  const { rollouts, now } = depsOf('rolloutPlan');
  const rec = await readRollout(rollouts, input.id);
  const v = validateRolloutSpec(rec.spec);
  if (!v.ok)
    throw new PermanentError(
      `rollout ${rec.id}: ${v.issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`,
      {
        remediation: FIX,
      },
    );
  const frozen = rec.status?.generation === rec.generation ? plannedOf(rec.status) : undefined;
  const stages = frozen ?? (await freshStages(rec.id, v.spec));
  const clusters = stages.flatMap((s) => s.clusters);
  const lock = await rollouts.lock(rec.id, clusters, now());
  if (lock.held) throw new RolloutConflictError(rec.id, lock.held.cluster, lock.held.by);
  await rollouts.update(
    rec.id,
    (r) => ({
      status: frozen && r.status ? resumed(r.status, now()) : initialStatus(r.generation, stages, now()),
      attempt: r.attempt + 1,
      executionArn: input.executionArn,
      clear: ['approval'],
    }),
    now(),
  );
  return { id: rec.id, generation: rec.generation, stages };
}

async function freshStages(id: string, spec: Parameters<typeof planStages>[0]) {
  const records = await allClusters();
  const planned = planStages(
    spec,
    records.map((r) => ({ id: r.id, labels: r.labels ?? {} })),
  );
  if (!planned.ok) throw new PermanentError(`rollout ${id}: ${planned.error}`, { remediation: FIX });
  const byId = new Map(records.map((r) => [r.id, r]));
  const problems: string[] = [];
  for (const cluster of planned.stages.flatMap((s) => s.clusters)) {
    const record = byId.get(cluster);
    if (record?.deletionRequestedAt) problems.push(`${cluster}: its deletion was requested`);
    const p = previewChange(cluster, record?.spec ?? {}, spec.change);
    if (!p.ok) problems.push(...p.issues.map((i) => `${i.field}: ${i.message}`));
  }
  if (problems.length > 0)
    throw new PermanentError(
      `rollout ${id}: the change does not apply to every cluster: ${problems.join('; ')}`,
      {
        remediation: FIX,
      },
    );
  return planned.stages;
}
