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
import { isMutatingEksCall } from '../lambdas/config.js';
import { FUNCTIONS } from '../lambdas/functions/catalog.js';
import { reconcileNow } from '../lambdas/handlers/triggers/reconcile-now.js';
import type { StepFunctionKey } from '../lambdas/statemachine/definition.js';
import { SimAdminClient } from '../local/eks-sim/index.js';
import { Prng } from '../local/eks-sim/model.js';
import type { ControlPlane } from '../local/runtime/control-plane.js';
import { benchSpec, type Member, members } from './lib/fleet.js';
import { converge, startBench, transitions } from './lib/pipeline.js';
import { type Metered, origin, stepProbe } from './lib/probes.js';
import { measureRichLooks, type RichLooks } from './lib/rich-sample.js';
import { fmt, run, section, table } from './lib/stats.js';
import { type LookFigures, SWEEP, sweepPeriod } from './lib/sweep-cost.js';

const SAMPLE = Number(process.argv[2] ?? 10);
const CHECKS_PER_DAY = 288; // every 5 minutes
const DAYS = 30;
const FLEETS = [10, 100, 1_000, 10_000];

/** us-east-1, arm64, no free tier; the same prices as docs/deploy.md. */
const PRICE = {
  lambdaGbSecond: 0.0000133334, // https://aws.amazon.com/lambda/pricing/ (arm64, first 6B GB-s)
  lambdaRequest: 0.2 / 1e6, // https://aws.amazon.com/lambda/pricing/
  transition: 0.025 / 1000, // https://aws.amazon.com/step-functions/pricing/ (Standard)
  writeUnit: 0.625 / 1e6, // https://aws.amazon.com/dynamodb/pricing/on-demand/
  readUnit: 0.125 / 1e6, // https://aws.amazon.com/dynamodb/pricing/on-demand/
} as const;
/** The deployed full-observation period: the sweep's other looks are checks. */
const FULL_PERIOD_S = 3600;

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

/** The running bench both measurements share: its clock, its meters and the executions already counted. */
interface Bench {
  readonly cp: ControlPlane;
  readonly m: Metered;
  readonly fleet: readonly Member[];
  /** Moves the reconciler's clock on by one sweep period. */
  readonly tick: () => void;
  /** State transitions of the executions that closed since the last call. */
  readonly newTransitions: () => number;
  /** Clears the meters and the stream tally; returns the step-call index to count from. */
  readonly reset: () => number;
  /** Stream records since the last reset that the deployed filter passes to on-change. */
  readonly streamRecords: () => number;
}

function openBench(cp: ControlPlane, m: Metered, fleet: readonly Member[], clock: { ms: number }): Bench {
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
  return {
    cp,
    m,
    fleet,
    tick: () => {
      clock.ms += SWEEP.periodS * 1000;
    },
    newTransitions: () => {
      let n = 0;
      for (const e of cp.sfn.executions()) {
        if (seenExecutions.has(e.executionArn) || e.status === 'RUNNING') continue;
        seenExecutions.add(e.executionArn);
        n += transitions(cp.sfn.events(e.executionArn));
      }
      return n;
    },
    reset: () => {
      m.meter.reset();
      m.eks.clear();
      streamRecords = 0;
      return stepProbe.calls.length;
    },
    streamRecords: () => streamRecords,
  };
}

/** The simulated day's counts and the sweep figures the month is scaled with. */
interface Day {
  readonly counts: Counts;
  readonly streamRecords: number;
  /** EKS requests the sweep made over the day. */
  readonly sweepEks: number;
  readonly scanPerRecord: number;
  /** Local run time of one sweep. */
  readonly sweepLocalMs: number;
}

/** 288 sweeps, with one spec change and one drift at seeded rounds; everything AWS bills is counted. */
async function simulateDay(b: Bench): Promise<Day> {
  const { cp, m, fleet } = b;
  const rng = new Prng(11);
  const changeAt = Math.floor(rng.next() * CHECKS_PER_DAY);
  const driftAt = Math.floor(rng.next() * CHECKS_PER_DAY);
  const day = empty();
  let sweepCpuMs = 0;
  const stepsFrom = b.reset();
  for (let round = 0; round < CHECKS_PER_DAY; round++) {
    b.tick();
    if (round === changeAt) {
      const f = fleet[0]!;
      await m.store.applySpec(f.id, benchSpec(f.name, f.region, { nodeCount: 3 }));
    }
    if (round === driftAt) await drift(cp, fleet[1]!);
    const t = performance.now();
    await origin.run('sweep', () =>
      cp.sweepNow({ periodSeconds: SWEEP.periodS, concurrency: 8, fullObservePeriodSeconds: FULL_PERIOD_S }),
    );
    sweepCpuMs += performance.now() - t;
    await cp.settle();
    day.transitions += b.newTransitions();
  }
  addSteps(day, stepsFrom);
  const mutating = m.eks.requests.filter((r) => isMutatingEksCall(r.op)).length;
  day.eksCalls = m.eks.requests.length;
  day.readUnits = m.meter.readUnits;
  day.writeUnits = m.meter.writeUnits;
  day.invocations.onChange = b.streamRecords();
  // Every mutating EKS call reaches the drift-event rule through CloudTrail (the rule does not
  // filter by caller; the handler drops CloudOrch's own). Counted at the 1 ms minimum.
  day.invocations.driftEvent = mutating + 1;
  day.gbSeconds += (mutating + 1) * (FUNCTIONS.driftEvent.memoryMb / 1024) * 0.001;
  return {
    counts: day,
    streamRecords: b.streamRecords(),
    sweepEks: m.eks.requests.filter((r) => r.origin === 'sweep').length,
    scanPerRecord: m.meter.scanUnits / CHECKS_PER_DAY / SAMPLE,
    sweepLocalMs: sweepCpuMs / CHECKS_PER_DAY,
  };
}

function printDay({ counts: day, streamRecords, sweepEks, scanPerRecord, sweepLocalMs }: Day): void {
  console.log(
    `simulated day, ${SAMPLE} clusters: ${CHECKS_PER_DAY} sweeps, 1 spec change (node count) and 1 out-of-band drift; ` +
      `local sweep time ${fmt.ms(sweepLocalMs)} per run`,
  );
  console.log(
    `  measured: EKS ${fmt.int(day.eksCalls)} requests (${fmt.int(sweepEks)} by the sweep = ${fmt.num(sweepEks / CHECKS_PER_DAY / SAMPLE)} per cluster-check), ` +
      `${fmt.int(day.transitions)} state transitions, step invocations ${JSON.stringify(Object.fromEntries(Object.entries(day.invocations).filter(([k]) => k in STEP_MEMORY)))}, ` +
      `${fmt.int(streamRecords)} stream records, DynamoDB ${fmt.num(day.readUnits, 1)} RRU (scan ${fmt.num(scanPerRecord, 3)} per record per sweep) and ${fmt.num(day.writeUnits, 0)} WRU`,
  );
}

/** The naive design: every check is an execution, even when nothing changed. Returns one check's counts. */
async function measureNaiveCheck(b: Bench): Promise<Counts> {
  const { cp, m, fleet } = b;
  const naive = empty();
  const naiveFrom = b.reset();
  const CHECKS = 3;
  for (let k = 0; k < CHECKS; k++) {
    b.tick();
    for (const f of fleet) await reconcileNow({ id: f.id });
    await cp.settle();
    naive.transitions += b.newTransitions();
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
  return perCheck;
}

async function main(): Promise<void> {
  section('Cost model: a simulated day, priced per month, beside one execution per cluster per check');
  const clock = { ms: Date.now() };
  let day: Day;
  const { cp, m } = await startBench({ now: () => new Date(clock.ms) });
  try {
    const fleet = members('cost', 0, SAMPLE);
    await converge(cp, m, fleet);
    const bench = openBench(cp, m, fleet, clock);
    day = await simulateDay(bench);
    printDay(day);
    const perCheck = await measureNaiveCheck(bench);
    printMonth(day, perCheck);
  } finally {
    await cp.stop();
  }
  printRich(day, await measureRichLooks());
}

async function drift(cp: ControlPlane, f: { name: string; region: string }): Promise<void> {
  const ng = [...cp.sim.state.cluster(f.region, f.name).nodegroups.keys()][0]!;
  await new SimAdminClient(cp.endpoints.eks, f.region).driftNodegroup(f.name, ng, {
    scaling: { desiredSize: 6, maxSize: 6 },
  });
}

const sweepCallsPerCluster = (d: Day) => d.sweepEks / CHECKS_PER_DAY / SAMPLE;
const looksOf = (d: Day): LookFigures => ({
  callsPerLook: sweepCallsPerCluster(d),
  localMsPerLook: d.sweepLocalMs / SAMPLE,
});

/**
 * CloudOrch's month for a fleet of n: the day's changes and corrections scale with n; the sweep is
 * priced per period by sweepPeriod (dispatcher and shard runs, budget claims and shard leases), its
 * reads (scan and batch get) by the measured read units per record per sweep. Steps' EKS calls claim
 * slots too: at most one write per call (claims of two or more slots, two writes each).
 */
function oursPerMonth(
  n: number,
  d: Day,
  look: LookFigures = looksOf(d),
  readsPerRecord = d.scanPerRecord,
): Counts {
  const day = d.counts;
  const k = (n / SAMPLE) * DAYS;
  const periods = CHECKS_PER_DAY * DAYS;
  const stepInvocations = Object.entries(day.invocations).reduce((a, [, v]) => a + v, 0);
  const sweep = sweepPeriod(n, look);
  const stepEks = day.eksCalls - d.sweepEks;
  return {
    invocations: { all: stepInvocations * k + sweep.invocations * periods },
    gbSeconds: day.gbSeconds * k + sweep.gbSeconds * periods,
    transitions: day.transitions * k,
    readUnits: (day.readUnits - d.scanPerRecord * SAMPLE * CHECKS_PER_DAY) * k + readsPerRecord * n * periods,
    writeUnits: (day.writeUnits + stepEks) * k + sweep.writeUnits * periods,
    eksCalls: day.eksCalls * k,
  };
}

/** The naive month: the same changes and drift corrections, plus one full execution per check instead of the sweep. */
function naivePerMonth(n: number, d: Day, perCheck: Counts): Counts {
  const checks = n * CHECKS_PER_DAY * DAYS;
  const o = oursPerMonth(n, d);
  const k = (n / SAMPLE) * DAYS;
  const changeWork = (x: number, sweepPart: number) => x - sweepPart;
  return {
    invocations: {
      all:
        Object.values(perCheck.invocations).reduce((a, b) => a + b, 0) * checks +
        (o.invocations.all ?? 0) -
        CHECKS_PER_DAY * DAYS,
    },
    gbSeconds: perCheck.gbSeconds * checks + d.counts.gbSeconds * k,
    transitions: perCheck.transitions * checks + o.transitions,
    readUnits:
      perCheck.readUnits * checks + changeWork(o.readUnits, d.scanPerRecord * n * CHECKS_PER_DAY * DAYS),
    writeUnits: perCheck.writeUnits * checks + o.writeUnits,
    eksCalls: perCheck.eksCalls * checks + o.eksCalls - sweepCallsPerCluster(d) * checks,
  };
}

const invocationsOf = (c: Counts) => Object.values(c.invocations).reduce((a, b) => a + b, 0);
const big = (x: number) =>
  x >= 1e6 ? `${fmt.num(x / 1e6, 1)}M` : x >= 1e3 ? `${fmt.num(x / 1e3, 1)}k` : fmt.int(x);

/** The month table's rows: a label, the figure read from a month's counts, how it is shown. */
const MONTH_ROWS: readonly (readonly [string, (c: Counts) => number, (x: number) => string])[] = [
  ['Lambda invocations', invocationsOf, big],
  ['Lambda GB-seconds', (c) => c.gbSeconds, big],
  ['state transitions', (c) => c.transitions, big],
  ['DynamoDB read units', (c) => c.readUnits, big],
  ['DynamoDB write units', (c) => c.writeUnits, big],
  ['EKS API calls', (c) => c.eksCalls, big],
  ['Lambda requests $', (c) => invocationsOf(c) * PRICE.lambdaRequest, fmt.usd],
  ['Lambda duration $', (c) => c.gbSeconds * PRICE.lambdaGbSecond, fmt.usd],
  ['Step Functions $', (c) => c.transitions * PRICE.transition, fmt.usd],
  ['DynamoDB $', (c) => c.readUnits * PRICE.readUnit + c.writeUnits * PRICE.writeUnit, fmt.usd],
  ['total (usage) $', monthly, fmt.usd],
];

function printMonth(d: Day, perCheck: Counts): void {
  const both = FLEETS.map((n) => ({ o: oursPerMonth(n, d), v: naivePerMonth(n, d, perCheck) }));
  const rows = [['per month', ...FLEETS.map((n) => `${fmt.int(n)}`)]];
  for (const [label, f, show] of MONTH_ROWS)
    rows.push([label, ...both.map((b) => `${show(f(b.o))} | ${show(f(b.v))}`)]);
  rows.push(['naive / CloudOrch', ...both.map((b) => `${fmt.num(monthly(b.v) / monthly(b.o), 1)}x`)]);
  console.log('\nper month (30 simulated days), CloudOrch | naive, computed from the measured counts:');
  console.log(table(rows));
  console.log(
    `sweep per period (computed): shards of ${SWEEP.clustersPerShard} clusters per (account, region), ${SWEEP.shardsPerRun} shards per run at ` +
      `${SWEEP.shardMemoryGb * 1024} MB, ${fmt.num(SWEEP.slotsPerSecond, 2)} EKS slots per second per shard: ` +
      FLEETS.map((n) => {
        const p = sweepPeriod(n, looksOf(d));
        return `${fmt.int(n)}: ${p.runs} run(s) of ${fmt.num(p.runSeconds, 1)} s`;
      }).join(', '),
  );
  console.log(
    `per cluster-month: ${FLEETS.map((n) => `${fmt.int(n)}: ${fmt.usd(monthly(oursPerMonth(n, d)) / n)}`).join(', ')}`,
  );
  console.log(
    'not included: EKS itself ($0.10 per cluster-hour), CloudWatch metrics, dashboard and alarms ($16.60 fixed, docs/deploy.md), logs; ' +
      'EKS API calls are not billed but count against EKS throttling',
  );
}

/** The cluster with 3 pools, 3 add-ons and 2 access entries: its sweep looks priced beside the one-pool one. */
function printRich(d: Day, rich: RichLooks): void {
  console.log(
    `\n3 pools, 3 add-ons, 2 access entries (${rich.clusters} clusters, ${rich.sweeps} sweeps on the reconciler's clock): ` +
      `${fmt.num(rich.callsPerLook)} EKS requests per look against ${fmt.num(sweepCallsPerCluster(d))} for one pool, ` +
      `scan ${fmt.num(rich.scanPerRecord, 3)} read units per record per sweep`,
  );
  console.log(
    `per cluster-month, its changes and corrections priced as the one-pool day's: ` +
      FLEETS.map(
        (n) => `${fmt.int(n)}: ${fmt.usd(monthly(oursPerMonth(n, d, rich, rich.scanPerRecord)) / n)}`,
      ).join(', '),
  );
}

run(main);
