/**
 * The validating webhook answers real AdmissionReview requests over HTTPS. The standalone API
 * server has ValidatingAdmissionWebhook disabled and no Services to route to, so the reviews are
 * posted the way kube-apiserver posts them: JSON to the configured path, TLS verified against the CA.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLLOUT_WEBHOOK_PATH, WEBHOOK_PATH } from '../../bridge/constants.js';
import { startWebhook, type WebhookServer } from '../../bridge/webhook.js';
import { FileBundleSource, PolicyEngine } from '../../lambdas/policy/index.js';
import { BUNDLE_PATH, cloudCluster, cloudRollout, validRolloutSpec, validSpec } from './support.js';
import { makePki, type Pki } from './testenv.js';

let dir: string;
let pki: Pki;
let webhook: WebhookServer;
let degraded: WebhookServer;

interface Review {
  response: {
    uid: string;
    allowed: boolean;
    status?: { code: number; message: string };
    warnings?: string[];
  };
}

function post(
  server: WebhookServer,
  body: unknown,
  opts: { path?: string; method?: string; maxVersion?: 'TLSv1.2' | 'TLSv1.3' } = {},
): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        path: opts.path ?? WEBHOOK_PATH,
        method: opts.method ?? 'POST',
        ca: readFileSync(pki.caCert),
        servername: 'localhost',
        ...(opts.maxVersion ? { maxVersion: opts.maxVersion } : {}),
        headers: { 'content-type': 'application/json' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          resolve({ status: res.statusCode ?? 0, json: text ? JSON.parse(text) : undefined });
        });
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const review = (request: Record<string, unknown>) => ({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: { uid: 'b5a2c6e0-0000-4000-8000-000000000001', namespace: 'team-a', name: 'alpha', ...request },
});

const create = (spec: unknown) =>
  review({ operation: 'CREATE', object: cloudCluster('team-a', 'alpha', spec) });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cloudorch-webhook-'));
  pki = makePki(dir);
  const engine = new PolicyEngine({ source: new FileBundleSource(BUNDLE_PATH) });
  await engine.ready();
  const log = () => {};
  // Policies read the date (version support windows): a fixed one keeps the verdicts stable.
  const clock = () => new Date('2026-06-01T00:00:00Z');
  webhook = await startWebhook({
    engine,
    certDir: pki.webhookCertDir,
    port: 0,
    host: '127.0.0.1',
    log,
    clock,
  });
  const broken = new PolicyEngine({ source: new FileBundleSource(join(dir, 'no-such-bundle.tar.gz')) });
  await broken.ready();
  degraded = await startWebhook({
    engine: broken,
    certDir: pki.webhookCertDir,
    port: 0,
    host: '127.0.0.1',
    log,
    clock,
  });
});

afterAll(async () => {
  await webhook?.close();
  await degraded?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('validating webhook', () => {
  it('allows a valid CloudCluster and echoes the request uid', async () => {
    const r = await post(webhook, create(validSpec()));
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: { uid: 'b5a2c6e0-0000-4000-8000-000000000001', allowed: true },
    });
  });

  it('denies a spec the schema rejects, naming the field and the rule', async () => {
    const r = (await post(webhook, create(validSpec({ region: 'xx-east-1' })))).json as Review;
    expect(r.response.allowed).toBe(false);
    expect(r.response.status?.code).toBe(403);
    expect(r.response.status?.message).toContain('spec.region');
    expect(r.response.status?.message).toContain('xx-east-1');
  });

  it('denies a schema-valid spec the policy bundle rejects, with the violations', async () => {
    const r = (await post(webhook, create(validSpec({ tags: { environment: 'dev' } })))).json as Review;
    expect(r.response.allowed).toBe(false);
    expect(r.response.status?.message).toMatch(/^denied by policy: .*team/);
  });

  it('allows edits that leave the spec alone and anything on an object being deleted', async () => {
    // A spec that no longer passes must not block the bridge's finalizer removal.
    const stale = cloudCluster('team-a', 'alpha', validSpec({ tags: {} }));
    const labelled = { ...stale, metadata: { ...stale.metadata, labels: { a: 'b' } } };
    const metaOnly = (
      await post(webhook, review({ operation: 'UPDATE', object: labelled, oldObject: stale }))
    ).json as Review;
    expect(metaOnly.response.allowed).toBe(true);
    const deleting = { ...stale, metadata: { ...stale.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } };
    const onDelete = (
      await post(webhook, review({ operation: 'UPDATE', object: deleting, oldObject: labelled }))
    ).json as Review;
    expect(onDelete.response.allowed).toBe(true);
    const changed = cloudCluster('team-a', 'alpha', validSpec({ tags: {}, nodeCount: 4 }));
    const specEdit = (await post(webhook, review({ operation: 'UPDATE', object: changed, oldObject: stale })))
      .json as Review;
    expect(specEdit.response.allowed).toBe(false);
  });

  it('fails closed when the policy bundle is not loaded', async () => {
    const r = (await post(degraded, create(validSpec()))).json as Review;
    expect(r.response.allowed).toBe(false);
    expect(r.response.status?.message).toContain('policy-engine-degraded');
  });

  it('validates CloudRollouts on their own path, naming the refused field', async () => {
    const rollout = (spec: unknown) =>
      review({ operation: 'CREATE', object: cloudRollout('team-a', 'wave', spec) });
    const ok = (await post(webhook, rollout(validRolloutSpec()), { path: ROLLOUT_WEBHOOK_PATH }))
      .json as Review;
    expect(ok.response.allowed).toBe(true);
    const bad = validRolloutSpec({ stages: [{ name: 'canary', soak: '3 days' }] });
    const denied = (await post(webhook, rollout(bad), { path: ROLLOUT_WEBHOOK_PATH })).json as Review;
    expect(denied.response.allowed).toBe(false);
    expect(denied.response.status?.message).toMatch(/^spec is invalid: spec\.stages\[0\]\.soak: /);
    // The policy bundle is not asked: a rollout changes clusters only through the pipeline, which checks each.
    const underDegraded = (await post(degraded, rollout(validRolloutSpec()), { path: ROLLOUT_WEBHOOK_PATH }))
      .json as Review;
    expect(underDegraded.response.allowed).toBe(true);
  });

  it('speaks TLS 1.3 only and serves only its paths', async () => {
    await expect(post(webhook, create(validSpec()), { maxVersion: 'TLSv1.2' })).rejects.toThrow();
    expect((await post(webhook, create(validSpec()), { path: '/validate' })).status).toBe(404);
    expect((await post(webhook, {}, { method: 'PUT' })).status).toBe(405);
    expect((await post(webhook, { kind: 'Pod' })).status).toBe(400);
  });
});
