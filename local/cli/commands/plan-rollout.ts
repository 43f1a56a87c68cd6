/**
 * `cloudorch plan -f` of CloudRollouts: the whole rollout previewed without writing anything. Its
 * stages in order with their clusters, concurrency, soak and approval; for each cluster the fields
 * the change alters, then the cluster's own plan, cost delta and policy verdict for the merged spec,
 * exactly as `plan` shows a CloudCluster. What would stop `apply` (a stage that plans to nothing, a
 * change that does not fit a cluster, a cluster another rollout holds) makes it exit 3.
 */
import { formatDuration } from '../../../lambdas/core/duration.js';
import type { CloudClusterManifest } from '../../../lambdas/core/manifest.js';
import type { FailurePolicy } from '../../../lambdas/core/rollout/failure-policy.js';
import type { PlannedStage } from '../../../lambdas/core/rollout/stages.js';
import type { EnginePolicy } from '../../../lambdas/handlers/clients/policy.js';
import { type Output, paint } from '../format.js';
import type { SourcedRollout } from '../load.js';
import { type ClusterPreview, fleetOf, previewRollout } from '../rollout-preview.js';
import { RolloutSettingError } from '../rollout-target.js';
import { showValue, specChanges } from '../spec-diff.js';
import type { Target } from '../target.js';
import { rolloutRefusals } from './apply-rollout.js';
import { EXIT } from './exit.js';
import { planCluster } from './plan.js';

const plural = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

function policyLine(p: FailurePolicy): string {
  const alarms = p.alarms.length > 0 ? p.alarms.join(', ') : 'none';
  return `  failure policy: at most ${p.maxFailures} failed, Ready within ${formatDuration(p.readyTimeoutSeconds)}, healthy for ${formatDuration(p.healthWindowSeconds)}, alarms ${alarms}`;
}

function stageLine(s: PlannedStage, i: number, total: number): string {
  const soak = s.soakSeconds > 0 ? formatDuration(s.soakSeconds) : 'none';
  return `  stage ${i + 1}/${total} ${s.name}: ${plural(s.clusters.length, 'cluster')}, concurrency ${s.maxConcurrency}, soak ${soak}, approval ${s.approval}`;
}

/** One cluster of a stage: what the change alters, then its plan for the merged spec. */
async function clusterSection(
  t: Target,
  o: Output,
  policy: EnginePolicy,
  p: ClusterPreview,
): Promise<number> {
  const { member, merged } = p;
  if (p.satisfied) {
    o.out(`    ${member.id}: already has the change (the rollout counts it done, writes nothing)`);
    return EXIT.ok;
  }
  o.out(`    ${member.id}: the change sets`);
  for (const c of specChanges(member.spec, merged))
    o.out(`      ${c.field}: ${showValue(c.from)} -> ${showValue(c.to)}`);
  const subject = { id: member.id, spec: merged, generation: member.generation + 1 };
  return planCluster(t, o, policy, subject, '      ');
}

/** Locks and phases need the rollout table; a target without one says so instead of guessing. */
async function refusalsOrNote(
  t: Target,
  o: Output,
  s: SourcedRollout,
  fleet: Awaited<ReturnType<typeof fleetOf>>,
) {
  try {
    return await rolloutRefusals(t.rollouts.store(), [s], fleet);
  } catch (err) {
    if (!(err instanceof RolloutSettingError)) throw err;
    o.err(`warning: other rollouts' locks were not checked: ${err.message}`);
    return [];
  }
}

async function planOne(
  t: Target,
  o: Output,
  policy: EnginePolicy,
  s: SourcedRollout,
  fleet: Awaited<ReturnType<typeof fleetOf>>,
): Promise<number> {
  const { spec, id } = s.rollout;
  o.out(`cloudrollout/${id}:`);
  const preview = previewRollout(spec, fleet);
  const refused = preview.ok ? await refusalsOrNote(t, o, s, fleet) : preview.errors;
  if (!preview.ok || refused.length > 0) {
    for (const e of refused)
      o.out(paint(o, 'yellow', `  cannot run: ${e.replace(`${s.source}: cloudrollout/${id}: `, '')}`));
    return EXIT.blocked;
  }
  o.out(policyLine(spec.failurePolicy));
  let code: number = EXIT.ok;
  for (const [i, stage] of preview.stages.entries()) {
    o.out(stageLine(stage, i, preview.stages.length));
    for (const cluster of stage.clusters) {
      const p = preview.clusters.get(cluster);
      if (p) code = Math.max(code, await clusterSection(t, o, policy, p));
    }
  }
  return code;
}

/** Every rollout's preview, over the fleet with the CloudClusters of the same files in place. */
export async function planRollouts(
  t: Target,
  o: Output,
  policy: EnginePolicy,
  rollouts: readonly SourcedRollout[],
  manifests: readonly CloudClusterManifest[],
): Promise<number> {
  const fleet = await fleetOf(t.store, manifests);
  let code: number = EXIT.ok;
  for (const s of rollouts) code = Math.max(code, await planOne(t, o, policy, s, fleet));
  return code;
}
