/**
 * Cost model. A simulated day (288 sweeps, 5 minutes apart on the reconciler's clock) runs for a
 * sample fleet through the real pipeline, with one spec change and one out-of-band drift per 10
 * clusters per day. Everything AWS bills is counted there; the month is 30 such days, scaled
 * linearly to 10, 100, 1,000 and 10,000 clusters, and priced with AWS's published prices. Beside it,
 * the naive design: one state machine execution per cluster per check, measured the same way.
 *
 * Run: `npm run bench:cost` (optional argument: sample size, default 10).
 */
import './lib/env.js';
import { STREAM_FILTER } from '../infra/lib/triggers.js';
import { FUNCTIONS } from '../lambdas/functions/catalog.js';
import { reconcileNow } from '../lambdas/handlers/triggers/reconcile-now.js';
import { OBSERVE_CALLS, sweep } from '../lambdas/handlers/triggers/sweep.js';
import type { StepFunctionKey } from '../lambdas/statemachine/definition.js';
import { SimAdminClient } from '../local/eks-sim/index.js';
import { Prng } from '../local/eks-sim/model.js';
import type { ControlPlane } from '../local/runtime/control-plane.js';
import { benchSpec, members } from './lib/fleet.js';
import { converge, startBench, transitions } from './lib/pipeline.js';
import { origin, stepProbe } from './lib/probes.js';
import { fmt, run, section, table } from './lib/stats.js';

const SAMPLE = Number(process.argv[2] ?? 10);
const CHECKS_PER_DAY = 288; // every 5 minutes
const DAYS = 30;
const FLEETS = [10, 100, 1_000, 10_000];
const MUTATING = /^(Create|Update|Delete|Tag|Untag)/;

/** us-east-1, arm64, no free tier; the same prices as docs/deploy.md. */
const PRICE = {
  lambdaGbSecond: 0.0000133334, // https://aws.amazon.com/lambda/pricing/ (arm64, first 6B GB-s)
  lambdaRequest: 0.2 / 1e6, // https://aws.amazon.com/lambda/pricing/
  transition: 0.025 / 1000, // https://aws.amazon.com/step-functions/pricing/ (Standard)
  writeUnit: 0.625 / 1e6, // https://aws.amazon.com/dynamodb/pricing/on-demand/
  readUnit: 0.125 / 1e6, // https://aws.amazon.com/dynamodb/pricing/on-demand/
} as const;
/** The sweep's deployed defaults (infra/lib/cloudorch.ts) and what EKS allows per region. */
const SWEEP = { memoryGb: FUNCTIONS.sweep.memoryMb / 1024, callsPerSecond: 5, periodS: 300 };

/** What one simulated period (a day, or one naive check) produced. */
interface Counts {
  invocations: Record<string, number>;
  gbSeconds: number;
  transitions: number;
  readUnits: number;
  writeUnits: number;
  eksCalls: number;
}
const empty = (): Counts => ({
  invocations: {},
  gbSeconds: 0,
  transitions: 0,
  readUnits: 0,
  writeUnits: 0,
  eksCalls: 0,
});

const STEP_MEMORY: Record<StepFunctionKey, number> = Object.fromEntries(
  Object.values(FUNCTIONS).flatMap((f) => ('step' in f ? [[f.step, f.memoryMb / 1024]] : [])),
) as Record<StepFunctionKey, number>;

/** Step invocations (billed per started ms) since `from`, added to `c`. */
function addSteps(c: Counts, from: number): void {
  for (const call of stepProbe.calls.slice(from)) {
    c.invocations[call.key] = (c.invocations[call.key] ?? 0) + 1;
    c.gbSeconds += STEP_MEMORY[call.key] * (Math.ceil(call.ms) / 1000);
  }
}

function monthly(c: Counts): number {
  const invocations = Object.values(c.invocations).reduce((a, b) => a + b, 0);
  return (
    invocations * PRICE.lambdaRequest +
    c.gbSeconds * PRICE.lambdaGbSecond +
    c.transitions * PRICE.transition +
    c.readUnits * PRICE.readUnit +
    c.writeUnits * PRICE.writeUnit
  );
}

async function main(): Promise<void> {
  section('Cost model: a simulated day, priced per month, beside one execution per cluster per check');
  let clock = Date.now();
  const { cp, m } = await startBench({ now: () => new Date(clock) });
  try {
    const fleet = members('cost', 0, SAMPLE);
    await converge(cp, m, fleet);
    // Records that pass the deployed stream filter each invoke on-change (batching can only lower it).
    let streamRecords = 0;
    cp.feed.subscribe(
      (r) => {
        if (STREAM_FILTER.eventName.includes(r.eventName ?? '') && r.dynamodb?.NewImage?.generation)
          streamRecords++;
      },
      () => undefined,
    );
    const seenExecutions = new Set(cp.sfn.executions().map((e) => e.executionArn));
    const countTransitions = () => {
      let n = 0;
      for (const e of cp.sfn.executions()) {
        if (seenExecutions.has(e.executionArn) || e.status === 'RUNNING') continue;
        seenExecutions.add(e.executionArn);
        n += transitions(cp.sfn.events(e.executionArn));
      }
      return n;
    };
    const reset = () => {
      m.meter.reset();
      m.eks.clear();
      streamRecords = 0;
      return stepProbe.calls.length;
    };

    // The day.
    const rng = new Prng(11);
    const changeAt = Math.floor(rng.next() * CHECKS_PER_DAY);
    const driftAt = Math.floor(rng.next() * CHECKS_PER_DAY);
    const day = empty();
    let sweepCpuMs = 0;
    const stepsFrom = reset();
    for (let round = 0; round < CHECKS_PER_DAY; round++) {
      clock += SWEEP.periodS * 1000;
      if (round === changeAt) {
        const f = fleet[0]!;
        await m.store.applySpec(f.id, benchSpec(f.name, f.region, { nodeCount: 3 }));
      }
      if (round === driftAt) await drift(cp, fleet[1]!);
      const t = performance.now();
      await origin.run('sweep', () =>
        sweep({
          segment: 0,
          totalSegments: 1,
          periodSeconds: SWEEP.periodS,
          concurrency: 8,
        }),
      );
      sweepCpuMs += performance.now() - t;
      await cp.settle();
      day.transitions += countTransitions();
    }
    addSteps(day, stepsFrom);
    const sweepEks = m.eks.requests.filter((r) => r.origin === 'sweep').length;
    const mutating = m.eks.requests.filter((r) => MUTATING.test(r.op)).length;
    day.eksCalls = m.eks.requests.length;
    day.readUnits = m.meter.readUnits;
    day.writeUnits = m.meter.writeUnits;
    day.invocations.onChange = streamRecords;
    // Every mutating EKS call reaches the drift-event rule through CloudTrail (the rule does not
    // filter by caller; the handler drops CloudOrch's own). Counted at the 1 ms minimum.
    day.invocations.driftEvent = mutating + 1;
    day.gbSeconds += (mutating + 1) * (FUNCTIONS.driftEvent.memoryMb / 1024) * 0.001;
    const scanPerRecord = m.meter.scanUnits / CHECKS_PER_DAY / SAMPLE;
    console.log(
      `simulated day, ${SAMPLE} clusters: ${CHECKS_PER_DAY} sweeps, 1 spec change (node count) and 1 out-of-band drift; ` +
        `local sweep time ${fmt.ms(sweepCpuMs / CHECKS_PER_DAY)} per run`,
    );
    console.log(
      `  measured: EKS ${fmt.int(day.eksCalls)} requests (${fmt.int(sweepEks)} by the sweep = ${fmt.num(sweepEks / CHECKS_PER_DAY / SAMPLE)} per cluster-check), ` +
        `${fmt.int(day.transitions)} state transitions, step invocations ${JSON.stringify(Object.fromEntries(Object.entries(day.invocations).filter(([k]) => k in STEP_MEMORY)))}, ` +
        `${fmt.int(streamRecords)} stream records, DynamoDB ${fmt.num(day.readUnits, 1)} RRU (scan ${fmt.num(scanPerRecord, 3)} per record per sweep) and ${fmt.num(day.writeUnits, 0)} WRU`,
    );

    // The naive design: every check is an execution, even when nothing changed.
    const naive = empty();
    const naiveFrom = reset();
    const CHECKS = 3;
    for (let k = 0; k < CHECKS; k++) {
      clock += SWEEP.periodS * 1000;
      for (const f of fleet) await reconcileNow({ id: f.id });
      await cp.settle();
      naive.transitions += countTransitions();
    }
    addSteps(naive, naiveFrom);
    const checks = CHECKS * SAMPLE;
    const perCheck: Counts = {
      invocations: Object.fromEntries(Object.entries(naive.invocations).map(([k, v]) => [k, v / checks])),
      gbSeconds: naive.gbSeconds / checks,
      transitions: naive.transitions / checks,
      readUnits: m.meter.readUnits / checks,
      writeUnits: m.meter.writeUnits / checks,
      eksCalls: m.eks.requests.length / checks,
    };
    console.log(
      `naive check, measured over ${checks} executions on converged clusters: ${fmt.num(perCheck.transitions, 1)} transitions, ` +
        `${fmt.num(
          Object.values(perCheck.invocations).reduce((a, b) => a + b, 0),
          1,
        )} Lambda invocations, ` +
        `${fmt.num(perCheck.readUnits, 1)} RRU, ${fmt.num(perCheck.writeUnits, 1)} WRU, ${fmt.num(perCheck.eksCalls, 1)} EKS calls`,
    );

    printMonth(day, perCheck, sweepEks, scanPerRecord, sweepCpuMs / CHECKS_PER_DAY);
  } finally {
    await cp.stop();
  }
}

async function drift(cp: ControlPlane, f: { name: string; region: string }): Promise<void> {
  const ng = [...cp.sim.state.cluster(f.region, f.name).nodegroups.keys()][0]!;
  await new SimAdminClient(cp.endpoints.eks, f.region).driftNodegroup(f.name, ng, {
    scaling: { desiredSize: 6, maxSize: 6 },
  });
}

/** Sweep run length at the deployed rate: n x calls / (5 per s per region), 500 clusters per region. */
function sweepSeconds(n: number, callsPerCluster: number, localMs: number): number {
  const perRegion = Math.min(n, (SWEEP.callsPerSecond * SWEEP.periodS) / OBSERVE_CALLS);
  return Math.max((perRegion * callsPerCluster) / SWEEP.callsPerSecond, (localMs / 1000) * (n / SAMPLE));
}

function printMonth(
  day: Counts,
  perCheck: Counts,
  sweepEks: number,
  scanPerRecord: number,
  sweepLocalMs: number,
): void {
  const callsPerCluster = sweepEks / CHECKS_PER_DAY / SAMPLE;
  const rows = [['per month', ...FLEETS.map((n) => `${fmt.int(n)}`)]];
  const line = (label: string, f: (n: number) => string) => rows.push([label, ...FLEETS.map(f)]);
  const ours = (n: number): Counts => {
    const k = (n / SAMPLE) * DAYS;
    const stepInvocations = Object.entries(day.invocations).reduce((a, [, v]) => a + v, 0);
    const sweepS = sweepSeconds(n, callsPerCluster, sweepLocalMs);
    return {
      invocations: { all: stepInvocations * k + CHECKS_PER_DAY * DAYS },
      gbSeconds: day.gbSeconds * k + SWEEP.memoryGb * sweepS * CHECKS_PER_DAY * DAYS,
      transitions: day.transitions * k,
      readUnits:
        (day.readUnits - scanPerRecord * SAMPLE * CHECKS_PER_DAY) * k +
        scanPerRecord * n * CHECKS_PER_DAY * DAYS,
      writeUnits: day.writeUnits * k,
      eksCalls: day.eksCalls * k,
    };
  };
  const naive = (n: number): Counts => {
    const checks = n * CHECKS_PER_DAY * DAYS;
    const o = ours(n);
    const k = (n / SAMPLE) * DAYS;
    // The same changes and drift corrections, plus one full execution per check instead of the sweep.
    const changeWork = (x: number, sweepPart: number) => x - sweepPart;
    return {
      invocations: {
        all:
          Object.values(perCheck.invocations).reduce((a, b) => a + b, 0) * checks +
          (o.invocations.all ?? 0) -
          CHECKS_PER_DAY * DAYS,
      },
      gbSeconds: perCheck.gbSeconds * checks + day.gbSeconds * k,
      transitions: perCheck.transitions * checks + o.transitions,
      readUnits:
        perCheck.readUnits * checks + changeWork(o.readUnits, scanPerRecord * n * CHECKS_PER_DAY * DAYS),
      writeUnits: perCheck.writeUnits * checks + o.writeUnits,
      eksCalls: perCheck.eksCalls * checks + o.eksCalls - callsPerCluster * checks,
    };
  };
  const both = FLEETS.map((n) => ({ o: ours(n), v: naive(n) }));
  const pair = (f: (c: Counts) => number, show: (x: number) => string) => (n: number) => {
    const b = both[FLEETS.indexOf(n)]!;
    return `${show(f(b.o))} | ${show(f(b.v))}`;
  };
  const inv = (c: Counts) => Object.values(c.invocations).reduce((a, b) => a + b, 0);
  const big = (x: number) =>
    x >= 1e6 ? `${fmt.num(x / 1e6, 1)}M` : x >= 1e3 ? `${fmt.num(x / 1e3, 1)}k` : fmt.int(x);
  console.log('\nper month (30 simulated days), CloudOrch | naive, computed from the measured counts:');
  line('Lambda invocations', pair(inv, big));
  line(
    'Lambda GB-seconds',
    pair((c) => c.gbSeconds, big),
  );
  line(
    'state transitions',
    pair((c) => c.transitions, big),
  );
  line(
    'DynamoDB read units',
    pair((c) => c.readUnits, big),
  );
  line(
    'DynamoDB write units',
    pair((c) => c.writeUnits, big),
  );
  line(
    'EKS API calls',
    pair((c) => c.eksCalls, big),
  );
  line(
    'Lambda requests $',
    pair((c) => inv(c) * PRICE.lambdaRequest, fmt.usd),
  );
  line(
    'Lambda duration $',
    pair((c) => c.gbSeconds * PRICE.lambdaGbSecond, fmt.usd),
  );
  line(
    'Step Functions $',
    pair((c) => c.transitions * PRICE.transition, fmt.usd),
  );
  line(
    'DynamoDB $',
    pair((c) => c.readUnits * PRICE.readUnit + c.writeUnits * PRICE.writeUnit, fmt.usd),
  );
  line('total (usage) $', pair(monthly, fmt.usd));
  line('naive / CloudOrch', (n) => {
    const b = both[FLEETS.indexOf(n)]!;
    return `${fmt.num(monthly(b.v) / monthly(b.o), 1)}x`;
  });
  console.log(table(rows));
  console.log(
    `sweep run length at the deployed ${SWEEP.callsPerSecond} EKS calls/s per region (computed): ` +
      FLEETS.map(
        (n) => `${fmt.int(n)}: ${fmt.num(sweepSeconds(n, callsPerCluster, sweepLocalMs), 0)} s`,
      ).join(', ') +
      ` (one region holds at most ${(SWEEP.callsPerSecond * SWEEP.periodS) / OBSERVE_CALLS} clusters checked every 5 minutes)`,
  );
  console.log(
    'not included: EKS itself ($0.10 per cluster-hour), CloudWatch metrics, dashboard and alarms ($14.90 fixed, docs/deploy.md), logs; ' +
      'EKS API calls are not billed but count against EKS throttling',
  );
}

run(main);
