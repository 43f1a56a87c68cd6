/**
 * The bridge as a real cluster runs it: the API server calls the webhook (ValidatingAdmissionWebhook
 * on, with the ValidatingWebhookConfiguration from bridge/deploy) and refuses objects in namespaces
 * that do not exist (NamespaceLifecycle on). Leases and Events are served by stand-in CRDs.
 * - DynamoDB unreachable: admission still allows valid and denies invalid CloudClusters, `/readyz`
 *   stays 200 and `/readyz/mirror` says why nothing is mirrored.
 * - A Lease namespace that does not exist: `/readyz/mirror` names it after a bounded number of
 *   attempts; the log shows status, reason and message, not client-node's escaped exception text.
 * - Events: a failing mirror write becomes a Warning Event whose series counts the repeats.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBridge } from '../../bridge/app.js';
import { MIRROR_HEALTH_PATH, READYZ_PATH } from '../../bridge/constants.js';
import { EventRecorder, SERIES_WINDOW_MS } from '../../bridge/events.js';
import { asCloudCluster } from '../../bridge/kube.js';
import { applyOutcome } from '../../lambdas/core/status.js';
import { freePort } from '../support/free-port.js';
import { type CoreStub, startCoreStub } from './core-stub.js';
import {
  cloudCluster,
  crPath,
  type Dynamo,
  installBuiltinStandIn,
  installCrd,
  startDynamo,
  startTestBridge,
  validSpec,
  waitFor,
  webhookConfiguration,
} from './support.js';
import { makePki, startTestEnv, type TestEnv } from './testenv.js';

const NS = 'team-a';
const MISSING_NS = 'no-such-namespace';
const POD = { name: 'cloudorch-bridge-7d9f-abcde', namespace: 'cloudorch-system', uid: 'pod-uid-1' };
let env: TestEnv;
let core: CoreStub;
let dynamo: Dynamo;
let webhookPort: number;

const health = async (bridge: RunningBridge, path: string) => {
  const r = await fetch(`http://127.0.0.1:${bridge.healthPort}${path}`);
  return { status: r.status, body: await r.text() };
};

const create = (name: string, spec: unknown) =>
  env.request('POST', crPath(NS, ''), { body: cloudCluster(NS, name, spec) });

beforeAll(async () => {
  webhookPort = await freePort();
  // The API server trusts the webhook through the same test CA that signs its own certificate.
  const pkiDir = mkdtempSync(join(tmpdir(), 'cloudorch-core-'));
  const pki = makePki(pkiDir);
  core = await startCoreStub({
    namespaces: ['default', 'cloudorch-system', NS],
    validatingWebhookConfigurations: [webhookConfiguration(pki.caCert, webhookPort)],
  });
  env = await startTestEnv({ core, pki });
  dynamo = await startDynamo();
  await installCrd(env);
  await installBuiltinStandIn(env, { group: 'coordination.k8s.io', kind: 'Lease', plural: 'leases' });
  await installBuiltinStandIn(env, { group: 'events.k8s.io', kind: 'Event', plural: 'events' });
}, 600_000);

afterAll(async () => {
  await env?.stop();
  await core?.stop();
  await dynamo?.stop();
});

interface EventObj {
  metadata: { name: string };
  type: string;
  reason: string;
  action: string;
  note: string;
  reportingController: string;
  regarding: { kind: string; name: string; uid: string };
  series?: { count: number; lastObservedTime: string };
}

async function eventsFor(name: string, ns = NS): Promise<EventObj[]> {
  const r = await env.request('GET', `/apis/events.k8s.io/v1/namespaces/${ns}/events`);
  if (r.status !== 200) throw new Error(`list events: ${r.status} ${r.body}`);
  return (JSON.parse(r.body) as { items: EventObj[] }).items.filter((e) => e.regarding.name === name);
}

describe('in a cluster whose API server calls the webhook', () => {
  it('admits and denies with DynamoDB unreachable; a Lease namespace that does not exist makes the mirror unhealthy, naming it', async () => {
    await dynamo.down();
    const logs: string[] = [];
    const bridge = await startTestBridge(env, dynamo, {
      flags: {
        webhookPort,
        leaderElect: true,
        leaderElectionNamespace: MISSING_NS,
        leaseDurationSeconds: 3,
      },
      log: (m) => logs.push(m),
      pod: POD,
    });
    try {
      const allowed = await create('valid-during-outage', validSpec({ clusterName: 'valid-during-outage' }));
      expect(allowed.status).toBe(201);
      const denied = await create(
        'no-team-tag',
        validSpec({ clusterName: 'no-team', tags: { environment: 'dev' } }),
      );
      expect(denied.status).toBe(403);
      expect(denied.body).toContain(
        'admission webhook \\"validate.cloudclusters.compute.cloudorch.io\\" denied the request: denied by policy',
      );
      // The webhook can serve: the pod stays Ready.
      const ready = await health(bridge, READYZ_PATH);
      expect(ready.status).toBe(200);
      const mirror = await waitFor('mirror health names the Lease namespace', async () => {
        const h = await health(bridge, MIRROR_HEALTH_PATH);
        return h.status === 503 && h.body.includes('[-] leader') ? h.body : undefined;
      });
      expect(mirror).toContain('[-] dynamodb');
      expect(mirror).toContain(
        `[-] leader: cannot take Lease ${MISSING_NS}/cloudorch-bridge-leader (3 failed attempts in a row): KubeApiError: status 404, reason NotFound, message namespaces "${MISSING_NS}" not found`,
      );
      expect(bridge.isLeader()).toBe(false);
      // The Pod stays Ready, so the reason also goes where `kubectl describe pod` shows it.
      const podEvent = await waitFor('Pod Event', async () =>
        (await eventsFor(POD.name, POD.namespace)).find((e) => e.reason === 'LeaderElectionFailing'),
      );
      expect(podEvent).toMatchObject({
        type: 'Warning',
        action: 'LeaderElection',
        regarding: { kind: 'Pod', name: POD.name, uid: POD.uid },
      });
      expect(podEvent.note).toContain(`namespaces "${MISSING_NS}" not found`);
      expect(logs).toContain(
        `lease ${MISSING_NS}/cloudorch-bridge-leader: KubeApiError: status 404, reason NotFound, message namespaces "${MISSING_NS}" not found`,
      );
      expect(logs.join('\n')).not.toMatch(/HTTP-Code|Unknown API Status Code|\\"/);
    } finally {
      await bridge.stop();
      await dynamo.up();
    }
  }, 120_000);

  it('records a failing mirror write as one Warning Event whose series counts the repeats, then the condition changes', async () => {
    await dynamo.down();
    const logs: string[] = [];
    const bridge = await startTestBridge(env, dynamo, { flags: { webhookPort }, log: (m) => logs.push(m) });
    try {
      expect((await create('events', validSpec({ clusterName: 'events' }))).status).toBe(201);
      const failed = await waitFor('MirrorFailed repeated', async () => {
        const es = (await eventsFor('events')).filter((e) => e.reason === 'MirrorFailed');
        return es.some((e) => (e.series?.count ?? 1) >= 3) ? es : undefined;
      });
      // Deduplicated: the repeats are one Event's series, not new Events.
      expect(failed).toHaveLength(1);
      expect(failed[0]).toMatchObject({
        type: 'Warning',
        action: 'Mirror',
        reportingController: 'compute.cloudorch.io/bridge',
        regarding: { kind: 'CloudCluster', name: 'events' },
      });
      await dynamo.up();
      const id = `${NS}/events`;
      await waitFor('record', () => dynamo.store.get(id));
      // The pipeline converges the cluster: its conditions reach the CR, each change as an Event.
      await dynamo.store.acquireLease(id, 'test-execution', 60_000);
      const rec = await waitFor('record', () => dynamo.store.get(id));
      const status = applyOutcome(
        rec.status,
        { kind: 'Converged' },
        { generation: rec.generation, now: new Date() },
      );
      await dynamo.store.writeStatus(id, 'test-execution', { status });
      await dynamo.store.releaseLease(id, 'test-execution');
      const ready = await waitFor('Ready Event', async () =>
        (await eventsFor('events')).find((e) => e.action === 'WriteStatus' && e.note.startsWith('Ready ')),
      );
      expect(ready).toMatchObject({
        type: 'Normal',
        reason: 'Reconciled',
        regarding: { kind: 'CloudCluster', name: 'events' },
      });
    } finally {
      await bridge.stop();
    }
  }, 120_000);

  it('the recorder: repeats within the window are a series, later ones a new Event, a failed write is dropped', async () => {
    let now = Date.parse('2026-11-30T10:00:00Z');
    const logs: string[] = [];
    const events = new EventRecorder({
      kc: env.kubeConfig(),
      controller: 'compute.cloudorch.io/bridge',
      instance: 'test',
      log: (m) => logs.push(m),
      clock: () => now,
    });
    // Events may name any object; this one need not exist (nor pass the webhook).
    const obj = asCloudCluster({
      ...cloudCluster(NS, 'recorder'),
      metadata: { name: 'recorder', namespace: NS, uid: 'uid-recorder', resourceVersion: '1', generation: 1 },
    });
    const warn = {
      type: 'Warning',
      reason: 'SpecInvalid',
      action: 'Mirror',
      note: 'spec.nodeCount: too big',
    } as const;
    events.record(obj, warn);
    now += 60_000;
    events.record(obj, warn);
    events.record(obj, { ...warn, note: 'spec.nodeCount: too small' });
    await events.flush();
    let seen = await eventsFor('recorder');
    expect(seen.map((e) => [e.note, e.series?.count ?? 1]).sort()).toEqual([
      ['spec.nodeCount: too big', 2],
      ['spec.nodeCount: too small', 1],
    ]);
    now += SERIES_WINDOW_MS + 1;
    events.record(obj, warn);
    await events.flush();
    seen = await eventsFor('recorder');
    expect(seen.filter((e) => e.note === warn.note)).toHaveLength(2);
    // A namespace that does not exist: the API server refuses; record() neither throws nor blocks.
    const elsewhere = { ...obj, metadata: { ...obj.metadata, namespace: MISSING_NS } };
    events.record(elsewhere, warn);
    await events.flush();
    expect(logs).toEqual([
      `event SpecInvalid on CloudCluster ${MISSING_NS}/recorder dropped: KubeApiError: status 404, reason NotFound, message namespaces "${MISSING_NS}" not found`,
    ]);
  }, 60_000);
});
