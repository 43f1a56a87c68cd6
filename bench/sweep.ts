/**
 * Sweep benchmark: 1,000 and 10,000 converged clusters (1% drifted) over 10 regions, one sweep run
 * each against the EKS simulator. Prints wall time, EKS requests, calls per observe, and per region
 * the largest number of requests in any 1-second window against the configured rate.
 *
 * Run: `npm run bench:sweep` (optional arguments: fleet sizes, default 1000 10000).
 * BENCH_SWEEP_RATE sets the EKS calls per second per region (default 40).
 */
import './lib/env.js';
import { type Deps, deps, setDeps } from '../lambdas/handlers/deps.js';
import { OBSERVE_CALLS } from '../lambdas/handlers/triggers/sweep-decide.js';
import { startControlPlane } from '../local/runtime/control-plane.js';
import type { LocalSweepReport } from '../local/runtime/local-sweep.js';
import { convergeTemplate, type Member, members, REGIONS, seedFleet } from './lib/fleet.js';
import { maxInWindow, meter, now } from './lib/probes.js';
import { fmt, run, section, summarize, summaryLine, table } from './lib/stats.js';

const RATE = Number(process.env.BENCH_SWEEP_RATE ?? 40);
const CONCURRENCY = 32;
const sizes = process.argv.slice(2).map(Number);
if (sizes.length === 0) sizes.push(1_000, 10_000);

async function main(): Promise<void> {
  section('Sweep: one run over a converged fleet');
  console.log(
    `config: ${REGIONS.length} regions, eksCallsPerSecond ${RATE} per region, concurrency ${CONCURRENCY}, ` +
      `OBSERVE_CALLS ${OBSERVE_CALLS}; 1% of clusters drifted (node group scaled out of band)`,
  );
  const cp = await startControlPlane({
    simSpeed: 4000,
    waitScale: 0.002,
    retryIntervalMs: 5,
    eksCallsPerSecond: RATE,
  });
  try {
    const m = meter(cp);
    const tpl = await convergeTemplate(cp, m);
    // Executions the sweep asks for are recorded, not run: every EKS request in the window is the sweep's.
    const started = new Map<string, number>();
    const recorder: Deps['executions'] = {
      async start(_name, input) {
        started.set(input.id, now());
        return { started: true };
      },
      status: async () => ({ state: 'unknown' }),
    };
    setDeps({ ...deps(), executions: recorder });
    let seeded = 0;
    for (const size of sizes) {
      const t0 = now();
      await seedFleet(cp, m, tpl, members('c', seeded, size));
      seeded = size;
      const seedMs = now() - t0;
      const fleet = members('c', 0, size);
      const drifted = fleet.filter((_, i) => i % 100 === 50);
      for (const d of drifted) setDesired(cp.sim.state.cluster(d.region, d.name), 5);
      m.eks.clear();
      m.meter.reset();
      started.clear();
      const s0 = now();
      const report = await cp.sweepNow({ periodSeconds: 300, concurrency: CONCURRENCY });
      const wallMs = now() - s0;
      for (const d of drifted) setDesired(cp.sim.state.cluster(d.region, d.name), 2);
      printRun(size, seedMs, wallMs, report, m, drifted, started, s0);
    }
  } finally {
    await cp.stop();
  }
}

function setDesired(
  c: { nodegroups: Map<string, { scaling: { desiredSize: number; maxSize: number } }> },
  n: number,
) {
  for (const ng of c.nodegroups.values()) ng.scaling = { ...ng.scaling, desiredSize: n, maxSize: n };
}

function printRun(
  size: number,
  seedMs: number,
  wallMs: number,
  report: LocalSweepReport,
  m: ReturnType<typeof meter>,
  drifted: readonly Member[],
  started: ReadonlyMap<string, number>,
  s0: number,
): void {
  const reqs = m.eks.requests;
  const perCluster = new Map<string, number>();
  for (const r of reqs) perCluster.set(r.cluster ?? '?', (perCluster.get(r.cluster ?? '?') ?? 0) + 1);
  const histogram = new Map<number, number>();
  for (const n of perCluster.values()) histogram.set(n, (histogram.get(n) ?? 0) + 1);
  const rows: string[][] = [
    ['region', 'requests', 'max in any 1 s', 'after the 1st s', 'configured', 'verdict', 'mean rate'],
  ];
  let exceeded = 0;
  for (const region of REGIONS) {
    const times = reqs.filter((r) => r.region === region).map((r) => r.at);
    const max1 = maxInWindow(times, 1000);
    // The bucket starts full (burst = rate): the first second may carry burst + refill.
    const first = Math.min(...times);
    const steady = maxInWindow(
      times.filter((t) => t >= first + 1000),
      1000,
    );
    const span = times.length > 1 ? (Math.max(...times) - Math.min(...times)) / 1000 : 0;
    if (max1 > RATE) exceeded++;
    rows.push([
      region,
      fmt.int(times.length),
      fmt.int(max1),
      fmt.int(steady),
      fmt.int(RATE),
      max1 <= RATE ? 'within' : 'EXCEEDED',
      `${fmt.num(span > 0 ? times.length / span : 0, 1)}/s`,
    ]);
  }
  const detect = drifted.map((d) => (started.get(d.id) ?? Number.NaN) - s0);
  console.log(`\n--- ${fmt.int(size)} clusters ---`);
  console.log(`seeded in ${fmt.s(seedMs)} (BatchWriteItem + simulator state)`);
  console.log(
    `sweep wall time ${fmt.s(wallMs)}: scanned ${fmt.int(report.scanned)}, executions requested ${report.started}, errors ${report.errors}; ${fmt.num((report.scanned / wallMs) * 1000, 0)} clusters/s`,
  );
  console.log(
    `EKS requests ${fmt.int(reqs.length)} (${fmt.num(reqs.length / report.scanned, 2)} per cluster); DynamoDB ${fmt.num(m.meter.readUnits, 1)} read units for the scan`,
  );
  console.log(
    `calls per observe: ${[...histogram].map(([calls, n]) => `${calls} calls x ${fmt.int(n)} clusters`).join(', ')} (the limiter charges every HTTP attempt)`,
  );
  console.log(
    `drifted clusters found: ${drifted.filter((d) => started.has(d.id)).length}/${drifted.length}, after ${summaryLine(summarize(detect), fmt.s)} from the sweep's start`,
  );
  console.log(table(rows));
  console.log(
    exceeded === 0
      ? `rate: no region exceeded ${RATE} requests in any 1-second window`
      : `rate: ${exceeded} of ${REGIONS.length} regions exceeded ${RATE} requests in some 1-second window`,
  );
}

run(main);
