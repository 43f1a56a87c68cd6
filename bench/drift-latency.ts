/**
 * Drift latency: an out-of-band change (a node group scaled behind CloudOrch's back) -> the
 * reconcile execution started, for both paths.
 * - Event path: the drift-event handler is called with the CloudTrail record right after the change
 *   (EventBridge's own delivery delay is not part of this measurement).
 * - Schedule path: the sweep runs on a timer with a short local period; the change lands at a
 *   seeded random phase of it. Latency = phase + the sweep reaching the cluster.
 *
 * Run: `npm run bench:drift` (optional argument: drifts per path, default 20).
 */
import './lib/env.js';
import { onDriftEvent } from '../lambdas/handlers/triggers/drift-event.js';
import { SimAdminClient } from '../local/eks-sim/index.js';
import { Prng } from '../local/eks-sim/model.js';
import type { ControlPlane } from '../local/runtime/control-plane.js';
import { type Member, members } from './lib/fleet.js';
import { converge, executionsOf, startBench } from './lib/pipeline.js';
import { now } from './lib/probes.js';
import { fmt, run, section, summarize, summaryLine } from './lib/stats.js';

const drifts = Number(process.argv[2] ?? 20);
const SWEEP_PERIOD_MS = 2_000;
const DEPLOYED_PERIOD_S = 300;

/** Scales the member's node group to `size` in the simulator, behind CloudOrch's back. */
function drift(cp: ControlPlane, f: Member, size: number): Promise<unknown> {
  const ng = [...cp.sim.state.cluster(f.region, f.name).nodegroups.keys()][0]!;
  return new SimAdminClient(cp.endpoints.eks, f.region).driftNodegroup(f.name, ng, {
    scaling: { desiredSize: size, maxSize: size },
  });
}

/** When the first execution of `trigger` for the record started at or after `since`, if any has. */
function startedAfter(cp: ControlPlane, id: string, since: number, trigger: string): number | undefined {
  return executionsOf(cp, id, since - 1).find((e) => e.name.includes(`-${trigger}-`))?.startedAt;
}

/** The drift-event handler is called right after each change, as EventBridge would deliver it. */
async function eventPath(cp: ControlPlane, fleet: readonly Member[]): Promise<void> {
  const event: number[] = [];
  const converged: number[] = [];
  for (let i = 0; i < drifts; i++) {
    const f = fleet[i % fleet.length]!;
    await drift(cp, f, 6);
    const t0 = now();
    const r = await onDriftEvent({
      detail: {
        eventSource: 'eks.amazonaws.com',
        eventName: 'UpdateNodegroupConfig',
        awsRegion: f.region,
        userIdentity: { arn: 'arn:aws:iam::000000000000:user/someone' },
        requestParameters: { clusterName: f.name },
      },
    });
    if (!r.started) throw new Error(`drift event did not start a reconcile: ${r.why}`);
    await cp.settle();
    const started = startedAfter(cp, f.id, t0, 'drift');
    if (started === undefined) throw new Error(`no drift execution for ${f.id}`);
    event.push(started - t0);
    converged.push(now() - t0);
  }
  console.log(`event path (drift-event handler right after the change, ${drifts} drifts):`);
  console.log(`  change -> execution started: ${summaryLine(summarize(event), fmt.ms)}`);
  console.log(`  change -> converged again:   ${summaryLine(summarize(converged), fmt.ms)}`);
}

/** Runs the sweep every period until stopped, as EventBridge Scheduler does (a tick is skipped while one runs). */
function sweepOnTimer(cp: ControlPlane): () => Promise<void> {
  let sweeping = false;
  const timer = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    void cp.sweepNow().finally(() => {
      sweeping = false;
    });
  }, SWEEP_PERIOD_MS);
  return async () => {
    clearInterval(timer);
    while (sweeping) await new Promise((r) => setTimeout(r, 20));
  };
}

/** Each change lands at a seeded random phase of the sweep period; latency runs until the sweep starts one. */
async function schedulePath(cp: ControlPlane, fleet: readonly Member[], rng: Prng): Promise<void> {
  const stop = sweepOnTimer(cp);
  const schedule: number[] = [];
  for (let i = 0; i < drifts; i++) {
    const f = fleet[(i + 7) % fleet.length]!;
    await new Promise((r) => setTimeout(r, Math.floor(rng.next() * SWEEP_PERIOD_MS)));
    await drift(cp, f, 7);
    const t0 = now();
    let started: number | undefined;
    for (let wait = 0; started === undefined && wait < 100; wait++) {
      await new Promise((r) => setTimeout(r, 50));
      started = startedAfter(cp, f.id, t0, 'sweep');
    }
    if (started === undefined) throw new Error(`the sweep did not pick up ${f.id} within 5 s`);
    await cp.settle();
    schedule.push(started - t0);
  }
  await stop();
  const s = summarize(schedule);
  console.log(
    `schedule path (sweep every ${fmt.s(SWEEP_PERIOD_MS)} locally, ${drifts} drifts at random phases):`,
  );
  console.log(`  change -> execution started: ${summaryLine(s, fmt.ms)}`);
  console.log(
    `  in AWS (computed): the deployed period is ${DEPLOYED_PERIOD_S} s, so the phase alone is uniform in ` +
      `0-${DEPLOYED_PERIOD_S} s (median ${DEPLOYED_PERIOD_S / 2} s), plus the time the sweep takes to reach ` +
      'the cluster (see the sweep section: its position in the scan at the configured EKS rate)',
  );
}

async function main(): Promise<void> {
  section('Drift latency: out-of-band change -> reconcile started');
  const { cp, m } = await startBench();
  try {
    const fleet = members('drift', 0, 20);
    await converge(cp, m, fleet);
    const rng = new Prng(3);
    await eventPath(cp, fleet);
    await schedulePath(cp, fleet, rng);
  } finally {
    await cp.stop();
  }
}

run(main);
