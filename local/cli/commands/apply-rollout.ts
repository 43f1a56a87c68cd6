/**
 * `cloudorch apply -f` of CloudRollouts: each is checked against the fleet before anything is
 * written (its stages plan, its change applies to every cluster it selects, no other rollout holds
 * one of them, and a rollout under way is not changed underneath itself), then written and started.
 */
import { ExecutionAlreadyExists } from '@aws-sdk/client-sfn';
import type { RolloutPhase } from '../../../lambdas/core/rollout/status.js';
import { type RolloutControl, startRollout } from '../../../lambdas/handlers/rollout/control.js';
import type { RolloutRecord, RolloutStore } from '../../../lambdas/store/rollouts.js';
import type { Output } from '../format.js';
import type { SourcedRollout } from '../load.js';
import { type Fleet, previewRollout } from '../rollout-preview.js';

/** Phases in which an execution works on the rollout: a new spec would pull it from under it. */
export const ACTIVE_PHASES: readonly RolloutPhase[] = ['Pending', 'Running', 'AwaitingApproval', 'Soaking'];

const sameSpec = (r: RolloutRecord, raw: unknown) => JSON.stringify(r.spec) === JSON.stringify(raw);

/** Why one rollout cannot be applied, one line each; empty when it can. */
async function refusals(rollouts: RolloutStore, s: SourcedRollout, fleet: Fleet): Promise<string[]> {
  const { rollout, source } = s;
  const at = `${source}: cloudrollout/${rollout.id}`;
  const preview = previewRollout(rollout.spec, fleet);
  if (!preview.ok) return preview.errors.map((e) => `${at}: ${e}`);
  const lines: string[] = [];
  for (const id of preview.clusters.keys()) {
    const holder = await rollouts.holder(id);
    if (holder !== undefined && holder !== rollout.id)
      lines.push(
        `${at}: cluster ${id} is held by rollout ${holder}, which has not finished (wait for it, or cloudorch rollout abort ${holder})`,
      );
  }
  const old = await rollouts.get(rollout.id);
  const phase = old?.status?.phase;
  if (old && phase && ACTIVE_PHASES.includes(phase) && !sameSpec(old, rollout.raw))
    lines.push(
      `${at}: the rollout is ${phase} (generation ${old.generation}); abort it first (cloudorch rollout abort ${rollout.id}), then apply the new spec`,
    );
  return lines;
}

/** Every refusal of every rollout, so one apply reports all of them and writes nothing. */
export async function rolloutRefusals(
  rollouts: RolloutStore,
  list: readonly SourcedRollout[],
  fleet: Fleet,
): Promise<string[]> {
  const lines: string[] = [];
  for (const s of list) lines.push(...(await refusals(rollouts, s, fleet)));
  return lines;
}

/**
 * Starts the generation just written. An unchanged rollout that never started is started now (an
 * earlier apply wrote it but could not start it); one whose execution already ran is left alone.
 */
async function start(c: RolloutControl, id: string): Promise<string> {
  try {
    await startRollout(c, id);
    return 'started';
  } catch (err) {
    if (!(err instanceof ExecutionAlreadyExists)) throw err;
    return 'its execution already ran (cloudorch rollout describe)';
  }
}

/** Writes and starts each rollout, one line each. */
export async function applyRollouts(
  c: RolloutControl,
  o: Output,
  list: readonly SourcedRollout[],
): Promise<void> {
  for (const { rollout } of list) {
    if (Object.keys(rollout.labels).length > 0)
      o.err(
        `warning: cloudrollout/${rollout.id}: metadata.labels are not stored for a CloudRollout (only its spec is)`,
      );
    const r = await c.rollouts.put(rollout.id, rollout.raw as Record<string, unknown>, c.now());
    const gen = r.record.generation;
    const name = `cloudrollout/${rollout.id}`;
    if (r.changed) {
      o.out(
        `${name} ${r.created ? 'created' : 'configured'} (generation ${gen}), ${await start(c, rollout.id)}`,
      );
      continue;
    }
    const phase = r.record.status?.phase;
    if (phase === undefined) o.out(`${name} unchanged (generation ${gen}), ${await start(c, rollout.id)}`);
    else o.out(`${name} unchanged (generation ${gen}, ${phase})`);
  }
}
