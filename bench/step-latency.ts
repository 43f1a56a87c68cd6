/**
 * Step latency through the local state machine (the production definition on the local Step
 * Functions endpoint, real handlers, real store, EKS simulator): one reconcile pass is Observe ->
 * Plan -> PolicyCheck -> ApplyStep -> RecordProgress (or -> WriteStatus at the end); Wait states
 * (the simulated time EKS works) fall between passes and are excluded. Measured one execution at a
 * time, then with 20 executions at once.
 *
 * Run: `npm run bench:step` (optional argument: sequential changes, default 40).
 */
import './lib/env.js';
import type { StepFunctionKey } from '../lambdas/statemachine/definition.js';
import { benchSpec, members } from './lib/fleet.js';
import { converge, executionsOf, passes, startBench, waitMs } from './lib/pipeline.js';
import { now, stepProbe } from './lib/probes.js';
import { fmt, run, section, summarize, summaryLine, table } from './lib/stats.js';

const changes = Number(process.argv[2] ?? 40);
const SEED_REQUIREMENT_MS = 2_000;

async function main(): Promise<void> {
  section('Step latency: one reconcile pass through the local state machine, Waits excluded');
  const { cp, m } = await startBench();
  try {
    const fleet = members('step', 0, 20);
    await converge(cp, m, fleet);
    const measure = async (label: string, batches: (typeof fleet)[]) => {
      const applyPasses: number[] = [];
      const finalPasses: number[] = [];
      const busy: number[] = [];
      stepProbe.calls.length = 0;
      let n = 0;
      for (const batch of batches) {
        const since = now() - 1;
        for (const f of batch) {
          n++;
          await m.store.applySpec(f.id, benchSpec(f.name, f.region, { nodeCount: 2 + (n % 3) + 1 }));
        }
        await cp.settle();
        for (const f of batch) {
          for (const e of executionsOf(cp, f.id, since)) {
            for (const p of passes(e.events)) {
              if (p.kind === 'final') finalPasses.push(p.ms);
              if (p.kind === 'apply') applyPasses.push(p.ms);
            }
            const events = e.events;
            busy.push(events[events.length - 1]!.timestamp - events[0]!.timestamp - waitMs(events));
          }
        }
      }
      const apply = summarize(applyPasses);
      console.log(`\n${label}`);
      console.log(`  pass with an EKS call (Observe..RecordProgress): ${summaryLine(apply, fmt.ms)}`);
      console.log(
        `  final pass (Observe..WriteStatus):              ${summaryLine(summarize(finalPasses), fmt.ms)}`,
      );
      console.log(
        `  whole execution minus Waits:                    ${summaryLine(summarize(busy), fmt.ms)}`,
      );
      const rows = [['step handler (in-process)', 'invocations', 'median', 'p99']];
      const keys = [...new Set(stepProbe.calls.map((c) => c.key))] as StepFunctionKey[];
      for (const k of keys) {
        const s = summarize(stepProbe.calls.filter((c) => c.key === k).map((c) => c.ms));
        rows.push([k, String(s.n), fmt.ms(s.median), fmt.ms(s.p99)]);
      }
      console.log(table(rows).replace(/^/gm, '  '));
      return apply;
    };
    const sequential = await measure(
      `one execution at a time (${changes} node-count changes):`,
      Array.from({ length: changes }, (_, i) => [fleet[i % fleet.length]!]),
    );
    await measure('20 executions at once (20 changes, 2 cores shared):', [fleet]);
    console.log(
      `\nseed requirement: median pass under ${fmt.ms(SEED_REQUIREMENT_MS)}: ${
        sequential.median < SEED_REQUIREMENT_MS ? 'met' : 'NOT met'
      } (${fmt.ms(sequential.median)}, ${fmt.num(SEED_REQUIREMENT_MS / sequential.median, 0)}x below)`,
    );
  } finally {
    await cp.stop();
  }
}

run(main);
