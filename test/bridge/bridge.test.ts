/**
 * The bridge against a real API server (apiextensions-apiserver on etcd, see testenv.ts) and a
 * DynamoDB-compatible store (dynalite): the CRD, the mirror, status write-back with printer columns,
 * generations, the finalizer flow, conflicts, restarts and outages. The pipeline itself is not run:
 * its status writes are made with the store, as the pipeline's WriteStatus step makes them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import type { RunningBridge } from '../../bridge/app.js';
import { FINALIZER } from '../../bridge/constants.js';
import { PRINTER_COLUMNS } from '../../bridge/crd.js';
import { ConditionType, Reason, success } from '../../lambdas/core/conditions.js';
import { specSchema } from '../../lambdas/core/spec/schema.js';
import {
  type AccessSummary,
  applyOutcome,
  type ObservedPool,
  type Outcome,
  type OutcomeContext,
} from '../../lambdas/core/status.js';
import { type AddonSummary, upgradeConditions } from '../../lambdas/core/status-parts.js';
import {
  cloudCluster,
  crPath,
  type Dynamo,
  installCrd,
  startDynamo,
  startTestBridge,
  validSpec,
  waitFor,
} from './support.js';
import { startTestEnv, type TestEnv } from './testenv.js';

interface Cr {
  metadata: {
    generation: number;
    resourceVersion: string;
    finalizers?: string[];
    deletionTimestamp?: string;
  };
  spec: Record<string, unknown>;
  status?: {
    observedGeneration?: number;
    estimatedMonthlyCost?: number;
    conditions?: { type: string; status: string; reason: string; observedGeneration?: number }[];
    ready?: unknown;
    observed?: Record<string, unknown>;
  };
}

/** One observed pool with every member the status schema lists, so pruning any would show. */
const POOL: ObservedPool = {
  name: 'default',
  nodegroup: 'cloudorch-t3-large-od-0123abcd',
  status: 'ACTIVE',
  version: '1.31',
  nodeCount: 3,
  minSize: 1,
  maxSize: 4,
  instanceTypes: ['t3.large'],
  capacityType: 'ON_DEMAND',
  labels: { 'node-role': 'general' },
  taints: [{ key: 'dedicated', value: 'batch', effect: 'NO_SCHEDULE' }],
  otherNodegroups: ['cloudorch-t3-medium-od-4567cdef'],
};

/** Add-ons with every member the status schema lists, one with issues and one without a version. */
const ADDONS: AddonSummary[] = [
  {
    name: 'vpc-cni',
    version: 'v1.19.0-eksbuild.1',
    status: 'DEGRADED',
    issues: ['InsufficientNumberOfReplicas'],
  },
  { name: 'coredns', status: 'Missing' },
];

/** An access summary with a listed entry and one made by hand. */
const ACCESS: AccessSummary = {
  authenticationMode: 'API_AND_CONFIG_MAP',
  entries: [
    {
      principalArn: 'arn:aws:iam::123456789012:role/platform-admin',
      type: 'STANDARD',
      policies: ['AmazonEKSClusterAdminPolicy (cluster)'],
      listed: true,
    },
    {
      principalArn: 'arn:aws:iam::123456789012:role/by-hand',
      type: 'STANDARD',
      policies: ['AmazonEKSViewPolicy (team-a, team-b)'],
      listed: false,
    },
  ],
};

let env: TestEnv;
let dynamo: Dynamo;
let bridge: RunningBridge;
const writes: string[] = [];
/** Per key and write kind, a change to race in before the bridge's next write of that kind. */
const races = new Map<string, () => Promise<void>>();

const NS = 'team-a';
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

async function getCr(name: string, ns = NS): Promise<Cr | undefined> {
  const r = await env.request('GET', crPath(ns, name));
  if (r.status === 404) return undefined;
  if (r.status !== 200) throw new Error(`GET ${name}: ${r.status} ${r.body}`);
  return JSON.parse(r.body) as Cr;
}

async function createCr(name: string, spec: unknown = validSpec(), ns = NS): Promise<Cr> {
  const r = await env.request('POST', crPath(ns), { body: cloudCluster(ns, name, spec) });
  if (r.status !== 201) throw new Error(`create ${name}: ${r.status} ${r.body}`);
  return JSON.parse(r.body) as Cr;
}

async function mergePatch(path: string, body: unknown): Promise<Cr> {
  const r = await env.request('PATCH', path, { body, contentType: 'application/merge-patch+json' });
  if (r.status !== 200) throw new Error(`patch ${path}: ${r.status} ${r.body}`);
  return JSON.parse(r.body) as Cr;
}

/** What the pipeline's WriteStatus step does: take the lease, write a status built by applyOutcome. */
async function pipelineWrites(
  id: string,
  outcome: Outcome,
  ctx: Partial<OutcomeContext> = {},
): Promise<void> {
  const owner = 'test-execution';
  await dynamo.store.acquireLease(id, owner, 60_000);
  const rec = (await dynamo.store.get(id))!;
  const status = applyOutcome(rec.status, outcome, { generation: rec.generation, now: new Date(), ...ctx });
  await dynamo.store.writeStatus(id, owner, { status });
  await dynamo.store.releaseLease(id, owner);
}

beforeAll(async () => {
  env = await startTestEnv();
  dynamo = await startDynamo();
  await installCrd(env);
  bridge = await startTestBridge(env, dynamo, {
    beforeWrite: async (key, kind) => {
      writes.push(`${key}:${kind}`);
      const race = races.get(`${key}:${kind}`);
      if (race) {
        races.delete(`${key}:${kind}`);
        await race();
      }
    },
  });
}, 600_000);

afterAll(async () => {
  await bridge?.stop();
  await dynamo?.stop();
  await env?.stop();
});

describe('CRD generated from the spec schema', () => {
  it('is served with the status subresource and enforces the schema on the server', async () => {
    const bad = await env.request('POST', crPath(NS), {
      body: cloudCluster(NS, 'bad-region', validSpec({ region: 'xx-east-1' })),
    });
    expect(bad.status).toBe(422);
    expect(bad.body).toContain('spec.region');
    const missing = await env.request('POST', crPath(NS), { body: cloudCluster(NS, 'no-spec', {}) });
    expect(missing.status).toBe(422);
  });

  it('accepts the multi-pool example and checks each pool against the structural schema', async () => {
    // dryRun: the API server validates and defaults, nothing is stored and the bridge sees nothing.
    const dryRun = (name: string, spec: unknown) =>
      env.request('POST', `${crPath(NS)}?dryRun=All`, { body: cloudCluster(NS, name, spec) });
    const manifest = parseYaml(readFileSync(join(ROOT, 'examples', 'multi-pool.yaml'), 'utf8')) as {
      spec: { nodeGroups: Record<string, unknown>[] };
    };
    const ok = await dryRun('pools', manifest.spec);
    expect(ok.status, ok.body).toBe(201);
    const created = JSON.parse(ok.body) as { spec: { nodeGroups: Record<string, unknown>[] } };
    expect(created.spec.nodeGroups.map((p) => p['name'])).toEqual(['system', 'general', 'spot']);
    expect(created.spec.nodeGroups[1]).toMatchObject({ capacityType: 'ON_DEMAND', scaling: 'managed' });
    const [first, ...rest] = manifest.spec.nodeGroups;
    const badEffect = { ...first, taints: [{ key: 'k', effect: 'NoSchedule' }] };
    const bad = await dryRun('bad-taint', { ...manifest.spec, nodeGroups: [badEffect, ...rest] });
    expect(bad.status).toBe(422);
    expect(bad.body).toContain('spec.nodeGroups[0].taints[0].effect');
  });
});

describe('mirror', () => {
  it('adds the finalizer and writes the spec to record <namespace>/<name>', async () => {
    await createCr('alpha');
    const rec = await waitFor('record team-a/alpha', () => dynamo.store.get(`${NS}/alpha`));
    // Stored normalised: the CR's flat fields are the pool `default`.
    expect(rec.spec).toMatchObject({
      clusterName: 'team-a',
      nodeGroups: [{ name: 'default', nodeCount: 3, instanceTypes: ['t3.large'] }],
    });
    expect(rec.generation).toBe(1);
    const cr = await waitFor('finalizer', async () => {
      const c = await getCr('alpha');
      return c?.metadata.finalizers?.includes(FINALIZER) ? c : undefined;
    });
    expect(cr.metadata.finalizers).toEqual([FINALIZER]);
  });

  it("shows the pipeline's status on the CR, printer columns read from the conditions", async () => {
    const id = `${NS}/alpha`;
    await pipelineWrites(
      id,
      { kind: 'Converged' },
      {
        observed: { health: 'Healthy', version: '1.31', nodeCount: 3, poolCount: 1, pools: [POOL] },
        estimatedMonthlyCost: 321.5,
      },
    );
    const cr = await waitFor('status on the CR', async () => {
      const c = await getCr('alpha');
      return c?.status?.observedGeneration === 1 ? c : undefined;
    });
    expect(cr.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({
      status: 'True',
      observedGeneration: 1,
    });
    expect(cr.status?.estimatedMonthlyCost).toBe(321.5);
    expect(cr.status?.ready).toBeUndefined(); // no boolean beside the conditions

    // The pool list passes the CRD's status schema whole: nothing of it is pruned.
    expect(cr.status?.observed).toMatchObject({ poolCount: 1, pools: [POOL] });
    const table = await readTable('alpha');
    expect(table).toMatchObject({
      READY: 'True',
      SYNCED: 'True',
      VERSION: '1.31',
      NODES: 3,
      POOLS: 1,
      COST: 321.5,
    });

    // A failure after a success turns READY false: the column cannot lie.
    await pipelineWrites(id, {
      kind: 'Failed',
      errorKind: 'Permanent',
      message: 'AccessDenied',
      remediation: 'grant eks:*',
    });
    const failed = await waitFor('READY False', async () => {
      const t = await readTable('alpha');
      return t['READY'] === 'False' ? t : undefined;
    });
    expect(failed['SYNCED']).toBe('False');
  });

  it("keeps the add-ons, access entries and the parts' conditions in status: none is pruned", async () => {
    await createCr('parts', validSpec({ clusterName: 'parts' }));
    const id = `${NS}/parts`;
    await waitFor('record team-a/parts', () => dynamo.store.get(id));
    const parts = [
      success(ConditionType.AddonsReady, Reason.AddonsActive, '2 add-ons ACTIVE', 1),
      ...upgradeConditions([], [], 1),
    ];
    await pipelineWrites(
      id,
      { kind: 'Converged' },
      { observed: { health: 'Healthy', version: '1.31', addons: ADDONS, access: ACCESS }, parts },
    );
    const cr = await waitFor('status on the CR', async () => {
      const c = await getCr('parts');
      return c?.status?.observedGeneration === 1 ? c : undefined;
    });
    expect(cr.status?.observed?.['addons']).toEqual(ADDONS);
    expect(cr.status?.observed?.['access']).toEqual(ACCESS);
    const byType = new Map(cr.status?.conditions?.map((c) => [c.type, c]));
    expect(byType.get('AddonsReady')).toMatchObject({ status: 'True', reason: 'AddonsActive' });
    expect(byType.get('UpgradeBlocked')).toMatchObject({ status: 'False', reason: 'UpgradeClear' });
    expect(byType.get('UpgradeWarning')).toMatchObject({ status: 'False', reason: 'UpgradeClear' });
  });

  it('mirrors a spec update as a new generation and maps the generation back', async () => {
    const before = await getCr('alpha');
    const updated = await mergePatch(crPath(NS, 'alpha'), { spec: { nodeCount: 5 } });
    expect(updated.metadata.generation).toBe((before?.metadata.generation ?? 0) + 1);
    const rec = await waitFor('record generation 2', async () => {
      const r = await dynamo.store.get(`${NS}/alpha`);
      return r?.generation === 2 ? r : undefined;
    });
    expect(rec.spec.nodeGroups[0]?.nodeCount).toBe(5);
    await pipelineWrites(
      `${NS}/alpha`,
      { kind: 'Converged' },
      { observed: { health: 'Healthy', version: '1.31', nodeCount: 5 } },
    );
    const cr = await waitFor('observedGeneration follows', async () => {
      const c = await getCr('alpha');
      return c?.status?.observedGeneration === updated.metadata.generation ? c : undefined;
    });
    expect((await readTable('alpha'))['NODES']).toBe(5);
    expect(cr.status?.conditions?.every((c) => c.observedGeneration === updated.metadata.generation)).toBe(
      true,
    );
  });

  it("mirrors the CR's labels to the record; a label-only change bumps no generation", async () => {
    const before = await waitFor('record team-a/alpha', () => dynamo.store.get(`${NS}/alpha`));
    await mergePatch(crPath(NS, 'alpha'), {
      metadata: { labels: { tier: 'gold', 'example.com/team': 'a' } },
    });
    const labelled = await waitFor('labels on the record', async () => {
      const r = await dynamo.store.get(`${NS}/alpha`);
      return r?.labels?.['tier'] === 'gold' ? r : undefined;
    });
    expect(labelled.labels).toEqual({ tier: 'gold', 'example.com/team': 'a' });
    expect(labelled.generation).toBe(before.generation);
    expect(labelled.specHash).toBe(before.specHash);
    // Removing a label on the CR removes it from the record: the CR's labels are the whole set.
    await mergePatch(crPath(NS, 'alpha'), { metadata: { labels: { tier: null } } });
    const removed = await waitFor('label removed', async () => {
      const r = await dynamo.store.get(`${NS}/alpha`);
      return r && r.labels?.['tier'] === undefined ? r : undefined;
    });
    expect(removed.labels).toEqual({ 'example.com/team': 'a' });
    expect(removed.generation).toBe(before.generation);
  });

  it('a CR naming a cluster another record manages is refused on the CR, naming it; no record is written', async () => {
    // alpha holds cluster team-a; twin names it too (the webhook refuses this up front when registered).
    await createCr('twin', validSpec());
    const cr = await waitFor('TargetClaimed on the CR', async () => {
      const c = await getCr('twin');
      return c?.status?.conditions?.some((x) => x.reason === 'TargetClaimed') ? c : undefined;
    });
    const ready = cr.status?.conditions?.find((x) => x.type === 'Ready');
    expect(ready).toMatchObject({ status: 'False', reason: 'TargetClaimed' });
    expect(JSON.stringify(ready)).toMatch(new RegExp(`${NS}/alpha`));
    expect(await dynamo.store.get(`${NS}/twin`)).toBeUndefined();
    expect((await env.request('DELETE', crPath(NS, 'twin'))).status).toBe(200);
    await waitFor('twin gone', async () => ((await getCr('twin')) === undefined ? true : undefined));
  });

  it('holds the finalizer through deletion and releases it when the record is gone', async () => {
    const id = `${NS}/alpha`;
    const del = await env.request('DELETE', crPath(NS, 'alpha'));
    expect(del.status).toBe(200);
    const rec = await waitFor('deletion requested', async () => {
      const r = await dynamo.store.get(id);
      return r?.deletionRequestedAt ? r : undefined;
    });
    expect(rec.spec.deletionPolicy).toBe('Delete');
    // The cluster is still being deleted: the CR stays, terminating, with the finalizer.
    await pipelineWrites(id, { kind: 'Deleting', operation: 'DeleteCluster team-a' });
    const terminating = await waitFor('Deleting status on the CR', async () => {
      const c = await getCr('alpha');
      return c?.status?.conditions?.some((x) => x.reason === 'Deleting') ? c : undefined;
    });
    expect(terminating.metadata.deletionTimestamp).toBeDefined();
    expect(terminating.metadata.finalizers).toContain(FINALIZER);
    // The pipeline deleted the cluster and released the record: now the CR goes.
    const owner = 'test-execution';
    await dynamo.store.acquireLease(id, owner, 60_000);
    await dynamo.store.release(id, owner);
    await waitFor('CR gone', async () => ((await getCr('alpha')) === undefined ? true : undefined));
  });

  it('with deletionPolicy Retain, releases the finalizer once deletion is requested', async () => {
    await createCr('kept', validSpec({ clusterName: 'kept', deletionPolicy: 'Retain' }));
    await waitFor('record', () => dynamo.store.get(`${NS}/kept`));
    await waitFor('finalizer', async () =>
      (await getCr('kept'))?.metadata.finalizers?.length ? true : undefined,
    );
    expect((await env.request('DELETE', crPath(NS, 'kept'))).status).toBe(200);
    await waitFor('CR gone', async () => ((await getCr('kept')) === undefined ? true : undefined));
    expect((await dynamo.store.get(`${NS}/kept`))?.deletionRequestedAt).toBeDefined();
  });

  it('retries 409 conflicts from the API server and from the store against a fresh read', async () => {
    const key = `${NS}/racy`;
    // Right before the bridge adds its finalizer, someone else changes the object: a real 409.
    races.set(`${key}:finalizer`, async () => {
      await mergePatch(crPath(NS, 'racy'), { metadata: { labels: { touched: 'yes' } } });
    });
    // Right before it writes the spec, another spec writer writes the record: a ConflictError.
    races.set(`${key}:spec`, async () => {
      await dynamo.store.applySpec(key, specSchema.parse(validSpec({ clusterName: 'racy', nodeCount: 1 })));
    });
    await createCr('racy', validSpec({ clusterName: 'racy' }));
    const rec = await waitFor('record with the CR spec', async () => {
      const r = await dynamo.store.get(key);
      return r?.spec.nodeGroups[0]?.nodeCount === 3 ? r : undefined;
    });
    expect(rec.spec.clusterName).toBe('racy');
    const cr = await getCr('racy');
    expect(cr?.metadata.finalizers).toEqual([FINALIZER]);
    expect(writes.filter((w) => w === `${key}:finalizer`).length).toBeGreaterThanOrEqual(2);
    expect(writes.filter((w) => w === `${key}:spec`).length).toBeGreaterThanOrEqual(2);
    expect(bridge.queue.failureCount(key)).toBe(0);
  });
});

describe('outages', () => {
  it('loses nothing when the API server restarts mid-watch', async () => {
    await createCr('before-restart', validSpec({ clusterName: 'before-restart' }));
    await waitFor('record', () => dynamo.store.get(`${NS}/before-restart`));
    await env.stopApiServer();
    // While the API server is down the pipeline reports status...
    await pipelineWrites(`${NS}/before-restart`, { kind: 'Converged' }, { estimatedMonthlyCost: 99 });
    await env.startApiServer();
    // ...and after it is back, new objects arrive through the resumed watch.
    await createCr('after-restart', validSpec({ clusterName: 'after-restart' }));
    await waitFor('record after restart', () => dynamo.store.get(`${NS}/after-restart`));
    await waitFor('status written back after restart', async () => {
      const c = await getCr('before-restart');
      return c?.status?.estimatedMonthlyCost === 99 ? true : undefined;
    });
    await waitFor('watch alive again', async () => (bridge.informer.health().watching ? true : undefined));
  }, 120_000);

  it('loses nothing when DynamoDB is briefly unavailable; the mirror health says so, /readyz stays 200', async () => {
    await dynamo.down();
    await createCr('during-outage', validSpec({ clusterName: 'during-outage' }));
    const health = (path: string) => fetch(`http://127.0.0.1:${bridge.healthPort}${path}`);
    const unhealthy = await waitFor('mirror health 503', async () => {
      const r = await health('/readyz/mirror');
      return r.status === 503 ? r.text() : undefined;
    });
    expect(unhealthy).toContain('[-] dynamodb');
    // The webhook needs no DynamoDB: the pod stays Ready, so admission keeps working.
    const webhookReady = await health('/readyz');
    expect(webhookReady.status).toBe(200);
    expect(await webhookReady.text()).not.toContain('dynamodb');
    await waitFor('failed attempts queued', async () =>
      bridge.queue.failureCount(`${NS}/during-outage`) > 0 ? true : undefined,
    );
    await dynamo.up();
    await waitFor('record after outage', () => dynamo.store.get(`${NS}/during-outage`));
    const healthy = await waitFor('mirror health 200', async () => {
      const r = await health('/readyz/mirror');
      return r.status === 200 ? r.text() : undefined;
    });
    for (const check of ['watch', 'dynamodb', 'leader']) expect(healthy).toContain(`[+] ${check} ok`);
    const ready = await (await health('/readyz')).text();
    for (const check of ['webhook', 'policy']) expect(ready).toContain(`[+] ${check} ok`);
  }, 120_000);
});

/** The CR as `kubectl get` shows it: the server's Table rendering, column name -> cell. */
async function readTable(name: string): Promise<Record<string, unknown>> {
  const r = await env.request('GET', crPath(NS, name), {
    accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
  });
  const table = JSON.parse(r.body) as {
    kind: string;
    columnDefinitions: { name: string }[];
    rows: { cells: unknown[] }[];
  };
  expect(table.kind).toBe('Table');
  const names = table.columnDefinitions.map((c) => c.name);
  expect(names).toEqual(['Name', ...PRINTER_COLUMNS.map((c) => c.name)]);
  const cells = table.rows[0]?.cells ?? [];
  return Object.fromEntries(names.map((n, i) => [n, cells[i]]));
}
