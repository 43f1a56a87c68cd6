/**
 * The demo's rollout: one tag change rolled across the Ready example clusters in two stages, the
 * first a single canary with an approval after it. The demo prints the approval command, then
 * approves it as a person would, and prints when each stage started and finished. Every figure is
 * read from the rollout's record.
 */
import { SFNClient } from '@aws-sdk/client-sfn';
import type { RolloutStatus } from '../../lambdas/core/rollout/status.js';
import { approveRollout, type RolloutControl, startRollout } from '../../lambdas/handlers/rollout/control.js';
import type { ClusterRecord } from '../../lambdas/store/types.js';
import type { CallCounts } from '../eks-sim/admin.js';
import { LOCAL_REGION } from '../runtime/control-plane.js';
import { LOCAL_CREDENTIALS } from '../runtime/credentials.js';
import type { DevHandle } from './dev.js';

export const DEMO_ROLLOUT = 'platform/demo-tag-rollout';
type Log = (line: string) => void;
type Until = <T>(what: string, f: () => Promise<T | undefined>) => Promise<T>;

function control(dev: DevHandle, sfn: SFNClient): RolloutControl {
  return {
    rollouts: dev.cp.deps.rollouts,
    sfn,
    stateMachineArn: dev.cp.rolloutStateMachineArn,
    now: () => new Date(),
    reconcile: (id) => dev.cp.reconcile(id),
  };
}

const stageLine = (s: RolloutStatus['stages'][number]) => {
  const ok = s.clusters.filter((c) => c.state === 'succeeded').length;
  return `${s.name}: ${s.state}, ${ok}/${s.clusters.length} clusters succeeded${s.startedAt ? ` (started ${s.startedAt.slice(11, 19)}, finished ${s.finishedAt?.slice(11, 19) ?? '-'})` : ''}`;
};

/** Runs the rollout; returns the simulator's call counts from just before it, to count its calls. */
export async function demoRollout(
  dev: DevHandle,
  all: readonly ClusterRecord[],
  log: Log,
  until: Until,
): Promise<CallCounts> {
  const callsBefore = await dev.cp.simAdmin.calls();
  const ready = all
    .filter((r) => r.status?.ready)
    .map((r) => r.id)
    .sort();
  const [canary, ...rest] = ready;
  if (!canary || rest.length === 0) throw new Error('demo: a rollout needs two Ready example clusters');
  log(
    `\n4. roll a tag change across the ${ready.length} Ready clusters: ${canary} first, approval, then the rest at 50%`,
  );
  const sfn = new SFNClient({
    endpoint: dev.cp.endpoints.sfn,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  try {
    const c = control(dev, sfn);
    await dev.cp.deps.rollouts.put(
      DEMO_ROLLOUT,
      {
        clusters: ready,
        change: { tags: { rollout: 'demo' } },
        stages: [
          { name: 'canary', clusters: [canary], approval: 'after', soak: '2s' },
          { name: 'rest', maxConcurrency: '50%' },
        ],
        failurePolicy: { healthWindow: '2s' },
      },
      new Date(),
    );
    await startRollout(c, DEMO_ROLLOUT);
    const waiting = await until(
      'the canary approval',
      async () => (await dev.cp.deps.rollouts.get(DEMO_ROLLOUT))?.approval,
    );
    log(
      `   canary done; the rollout waits: cloudorch rollout approve ${DEMO_ROLLOUT} --stage ${waiting.stage}`,
    );
    log(`   the demo approves it now: ${await approveRollout(c, DEMO_ROLLOUT, waiting.stage)}`);
    const done = await until('the rollout to finish', async () => {
      const s = (await dev.cp.deps.rollouts.get(DEMO_ROLLOUT))?.status;
      return s && ['Completed', 'Halted', 'Aborted'].includes(s.phase) ? s : undefined;
    });
    for (const s of done.stages) log(`   ${stageLine(s)}`);
    log(`   rollout ${DEMO_ROLLOUT}: ${done.phase}${done.halt ? ` (${done.halt.reason})` : ''}`);
    if (done.phase !== 'Completed') throw new Error(`demo: the rollout ended ${done.phase}`);
    return callsBefore;
  } finally {
    sfn.destroy();
  }
}
