/**
 * The local drift dashboard in a real browser against a real `cloudorch dev` (in-process): the
 * examples are applied and settle, one cluster drifts in the simulator and the sweep corrects it,
 * then headless Chromium reads the page. Every expectation compares the page with the records and
 * metrics the API serves, never with numbers written here.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SFNClient } from '@aws-sdk/client-sfn';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveRollout, type RolloutControl, startRollout } from '../../lambdas/handlers/rollout/control.js';
import type { ClusterRecord } from '../../lambdas/store/types.js';
import { loadManifests } from '../../local/cli/load.js';
import { type DevHandle, startDev } from '../../local/dev/dev.js';
import type { metricsSnapshot } from '../../local/dev/server.js';
import { LOCAL_REGION } from '../../local/runtime/control-plane.js';
import { LOCAL_CREDENTIALS } from '../../local/runtime/credentials.js';

type Metrics = Awaited<ReturnType<typeof metricsSnapshot>>;

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EXAMPLES = join(ROOT, 'examples');
const SCREENSHOT = resolve(ROOT, 'test-results', 'dashboard.png');
/** Debian's Chromium, installed by scripts/setup.sh; CHROMIUM_PATH points elsewhere. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Without the background-networking flags Chromium dials Google services, which a closed network refuses. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
/** The multi-pool example's pool the test scales behind CloudOrch's back. */
const DRIFTED_POOL = 'general';
const SETTLED = ['Reconciled', 'PolicyViolation', 'SpecInvalid', 'NotOwned', 'ImpossibleChange'];

const tmp = mkdtempSync(join(tmpdir(), 'cloudorch-dashboard-'));
let dev: DevHandle;
let context: BrowserContext;
let page: Page;
let driftedId: string;
const requested: string[] = [];
const pageErrors: string[] = [];

async function until<T>(what: string, f: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 900; i++) {
    const v = await f();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function api<T>(path: string): Promise<T> {
  const res = await fetch(`${dev.dashboardUrl}${path}`);
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

const readyReason = (r: ClusterRecord) => r.status?.conditions.find((c) => c.type === 'Ready')?.reason;
const drifted = (r: ClusterRecord | undefined, s: 'True' | 'False') =>
  r?.status?.conditions.some((c) => c.type === 'Drifted' && c.status === s) ?? false;

function rolloutControl(d: DevHandle): RolloutControl {
  return {
    rollouts: d.cp.deps.rollouts,
    sfn: new SFNClient({
      endpoint: d.cp.endpoints.sfn,
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
    }),
    stateMachineArn: d.cp.rolloutStateMachineArn,
    now: () => new Date(),
    reconcile: async () => undefined,
  };
}

async function launchBrowser(): Promise<BrowserContext> {
  try {
    // A persistent context on a fresh folder: a clean --user-data-dir, one browser launch.
    return await chromium.launchPersistentContext(join(tmp, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1280, height: 900 },
    });
  } catch (err) {
    throw new Error(
      `Cannot launch Chromium at ${CHROMIUM} (run \`. scripts/setup.sh\`, which installs Debian's chromium, or set CHROMIUM_PATH): ${String(err)}`,
    );
  }
}

/** Applies the examples, waits until all settle, drifts one through the simulator and waits for the sweep to fix it. */
async function convergeAndDrift(): Promise<string> {
  const { manifests, issues } = await loadManifests([EXAMPLES]);
  expect(issues).toEqual([]);
  for (const m of manifests) await dev.cp.store.applySpec(m.id, m.spec);
  const all = await until('the examples to settle', async () => {
    const rs = (await dev.cp.store.scanSegment(0, 1, { limit: 100 })).records;
    const done = rs.every(
      (r) => r.status?.observedGeneration === r.generation && SETTLED.includes(readyReason(r) ?? ''),
    );
    return rs.length === manifests.length && done ? rs : undefined;
  });
  // The multi-pool example: one of its pools drifts, the others are left alone.
  const target = all.find(
    (r) => r.status?.ready && r.spec.nodeGroups.length > 1 && r.spec.region === LOCAL_REGION,
  );
  if (!target) throw new Error(`no multi-pool example converged to Ready in ${LOCAL_REGION}`);
  const pool = target.spec.nodeGroups.find((p) => p.name === DRIFTED_POOL);
  const nodegroup = target.status?.observed?.pools?.find((p) => p.name === DRIFTED_POOL)?.nodegroup;
  if (!pool || !nodegroup) throw new Error(`${target.id} has no node group for pool ${DRIFTED_POOL}`);
  const size = pool.nodeCount + 3;
  await dev.cp.simAdmin.driftNodegroup(target.spec.clusterName, nodegroup, {
    scaling: { desiredSize: size, maxSize: size },
  });
  await until('the sweep to detect the drift', async () =>
    drifted(await dev.cp.store.get(target.id), 'True') ? true : undefined,
  );
  const observedSize = (r: ClusterRecord | undefined) =>
    r?.status?.observed?.pools?.find((p) => p.name === DRIFTED_POOL)?.nodeCount;
  await until('the drift to be corrected', async () => {
    const r = await dev.cp.store.get(target.id);
    return r?.status?.ready && observedSize(r) === pool.nodeCount && drifted(r, 'False') ? true : undefined;
  });
  return target.id;
}

beforeAll(async () => {
  process.env.CLOUDORCH_DEV_STATE = join(tmp, 'dev.json');
  context = await launchBrowser();
  dev = await startDev({ port: 0, sweepIntervalMs: 1000, speed: 600, waitScale: 0.02, log: () => {} });
  driftedId = await convergeAndDrift();
  page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(20_000);
  page.on('request', (req) => requested.push(req.url()));
  page.on('pageerror', (err) => pageErrors.push(err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error') pageErrors.push(msg.text());
  });
  await page.goto(dev.dashboardUrl);
  await page.waitForSelector('body[data-loaded="true"] #clusters-body tr');
});

afterAll(async () => {
  await context?.close();
  await dev?.stop();
  delete process.env.CLOUDORCH_DEV_STATE;
  rmSync(tmp, { recursive: true, force: true });
});

describe('local drift dashboard', () => {
  it('lists every cluster with READY, SYNCED, DRIFT and reason as its record says', async () => {
    const records = await api<ClusterRecord[]>('/api/clusters');
    const rows = await page.$$eval('#clusters-body tr', (trs) =>
      trs.map((tr) => ({
        id: tr.getAttribute('data-id'),
        ready: tr.querySelector('[data-col=ready]')?.textContent,
        synced: tr.querySelector('[data-col=synced]')?.textContent,
        drift: tr.querySelector('[data-col=drift]')?.textContent,
        reason: tr.querySelector('[data-col=reason]')?.textContent ?? '',
      })),
    );
    expect(rows.map((r) => r.id)).toEqual(records.map((r) => r.id));
    expect(records.some((r) => r.status?.ready === true)).toBe(true);
    expect(records.some((r) => r.status?.ready === false)).toBe(true);
    for (const rec of records) {
      const row = rows.find((r) => r.id === rec.id);
      expect(row?.ready, rec.id).toBe(String(rec.status?.ready));
      expect(row?.synced, rec.id).toBe(String(rec.status?.synced));
      expect(row?.reason, rec.id).toContain(readyReason(rec));
    }
    const denied = records.find((r) => readyReason(r) === 'PolicyViolation');
    expect(denied, 'an example denied by policy').toBeDefined();
    const deniedRow = rows.find((r) => r.id === denied?.id);
    expect(deniedRow?.reason).toContain('PolicyViolation');
    expect(deniedRow?.reason).toContain(denied?.status?.remediation);
    expect(rows.find((r) => r.id === driftedId)?.drift).toBe('no');
  });

  it('draws the drift detection, the convergence times and the EKS calls as SVG marks', async () => {
    const m = await api<Metrics>('/api/metrics');
    expect(m.drift.length).toBeGreaterThanOrEqual(1);
    const driftMarks = page.locator('[data-chart=timeline] .mark[data-series=drift]');
    const convergeMarks = page.locator('[data-chart=timeline] .mark[data-series=convergence]');
    // The page polls on its own: wait until it has drawn at least this snapshot's points.
    await driftMarks.nth(m.drift.length - 1).waitFor({ state: 'attached' });
    if (m.convergence.length > 0)
      await convergeMarks.nth(m.convergence.length - 1).waitFor({ state: 'attached' });
    expect(await driftMarks.count()).toBe(m.drift.length);
    expect(await convergeMarks.count()).toBe(m.convergence.length);
    const ops = Object.keys(m.eksCalls);
    expect(ops.length).toBeGreaterThan(0);
    const labels = await page.$$eval('[data-chart=eks-calls] .row .label', (ts) =>
      ts.map((t) => t.textContent),
    );
    expect(labels).toEqual(expect.arrayContaining(ops));
    expect(await page.locator('[data-chart=eks-calls] rect.mark').count()).toBeGreaterThanOrEqual(ops.length);
    const summary = await page.locator('#panel-drift-body .summary').textContent();
    expect(summary).toContain(`Drift detected ${m.drift.length} time`);
  });

  it('shows conditions, last drift, violations and history when a row is clicked', async () => {
    const target = await api<ClusterRecord>(`/api/clusters/${encodeURIComponent(driftedId)}`);
    await page.locator(`#clusters-body tr[data-id="${driftedId}"] td`).first().click();
    const details = page.locator('#details');
    await details.locator('h2', { hasText: driftedId }).waitFor();
    const text = (await details.textContent()) ?? '';
    for (const c of target.status?.conditions ?? []) expect(text).toContain(c.type);
    for (const d of target.status?.lastDrift ?? []) expect(text).toContain(d.field);
    expect(target.status?.lastDrift?.length).toBeGreaterThan(0);
    const historyRows = await details.locator('section:has(h3:text("Recent history")) tbody tr').count();
    expect(historyRows).toBe(Math.min(15, target.history?.length ?? 0));
    expect(text).toContain('UpdateNodegroupConfig');
    // The drift table names the pool; the pools table lists each pool as observed.
    const driftPools = await details
      .locator('section:has(h3:text("Last drift found")) tbody tr td:first-child')
      .allTextContents();
    expect(driftPools).toContain(DRIFTED_POOL);
    const observed = target.status?.observed?.pools ?? [];
    expect(observed.map((p) => p.name)).toEqual(['system', 'general', 'spot']);
    const poolRows = await details
      .locator('table[data-part=pools] tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    expect(poolRows.map((r) => r.slice(0, 4))).toEqual(
      observed.map((p) => [p.name, p.status, p.nodegroup, p.version]),
    );
    const system = poolRows[0] ?? [];
    expect(system.slice(-2)).toEqual(['node-role=system', 'CriticalAddonsOnly=true:NO_SCHEDULE']);
    const table = await page.$$eval('#clusters-body tr', (trs) =>
      trs.map((tr) => ({
        id: tr.getAttribute('data-id'),
        nodes: tr.querySelector('[data-col=nodes]')?.textContent,
        pools: tr.querySelector('[data-col=pools]')?.textContent,
      })),
    );
    expect(table.find((r) => r.id === driftedId)).toEqual({
      id: driftedId,
      nodes: String(target.status?.observed?.nodeCount),
      pools: '3',
    });

    const records = await api<ClusterRecord[]>('/api/clusters');
    const denied = records.find((r) => readyReason(r) === 'PolicyViolation');
    if (!denied) throw new Error('no denied example');
    await page.locator(`#clusters-body tr[data-id="${denied.id}"] button`).click();
    await details.locator('h2', { hasText: denied.id }).waitFor();
    const deniedText = (await details.textContent()) ?? '';
    expect(denied.status?.violations?.length).toBeGreaterThan(0);
    for (const v of denied.status?.violations ?? []) expect(deniedText).toContain(v.rule);
    expect(page.url()).toContain(`#cluster=${encodeURIComponent(denied.id)}`);

    mkdirSync(resolve(SCREENSHOT, '..'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(statSync(SCREENSHOT).size).toBeGreaterThan(0);
    console.log(`dashboard screenshot: ${SCREENSHOT}`);
  });

  it('shows the add-ons with their health and the access entries of a cluster that manages them', async () => {
    const records = await api<ClusterRecord[]>('/api/clusters');
    const target = records.find(
      (r) => r.status?.observed?.addons?.length && r.status.observed.access?.entries,
    );
    if (!target) throw new Error('no example with observed add-ons and access entries');
    await page.locator(`#clusters-body tr[data-id="${target.id}"] button`).click();
    const details = page.locator('#details');
    await details.locator('h2', { hasText: target.id }).waitFor();
    const cells = (part: string) =>
      details
        .locator(`table[data-part=${part}] tbody tr`)
        .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    const observed = target.status?.observed;
    expect(await cells('addons')).toEqual(
      (observed?.addons ?? []).map((a) => [
        a.name,
        target.spec.addons?.find((s) => s.name === a.name)?.version,
        a.version ?? '-',
        a.status,
        a.issues?.join(', ') || '-',
      ]),
    );
    const entries = (await cells('access')).map((row) => row.slice(0, 4));
    expect(entries).toEqual(
      (observed?.access?.entries ?? []).map((e) => [
        e.principalArn,
        e.type,
        e.policies.join('; ') || '-',
        expect.stringMatching(e.listed ? /^listed$/ : /^not listed/),
      ]),
    );
    expect(await details.locator('table[data-part=access] caption').textContent()).toContain(
      `Mode ${observed?.access?.authenticationMode}`,
    );
    const text = (await details.textContent()) ?? '';
    for (const type of ['AddonsReady', 'UpgradeBlocked', 'UpgradeWarning']) expect(text).toContain(type);
  });

  it('draws a rollout as lanes of stages with its clusters, the approval command, then its completion', async () => {
    const ready = (await api<ClusterRecord[]>('/api/clusters'))
      .filter((r) => r.status?.ready)
      .map((r) => r.id);
    expect(ready.length).toBeGreaterThanOrEqual(2);
    const id = 'platform/dashboard-tags';
    await dev.cp.deps.rollouts.put(
      id,
      {
        clusters: ready,
        change: { tags: { rollout: 'dashboard' } },
        stages: [
          { name: 'first', clusters: [ready[0]], approval: 'after' },
          { name: 'rest', maxConcurrency: '50%' },
        ],
        failurePolicy: { healthWindow: '1s' },
      },
      new Date(),
    );
    const control = rolloutControl(dev);
    await startRollout(control, id);
    const card = page.locator(`article[data-rollout="${id}"]`);
    await card.locator('.phase', { hasText: 'AwaitingApproval' }).waitFor({ timeout: 60_000 });
    expect(
      await card.locator('.stage-lane').evaluateAll((ls) => ls.map((l) => l.getAttribute('data-stage'))),
    ).toEqual(['first', 'rest']);
    expect(await card.locator('.stage-lane-approval code').textContent()).toBe(
      `cloudorch rollout approve ${id} --stage first`,
    );
    expect(await card.locator('[data-stage="first"] .chip').getAttribute('class')).toContain(
      'cluster-succeeded',
    );
    const served = await api<{ rollouts: { id: string; approval?: Record<string, unknown> }[] }>(
      '/api/rollouts',
    );
    // The task token resumes the execution: the read-only API never shows it.
    expect(served.rollouts.find((r) => r.id === id)?.approval).toEqual({
      stage: 'first',
      when: 'after',
      requestedAt: expect.any(String),
    });
    await approveRollout(control, id);
    await card.locator('.phase', { hasText: 'Completed' }).waitFor({ timeout: 60_000 });
    const chips = await card.locator('.chip').evaluateAll((cs) => cs.map((c) => c.getAttribute('class')));
    expect(chips).toHaveLength(ready.length);
    for (const c of chips) expect(c).toContain('cluster-succeeded');
  });

  it('loads nothing but its own origin and raises no page errors', () => {
    const origin = new URL(dev.dashboardUrl).origin;
    const foreign = requested.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('data:'));
    expect(foreign).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
