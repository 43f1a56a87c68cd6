/**
 * ApplyChange for one cluster of a stage: unless the rollout halted or was aborted, write the change
 * as the cluster's next generation (the reconcile that follows is the cluster's usual one) and mark
 * the cluster in progress. A cluster that already has the change gets no write and is watched at its
 * current generation; one that succeeded in an earlier attempt of this generation is done.
 */
import { PermanentError } from '../../core/errors.js';
import { changeSatisfied, previewChange } from '../../core/rollout/change.js';
import { validateRolloutSpec } from '../../core/rollout/schema.js';
import { clusterOf, stopReason, withCluster } from '../../core/rollout/transitions.js';
import { validateSpec } from '../../core/spec/validate.js';
import { depsOf } from '../deps.js';
import type { ClusterRun, ClusterStepInput } from './contracts.js';
import { readRollout } from './read.js';

const SPEC_FIX = 'Fix the rollout or the cluster, then `cloudorch rollout resume`.';

export async function rolloutApplyStep(input: ClusterStepInput): Promise<ClusterRun> {
  const { rollouts, store, now } = depsOf('rolloutApply');
  const rec = await readRollout(rollouts, input.id);
  const stop = stopReason(rec, input.generation);
  if (stop) {
    await rollouts.update(
      rec.id,
      (r) =>
        r.status && clusterOf(r.status, input.stage, input.cluster)?.state === 'pending'
          ? { status: withCluster(r.status, input.stage, input.cluster, { state: 'skipped', reason: stop }) }
          : undefined,
      now(),
    );
    return { state: 'skipped', reason: stop };
  }
  if (rec.status && clusterOf(rec.status, input.stage, input.cluster)?.state === 'succeeded')
    return { state: 'done' };
  const spec = validateRolloutSpec(rec.spec);
  if (!spec.ok)
    throw new PermanentError(`rollout ${rec.id}: its spec no longer validates`, { remediation: SPEC_FIX });
  const cluster = await store.get(input.cluster);
  if (!cluster)
    throw new PermanentError(`cluster ${input.cluster} has no record any more`, { remediation: SPEC_FIX });
  let generation = cluster.generation;
  if (!changeSatisfied(cluster.spec, spec.spec.change)) {
    const p = previewChange(cluster.id, cluster.spec, spec.spec.change);
    if (!p.ok)
      throw new PermanentError(p.issues.map((i) => `${i.field}: ${i.message}`).join('; '), {
        remediation: SPEC_FIX,
      });
    const valid = validateSpec(p.spec);
    if (!valid.ok)
      throw new PermanentError(
        valid.issues.map((i) => `${cluster.id}: ${i.field}: ${i.message}`).join('; '),
        {
          remediation: SPEC_FIX,
        },
      );
    // Version-checked: a spec someone applied since the read is never overwritten with an old one.
    const written = await store.applySpec(cluster.id, valid.spec, {
      expectedVersion: cluster.version,
      now: now(),
      rollout: { id: rec.id, generation: rec.generation, stage: input.stage },
    });
    generation = written.record.generation;
  }
  const startedAtMs = now().getTime();
  await rollouts.update(
    rec.id,
    (r) =>
      r.status
        ? {
            status: withCluster(r.status, input.stage, input.cluster, {
              state: 'inProgress',
              generation,
              startedAt: new Date(startedAtMs).toISOString(),
            }),
          }
        : undefined,
    now(),
  );
  return { state: 'started', generation, startedAtMs };
}
