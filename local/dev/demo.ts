/**
 * `cloudorch dev --demo`: apply the examples (one has three node pools, some manage add-ons and access
 * entries), show each cluster converge, scale one pool out of band through the simulator, show the
 * drift detected and corrected with the times, roll a tag change across the Ready clusters in two
 * stages with one approval, print a summary with the add-ons and access entries.
 * Every figure printed is read from the store, the simulator or the Step Functions endpoint.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CloudClusterManifest } from '../../lambdas/core/manifest.js';
import type { NodePool } from '../../lambdas/core/spec/pools.js';
import { listAll } from '../../lambdas/store/list.js';
import type { ClusterRecord } from '../../lambdas/store/types.js';
import { COLUMNS, row, table } from '../cli/format.js';
import { loadManifests } from '../cli/load.js';
import { accessCell, addonText } from '../cli/parts.js';
import { specPools } from '../cli/pools.js';
import type { CallCounts } from '../eks-sim/admin.js';
import { demoRollout } from './demo-rollout.js';
import type { DevHandle } from './dev.js';

const EXAMPLES = fileURLToPath(new URL('../../examples/', import.meta.url));
/** Upper bound for each demo phase; the demo fails loudly instead of hanging. */
const PHASE_TIMEOUT_MS = 120_000;

type Log = (line: string) => void;

const records = (dev: DevHandle): Promise<ClusterRecord[]> => listAll(dev.cp.store);

async function until<T>(what: string, f: () => Promise<T | undefined>, pollMs = 100): Promise<T> {
  const deadline = Date.now() + PHASE_TIMEOUT_MS;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`demo: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

const reasonOf = (r: ClusterRecord) =>
  r.status?.conditions.find((c) => c.type === 'Ready')?.reason ?? 'Pending';
const settled = (r: ClusterRecord) =>
  r.status?.observedGeneration === r.generation &&
  ['Reconciled', 'PolicyViolation', 'SpecInvalid', 'NotOwned', 'ImpossibleChange'].includes(reasonOf(r));

const secs = (from: number) => `${((Date.now() - from) / 1000).toFixed(1)}s`;
const span = (from: number, to: number) => `${((to - from) / 1000).toFixed(1)}s`;

async function loadExamples(): Promise<CloudClusterManifest[]> {
  const files = (await readdir(EXAMPLES)).filter((f) => f.endsWith('.yaml')).map((f) => join(EXAMPLES, f));
  const { manifests, issues } = await loadManifests(files);
  if (issues.length > 0)
    throw new Error(`demo: examples are invalid: ${issues.map((i) => i.message).join('; ')}`);
  return manifests;
}

async function applyExamples(
  dev: DevHandle,
  manifests: readonly CloudClusterManifest[],
  log: Log,
): Promise<void> {
  log('\n1. apply the examples');
  for (const m of manifests) {
    await dev.cp.store.applySpec(m.id, m.spec);
    const pools = m.spec.nodeGroups.map((p) => `${p.name} ${p.nodeCount} x ${p.instanceTypes.join('|')}`);
    log(`   cloudcluster/${m.id} applied (${m.spec.clusterName}: ${pools.join(', ')})`);
  }
}

/** Logs each record's Ready reason and message as they change, until all `count` have settled. */
async function watchConvergence(
  dev: DevHandle,
  count: number,
  log: Log,
  t0: number,
): Promise<ClusterRecord[]> {
  log('\n2. watch them converge');
  const seen = new Map<string, string>();
  return until('the examples to settle', async () => {
    const rs = await records(dev);
    for (const r of rs) {
      const reason = reasonOf(r);
      const msg = r.status?.conditions.find((c) => c.type === 'Ready')?.message ?? '';
      if (seen.get(r.id) !== `${reason} ${msg}`) {
        seen.set(r.id, `${reason} ${msg}`);
        log(`   [${secs(t0)}] ${r.id}: ${reason}${msg ? ` — ${msg}` : ''}`);
      }
    }
    return rs.length === count && rs.every(settled) ? rs : undefined;
  });
}

interface DriftTimes {
  /** Simulator call counts just before the change, to count the calls the correction took. */
  readonly callsBefore: CallCounts;
  readonly driftAt: number;
  readonly detectedAt: number;
  readonly correctedAt: number;
}

/** The pool the demo drifts: in the Ready cluster with the most pools, its last managed pool. */
function driftTarget(all: readonly ClusterRecord[]): { target: ClusterRecord; pool: NodePool } {
  const candidates = all
    .filter((r) => r.status?.ready)
    .map((r) => ({ target: r, pools: specPools(r) ?? [] }))
    .sort((a, b) => b.pools.length - a.pools.length);
  for (const { target, pools } of candidates) {
    const pool = pools.findLast((p) => p.scaling === 'managed');
    if (pool) return { target, pool };
  }
  throw new Error('demo: no example with a managed pool converged to Ready');
}

/** The pool's node group as the last run observed it. */
const poolOf = (r: ClusterRecord | undefined, pool: string) =>
  r?.status?.observed?.pools?.find((p) => p.name === pool);

/** Scales the pool's node group in the simulator, where CloudOrch does not see it happen. */
async function scaleBehindBack(
  dev: DevHandle,
  target: ClusterRecord,
  pool: string,
  drifted: number,
): Promise<{ callsBefore: CallCounts; driftAt: number }> {
  const nodegroup = poolOf(target, pool)?.nodegroup;
  if (!nodegroup) throw new Error(`demo: pool ${pool} has no node group`);
  const callsBefore = await dev.cp.simAdmin.calls();
  const driftAt = Date.now();
  await dev.cp.simAdmin.driftNodegroup(target.spec.clusterName, nodegroup, {
    scaling: { desiredSize: drifted, maxSize: drifted },
  });
  return { callsBefore, driftAt };
}

const driftedIs = (r: ClusterRecord | undefined, status: 'True' | 'False') =>
  r?.status?.conditions.some((c) => c.type === 'Drifted' && c.status === status) === true;

/** Drifts one pool of a Ready cluster and waits for the sweep to detect and then correct it. */
async function driftAndWait(
  dev: DevHandle,
  all: readonly ClusterRecord[],
  log: Log,
  t0: number,
): Promise<DriftTimes> {
  const { target, pool } = driftTarget(all);
  const want = pool.nodeCount;
  const drifted = want + 3;
  log(
    `\n3. drift: someone scales pool ${pool.name} of ${target.spec.clusterName} from ${want} to ${drifted} nodes behind CloudOrch's back`,
  );
  const { callsBefore, driftAt } = await scaleBehindBack(dev, target, pool.name, drifted);
  log(`   [${secs(t0)}] out-of-band change made in the simulator; waiting for the scheduled sweep`);
  const detected = await until('the drift to be detected', async () => {
    const r = await dev.cp.store.get(target.id);
    return driftedIs(r, 'True') ? r : undefined;
  });
  const detectedAt = Date.now();
  log(
    `   [${secs(t0)}] drift detected after ${secs(driftAt)}: ${(detected.status?.lastDrift ?? []).map((d) => `${d.field} want ${d.desired}, found ${d.observed}`).join('; ')}`,
  );
  const fixed = await until('the drift to be corrected', async () => {
    const r = await dev.cp.store.get(target.id);
    return r?.status?.ready && poolOf(r, pool.name)?.nodeCount === want && driftedIs(r, 'False')
      ? r
      : undefined;
  });
  const correctedAt = Date.now();
  log(
    `   [${secs(t0)}] drift corrected: pool ${pool.name} has ${poolOf(fixed, pool.name)?.nodeCount} nodes again, ${span(detectedAt, correctedAt)} after detection`,
  );
  return { callsBefore, driftAt, detectedAt, correctedAt };
}

/** Each cluster's add-ons (version, status, issue codes) and access entries, as its last run observed. */
function partsLines(rs: readonly ClusterRecord[]): string[] {
  const lines: string[] = [];
  for (const r of rs) {
    const o = r.status?.observed;
    if (o?.addons?.length) lines.push(`   add-ons of ${r.id}: ${o.addons.map(addonText).join(', ')}`);
    if (!o?.access?.entries) continue;
    const entries = o.access.entries.map(
      (e) =>
        `${e.principalArn.split(':').at(-1)} ${e.policies.join(', ') || e.type}${e.listed ? '' : ' (not listed)'}`,
    );
    lines.push(`   access to ${r.id}: ${accessCell(o)}: ${entries.join('; ')}`);
  }
  return lines;
}

/** Prints the fleet table and the demo's figures; returns how many executions failed. */
async function printSummary(
  dev: DevHandle,
  count: number,
  t0: number,
  converged: number,
  d: DriftTimes & { readonly rolloutCalls: CallCounts },
  log: Log,
): Promise<number> {
  const after = await records(dev);
  const calls = await dev.cp.simAdmin.calls();
  const sum = (c: CallCounts) => Object.values(c).reduce((n, x) => n + x.requests, 0);
  const ex = dev.cp.sfn.counts();
  log('\nsummary');
  for (const line of table([[...COLUMNS], ...after.map((r) => row(r, new Date()))])) log(`   ${line}`);
  for (const r of after.filter((x) => (x.status?.observed?.pools?.length ?? 0) > 1)) {
    const pools = (r.status?.observed?.pools ?? []).map(
      (p) => `${p.name} ${p.nodeCount ?? '-'} x ${(p.instanceTypes ?? []).join('|') || '-'} ${p.status}`,
    );
    log(`   pools of ${r.id}: ${pools.join(', ')}`);
  }
  for (const line of partsLines(after)) log(line);
  log(
    `   converged ${count} clusters in ${span(t0, converged)} (the simulator runs EKS ${dev.cp.sim.state.config.speed}x faster)`,
  );
  log(
    `   drift detected ${span(d.driftAt, d.detectedAt)} after the change, corrected ${span(d.driftAt, d.correctedAt)} after it`,
  );
  log(
    `   EKS API calls: ${sum(calls)} in all, ${sum(d.rolloutCalls) - sum(d.callsBefore)} for the drift, ${sum(calls) - sum(d.rolloutCalls)} during the rollout; executions: ${ex.started} started, ${ex.succeeded} succeeded, ${ex.failed} failed`,
  );
  const denied = after.filter((r) => reasonOf(r) === 'PolicyViolation').map((r) => r.id);
  log(`   denied by policy (nothing applied): ${denied.join(', ') || 'none'}`);
  log(`   dashboard: ${dev.dashboardUrl}`);
  return ex.failed;
}

export async function runDemo(dev: DevHandle, log: Log): Promise<number> {
  const t0 = Date.now();
  const manifests = await loadExamples();
  await applyExamples(dev, manifests, log);
  const all = await watchConvergence(dev, manifests.length, log, t0);
  const converged = Date.now();
  const drift = await driftAndWait(dev, all, log, t0);
  const rolloutCalls = await demoRollout(dev, all, log, until);
  const failed = await printSummary(dev, manifests.length, t0, converged, { ...drift, rolloutCalls }, log);
  return failed === 0 ? 0 : 1;
}
