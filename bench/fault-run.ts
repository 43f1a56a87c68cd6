/**
 * Fault-injection run (bounded, seeded, stops by itself): 200 clusters over 4 regions created and
 * changed through the real pipeline while EKS throttles 30% and fails 5% of requests, random spec
 * changes and out-of-band drift land every round, and handlers crash: after EKS accepted an apply
 * (the execution is stopped, its lease left behind), or before a step does anything. Five clusters
 * that CloudOrch does not own share names with CloudClusters (no adopt). Then recovery rounds (the
 * faults stay on) until everything converged, and the checks:
 * all converged, zero duplicate creates, zero lost generations, EKS calls per cluster within the
 * bound, no unowned cluster touched.
 *
 * Run: `npm run bench:faults` (optional argument: seed, default 42).
 */
import './lib/env.js';
import { CreateClusterCommand, EKSClient } from '@aws-sdk/client-eks';
import { SFNClient, StopExecutionCommand } from '@aws-sdk/client-sfn';
import { isMutatingEksCall } from '../lambdas/config.js';
import { OWNER_TAG } from '../lambdas/core/ownership.js';
import { detectDrift } from '../lambdas/core/plan/fields.js';
import { firstAction, plan } from '../lambdas/core/plan/plan.js';
import type { NodePool } from '../lambdas/core/spec/pools.js';
import type { CloudClusterSpec } from '../lambdas/core/spec/schema.js';
import { deps } from '../lambdas/handlers/deps.js';
import { OBSERVE_CALLS } from '../lambdas/handlers/triggers/sweep-decide.js';
import { EKS_RETRY_BUDGET } from '../lambdas/provider/retry.js';
import type { CallCounts } from '../local/eks-sim/admin.js';
import { SimAdminClient } from '../local/eks-sim/index.js';
import { Prng } from '../local/eks-sim/model.js';
import { type ControlPlane, LOCAL_DEFAULTS } from '../local/runtime/control-plane.js';
import { benchSpec, type Member } from './lib/fleet.js';
import { startBench } from './lib/pipeline.js';
import { localCredentials, type Metered, now, origin, stepProbe } from './lib/probes.js';
import { fmt, run, section } from './lib/stats.js';

const SEED = Number(process.argv[2] ?? 42);
const CLUSTERS = 200;
const REGIONS = ['us-east-1', 'us-west-2', 'eu-west-1', 'ap-southeast-1'];
const FOREIGN = 5;
const CHAOS_ROUNDS = 6;
const MAX_RECOVERY_ROUNDS = 12;
const FAULTS = { throttleFraction: 0.3, errorFraction: 0.05 };
/** Per round: share of clusters whose spec changes, that drift, and crash probabilities per invocation. */
const CHANGE = 0.1;
const DRIFT = 0.05;
const CRASH_AFTER_APPLY = 0.03;
const CRASH_BEFORE_STEP = 0.01;
/** The documented bound of one convergence at 30% throttling (test/pipeline/scenarios.test.ts). */
const CONVERGENCE_BOUND = 120;

/** What the chaos and recovery phases share, and the checks read afterwards. */
class FaultRun {
  readonly specs = new Map<string, CloudClusterSpec>();
  /** Convergences asked of each cluster. */
  readonly counts = new Map<string, number>();
  readonly foreignNames: ReadonlySet<string>;
  sweeps = 0;

  constructor(
    readonly cp: ControlPlane,
    readonly m: Metered,
    readonly fleet: readonly Member[],
    readonly foreign: readonly Member[],
  ) {
    this.foreignNames = new Set(foreign.map((f) => f.name));
  }

  bump(id: string): void {
    this.counts.set(id, (this.counts.get(id) ?? 0) + 1);
  }

  async write(f: Member, s: CloudClusterSpec): Promise<void> {
    this.specs.set(f.id, s);
    this.bump(f.id);
    await this.m.store.applySpec(f.id, s);
  }

  async sweepRound(): Promise<void> {
    this.sweeps++;
    await origin.run('sweep', () => this.cp.sweepNow({ periodSeconds: 300, concurrency: 16 }));
    await this.cp.settle();
  }
}

type Check = [name: string, ok: boolean, detail: string];

/**
 * Crashes step handlers at random: after EKS accepted an apply (the execution is stopped and its
 * lease left behind) or before a step does anything. Returns the tally and a function to stop.
 */
function injectCrashes(
  run: FaultRun,
  rng: Prng,
): { crashes: { afterApply: number; beforeStep: number }; stop: () => void } {
  const { cp } = run;
  const crashes = { afterApply: 0, beforeStep: 0 };
  const sfn = new SFNClient({ endpoint: cp.endpoints.sfn, ...localCredentials });
  const executionArn = (owner: string) =>
    `${cp.stateMachineArn.replace(':stateMachine:', ':execution:')}:${owner}`;
  stepProbe.before = async (key) => {
    if (rng.next() >= CRASH_BEFORE_STEP) return;
    crashes.beforeStep++;
    throw new Error(`injected crash before ${key}`);
  };
  stepProbe.after = async (key, input) => {
    if (key !== 'apply' || rng.next() >= CRASH_AFTER_APPLY) return;
    const owner = (input as { owner: string; id: string }).owner;
    crashes.afterApply++;
    run.bump((input as { id: string }).id);
    // EKS accepted the call; the execution dies before recording it and its lease stays behind.
    await sfn.send(new StopExecutionCommand({ executionArn: executionArn(owner), error: 'Crash' }));
    throw new Error('process died after apply');
  };
  const stop = () => {
    stepProbe.before = undefined;
    stepProbe.after = undefined;
    sfn.destroy();
  };
  return { crashes, stop };
}

/** One cluster's turn in a chaos round: maybe a spec change, maybe an out-of-band drift (never on a foreign one). */
async function chaosFor(run: FaultRun, f: Member, rng: Prng): Promise<'change' | 'drift' | undefined> {
  const x = rng.next();
  if (x < CHANGE) {
    await run.write(f, mutate(run.specs.get(f.id)!, rng));
    return 'change';
  }
  if (!(x < CHANGE + DRIFT && !run.foreignNames.has(f.name))) return undefined;
  const c = run.cp.sim.state.clusters(f.region).get(f.name);
  const ng = c && [...c.nodegroups.keys()][0];
  if (!ng) return undefined;
  run.bump(f.id);
  const admin = new SimAdminClient(run.cp.endpoints.eks, f.region);
  if (rng.next() < 0.5) await admin.driftNodegroup(f.name, ng, { scaling: { desiredSize: 9, maxSize: 9 } });
  else await admin.driftCluster(f.name, { tags: { ...c.tags, rogue: 'yes' } });
  return 'drift';
}

async function chaosRounds(
  run: FaultRun,
  rng: Prng,
  clock: { ms: number },
): Promise<{ changes: number; drifts: number }> {
  let changes = 0;
  let drifts = 0;
  for (let round = 0; round < CHAOS_ROUNDS; round++) {
    clock.ms += 15 * 60_000; // leases of crashed executions expire, backoffs run out
    for (const f of run.fleet) {
      const what = await chaosFor(run, f, rng);
      if (what === 'change') changes++;
      else if (what === 'drift') drifts++;
    }
    await run.sweepRound();
  }
  return { changes, drifts };
}

/** Recovery: faults stay on, no new chaos; bounded. Returns the sweep rounds it took. */
async function recover(run: FaultRun, clock: { ms: number }): Promise<number> {
  let recovery = 0;
  let pending = await unconverged(run.fleet, run.foreignNames);
  while (pending.length > 0 && recovery < MAX_RECOVERY_ROUNDS) {
    recovery++;
    clock.ms += 60 * 60_000;
    await run.sweepRound();
    pending = await unconverged(run.fleet, run.foreignNames);
  }
  return recovery;
}

async function checkConverged({ fleet, foreignNames }: FaultRun): Promise<Check> {
  const bad = await unconverged(fleet, foreignNames, true);
  return [
    'all converged',
    bad.length === 0,
    `${fleet.length - FOREIGN - bad.length}/${fleet.length - FOREIGN} managed clusters Ready, in sync with their last spec${bad.length ? `; not: ${bad.slice(0, 5).join(', ')}` : ''}`,
  ];
}

function checkNoDuplicateCreates({ cp, m, fleet, foreignNames }: FaultRun): Check {
  const reqs = m.eks.requests;
  const createsByCluster = new Map<string, Set<string>>();
  for (const r of reqs.filter((q) => q.op === 'CreateCluster' && q.status === 200 && q.origin !== 'setup'))
    createsByCluster.set(r.cluster!, (createsByCluster.get(r.cluster!) ?? new Set()).add(r.token ?? ''));
  const dupes = [...createsByCluster].filter(([, tokens]) => tokens.size > 1);
  const inUse = reqs.filter(
    (q) =>
      q.op === 'CreateCluster' && q.error === 'ResourceInUseException' && !foreignNames.has(q.cluster ?? ''),
  ).length;
  const extraGroups = fleet.filter(
    (f) => (cp.sim.state.clusters(f.region).get(f.name)?.nodegroups.size ?? 0) > 1,
  ).length;
  return [
    'zero duplicate creates',
    dupes.length === 0 && inUse === 0 && extraGroups === 0,
    `${createsByCluster.size} clusters created, each under one idempotency token; ${inUse} CreateCluster refused as existing; ${extraGroups} clusters with a second node group`,
  ];
}

async function checkNoLostGenerations({ m, fleet, specs }: FaultRun): Promise<Check> {
  let lost = 0;
  for (const f of fleet) {
    const r = await m.store.get(f.id);
    if (
      !r ||
      r.status?.observedGeneration !== r.generation ||
      JSON.stringify(r.spec) !== JSON.stringify(specs.get(f.id))
    )
      lost++;
  }
  return [
    'zero lost generations',
    lost === 0,
    `every record's status observed its latest generation and holds the last spec written (${lost} not)`,
  ];
}

function checkCallBound({ m, fleet, counts, sweeps }: FaultRun, faultCounts: CallCounts): Check {
  const perCluster = new Map<string, number>();
  for (const r of m.eks.requests)
    if (r.cluster) perCluster.set(r.cluster, (perCluster.get(r.cluster) ?? 0) + 1);
  let worst = 0;
  let over = 0;
  for (const f of fleet) {
    const bound = CONVERGENCE_BOUND * (counts.get(f.id) ?? 1) + sweeps * OBSERVE_CALLS * 4;
    const ratio = (perCluster.get(f.name) ?? 0) / bound;
    worst = Math.max(worst, ratio);
    if (ratio > 1) over++;
  }
  const calls = [...perCluster.values()];
  const logical = Object.values(faultCounts).reduce((n, c) => n + c.succeeded + c.rejected, 0);
  const requests = Object.values(faultCounts).reduce((n, c) => n + c.requests, 0);
  return [
    'EKS calls per cluster within the bound',
    over === 0,
    `bound = ${CONVERGENCE_BOUND} x convergences asked + ${OBSERVE_CALLS * 4} x sweeps; worst cluster at ${fmt.num(worst * 100, 0)}% of its bound; mean ${fmt.num(calls.reduce((a, b) => a + b, 0) / calls.length, 1)} requests per cluster; ${fmt.int(requests)} requests for ${fmt.int(logical)} answered calls (${fmt.num(requests / logical, 2)} per call, budget ${EKS_RETRY_BUDGET.maxAttempts})`,
  ];
}

async function checkUnownedUntouched({ cp, m, foreign, foreignNames }: FaultRun): Promise<Check> {
  const touched = m.eks.requests.filter(
    (q) => isMutatingEksCall(q.op) && foreignNames.has(q.cluster ?? '') && q.origin !== 'setup',
  ).length;
  let intact = 0;
  for (const f of foreign) {
    const c = cp.sim.state.clusters(f.region).get(f.name);
    const rec = await m.store.get(f.id);
    const reason = rec?.status?.conditions.find((x) => x.type === 'Ready')?.reason;
    if (
      c &&
      c.tags[OWNER_TAG] === undefined &&
      c.nodegroups.size === 0 &&
      c.version === '1.33' &&
      reason === 'NotOwned'
    )
      intact++;
  }
  return [
    'no unowned cluster touched',
    touched === 0 && intact === FOREIGN,
    `${touched} mutating requests on the ${FOREIGN} foreign clusters; ${intact}/${FOREIGN} unchanged, their CloudClusters report NotOwned`,
  ];
}

async function main(): Promise<void> {
  section('Fault-injection run: 200 clusters, 30% throttling, 5% server errors, crashes, drift, changes');
  const clock = { ms: Date.now() };
  const { cp, m } = await startBench({ now: () => new Date(clock.ms), config: { leaseTtlMs: 10 * 60_000 } });
  const rng = new Prng(SEED);
  const t0 = now();
  try {
    const fleet: Member[] = Array.from({ length: CLUSTERS }, (_, i) => {
      const name = `chaos-${String(i).padStart(3, '0')}`;
      return { id: `chaos/${name}`, name, region: REGIONS[i % REGIONS.length]! };
    });
    const foreign = fleet.filter((_, i) => i % 40 === 13).slice(0, FOREIGN);
    for (const f of foreign) await createForeign(cp.endpoints.eks, f);
    await new Promise((r) => setTimeout(r, 300)); // the simulator finishes creating them
    const run = new FaultRun(cp, m, fleet, foreign);

    await cp.simAdmin.setFaults({ '*': FAULTS });
    const { crashes, stop } = injectCrashes(run, rng);
    // Creation under faults, then chaos rounds.
    for (const f of fleet)
      await run.write(f, benchSpec(f.name, f.region, { nodeCount: 1 + (f.name.length % 3) }));
    await cp.settle();
    const { changes, drifts } = await chaosRounds(run, rng, clock);
    stop();
    console.log(
      `chaos: ${CHAOS_ROUNDS} rounds, ${changes} spec changes, ${drifts} drift injections, crashes: ` +
        `${crashes.afterApply} after an accepted apply (execution stopped, lease left), ${crashes.beforeStep} before a step`,
    );

    const recovery = await recover(run, clock);
    const faultCounts = await cp.simAdmin.calls();
    await cp.simAdmin.clearFaults();
    console.log(`recovery: ${recovery} sweep rounds (faults still on), ${fmt.s(now() - t0)} so far`);

    const results: Check[] = [
      await checkConverged(run),
      checkNoDuplicateCreates(run),
      await checkNoLostGenerations(run),
      checkCallBound(run, faultCounts),
      await checkUnownedUntouched(run),
    ];
    const requests = Object.values(faultCounts).reduce((n, c) => n + c.requests, 0);
    const throttled = Object.values(faultCounts).reduce((n, c) => n + c.throttled, 0);
    const errors = Object.values(faultCounts).reduce((n, c) => n + c.serverErrors, 0);
    console.log(
      `EKS saw ${fmt.int(requests)} requests: ${fmt.int(throttled)} throttled, ${fmt.int(errors)} server errors; ${cp.sfn.counts().started} executions (${cp.sfn.counts().aborted} stopped by crashes, ${cp.sfn.counts().failed} failed)`,
    );
    for (const [name, ok, detail] of results) console.log(`${ok ? 'PASS' : 'FAIL'}  ${name}: ${detail}`);
    console.log(`run time ${fmt.s(now() - t0)}, seed ${SEED}`);
    if (results.some(([, ok]) => !ok)) throw new Error('fault-injection run failed its checks');
  } finally {
    await cp.stop();
  }
}

/** A random spec change: mostly scaling, sometimes tags, an instance type or a version step. */
function mutate(s: CloudClusterSpec, rng: Prng): CloudClusterSpec {
  const x = rng.next();
  const first = (over: Partial<NodePool>) => ({
    ...s,
    nodeGroups: s.nodeGroups.map((p, i) => (i === 0 ? { ...p, ...over } : p)),
  });
  if (x < 0.6) return first({ nodeCount: 1 + Math.floor(rng.next() * 5) });
  if (x < 0.8) return { ...s, tags: { ...s.tags, owner: `team-${Math.floor(rng.next() * 9)}` } };
  const type = s.nodeGroups[0]?.instanceTypes[0];
  if (x < 0.9) return first({ instanceTypes: [type === 't3.medium' ? 't3.large' : 't3.medium'] });
  return { ...s, kubernetesVersion: '1.35' };
}

async function createForeign(endpoint: string, f: Member): Promise<void> {
  const eks = new EKSClient({ endpoint, ...localCredentials, region: f.region });
  await origin.run('setup', () =>
    eks.send(
      new CreateClusterCommand({
        name: f.name,
        roleArn: LOCAL_DEFAULTS.clusterRoleArn!,
        resourcesVpcConfig: { subnetIds: [...LOCAL_DEFAULTS.subnetIds!] },
        version: '1.33',
        tags: { team: 'someone-else' },
      }),
    ),
  );
  eks.destroy();
}

/** Managed clusters not yet converged: record not Ready for its generation, lease held, or EKS differs. */
async function unconverged(
  fleet: readonly Member[],
  foreign: ReadonlySet<string>,
  observe = false,
): Promise<string[]> {
  const out: string[] = [];
  const { store, provider, config } = deps();
  for (const f of fleet) {
    if (foreign.has(f.name)) continue;
    const r = await store.get(f.id);
    if (!r?.status?.ready || r.status.observedGeneration !== r.generation || r.lease) {
      out.push(f.id);
      continue;
    }
    if (!observe) continue;
    const o = await provider.observe({ clusterName: f.name, region: f.region });
    const d = { id: f.id, spec: r.spec, generation: r.generation, deletionRequested: false };
    if (detectDrift(r.spec, o, config.defaults).length > 0 || firstAction(plan(d, o, config.defaults)))
      out.push(f.id);
  }
  return out;
}

run(main);
