/** Shared pieces of the bridge suite: the store on dynalite, the CRD install, a bridge in process. */

import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { connect, createServer as createNetServer, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SFNClient } from '@aws-sdk/client-sfn';
import dynalite from 'dynalite';
import { parse } from 'yaml';
import { type RunningBridge, startBridge } from '../../bridge/app.js';
import {
  CRD_NAME,
  GROUP,
  PLURAL,
  ROLLOUT_CRD_NAME,
  ROLLOUT_PLURAL,
  VERSION,
} from '../../bridge/constants.js';
import { CRD_FILE } from '../../bridge/crd.js';
import type { BridgeFlags } from '../../bridge/flags.js';
import type { BeforeWrite } from '../../bridge/mirror.js';
import { ROLLOUT_CRD_FILE } from '../../bridge/rollout-crd.js';
import type { CloudClusterSpecInput } from '../../lambdas/core/spec/schema.js';
import { FileBundleSource, PolicyEngine } from '../../lambdas/policy/index.js';
import { DynamoDesiredStateStore } from '../../lambdas/store/dynamo-store.js';
import { DynamoRolloutStore } from '../../lambdas/store/rollouts.js';
import { createTable } from '../../local/store/table.js';
import { BUNDLE_FILE, POLICY_DIR } from '../../policies/build.js';
import { freePort } from '../support/free-port.js';
import type { TestEnv } from './testenv.js';

export const BUNDLE_PATH = join(POLICY_DIR, 'build', BUNDLE_FILE);
export const TABLE = 'cloudorch-bridge-test';
export const ROLLOUT_TABLE = 'cloudorch-bridge-rollouts-test';
/** The Rollout machine the test bridge starts: rollout.test.ts serves it on a local endpoint. */
export const ROLLOUT_MACHINE_ARN = 'arn:aws:states:us-east-1:000000000000:stateMachine:cloudorch-rollout';

export const validSpec = (over: Partial<CloudClusterSpecInput> = {}): CloudClusterSpecInput => ({
  provider: 'aws',
  region: 'us-east-1',
  clusterName: 'team-a',
  kubernetesVersion: '1.34',
  nodeCount: 3,
  instanceType: 't3.large',
  tags: { team: 'platform', environment: 'dev' },
  deletionPolicy: 'Delete',
  ...over,
});

export const crPath = (ns: string, name?: string) =>
  `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${PLURAL}${name ? `/${name}` : ''}`;

export function cloudCluster(ns: string, name: string, spec: unknown = validSpec()) {
  return { apiVersion: `${GROUP}/${VERSION}`, kind: 'CloudCluster', metadata: { name, namespace: ns }, spec };
}

/** A CloudRollout spec the schema accepts: a canary stage that waits for approval, then the rest. */
export const validRolloutSpec = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  clusters: ['team-a/alpha', 'team-a/beta', 'team-b/gamma'],
  change: { kubernetesVersion: '1.34' },
  stages: [
    { name: 'canary', clusters: ['team-a/alpha'], approval: 'after' },
    { name: 'rest', maxConcurrency: 2 },
  ],
  ...over,
});

export const rolloutPath = (ns: string, name?: string) =>
  `/apis/${GROUP}/${VERSION}/namespaces/${ns}/${ROLLOUT_PLURAL}${name ? `/${name}` : ''}`;

export function cloudRollout(ns: string, name: string, spec: unknown = validRolloutSpec()) {
  return { apiVersion: `${GROUP}/${VERSION}`, kind: 'CloudRollout', metadata: { name, namespace: ns }, spec };
}

/**
 * dynalite behind a loopback TCP proxy. `down()` closes the proxy and cuts its connections, so the
 * bridge sees DynamoDB vanish while dynalite keeps its data (closing dynalite itself drops it);
 * `up()` listens again on the same port. The test's own store talks to dynalite directly.
 */
export interface Dynamo {
  /** What the bridge uses: through the proxy. */
  readonly bridgeClient: DynamoDBClient;
  readonly bridgeEndpoint: string;
  readonly store: DynamoDesiredStateStore;
  /** The rollout table, read and written directly (as the rollout functions write status). */
  readonly rollouts: DynamoRolloutStore;
  down(): Promise<void>;
  up(): Promise<void>;
  stop(): Promise<void>;
}

const localClient = (endpoint: string) =>
  new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 2,
  });

export async function startDynamo(tableName = TABLE, rolloutTableName = ROLLOUT_TABLE): Promise<Dynamo> {
  const server: Server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  const dynalitePort = await freePort();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(dynalitePort, '127.0.0.1', () => resolve());
  });
  const sockets = new Set<Socket>();
  const proxy = createNetServer((inbound) => {
    const outbound = connect(dynalitePort, '127.0.0.1');
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => s.destroy());
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  const proxyPort = await freePort();
  const up = () =>
    new Promise<void>((resolve, reject) => {
      proxy.once('error', reject);
      proxy.listen(proxyPort, '127.0.0.1', () => resolve());
    });
  const down = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      proxy.close(() => resolve());
    });
  await up();
  const client = localClient(`http://127.0.0.1:${dynalitePort}`);
  const bridgeClient = localClient(`http://127.0.0.1:${proxyPort}`);
  await createTable(client, tableName, { stream: false });
  await createTable(client, rolloutTableName, { stream: false });
  return {
    bridgeClient,
    bridgeEndpoint: `http://127.0.0.1:${proxyPort}`,
    store: new DynamoDesiredStateStore({ client, tableName }),
    rollouts: new DynamoRolloutStore(client, rolloutTableName),
    down,
    up,
    stop: async () => {
      client.destroy();
      bridgeClient.destroy();
      if (proxy.listening) await down();
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}

/** Applies the committed (generated) CRDs, CloudCluster and CloudRollout; waits until both are Established. */
export async function installCrd(env: TestEnv): Promise<void> {
  await installOneCrd(env, CRD_FILE, CRD_NAME);
  await installOneCrd(env, ROLLOUT_CRD_FILE, ROLLOUT_CRD_NAME);
}

async function installOneCrd(env: TestEnv, file: string, name: string): Promise<void> {
  const crd: unknown = parse(readFileSync(file, 'utf8'));
  const r = await env.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
    body: crd,
  });
  if (r.status !== 201 && r.status !== 409) throw new Error(`CRD install failed: ${r.status} ${r.body}`);
  await waitFor(`CRD ${name} Established`, async () => {
    const g = await env.request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
    const conds = (JSON.parse(g.body) as { status?: { conditions?: { type: string; status: string }[] } })
      .status?.conditions;
    return conds?.some((c) => c.type === 'Established' && c.status === 'True') ? true : undefined;
  });
}

/**
 * Polls until `probe` returns a value (not undefined). Fails with the last value seen after a bound
 * on attempts: it waits for an outcome, it does not assert on timing.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  attempts = 400,
): Promise<T> {
  let last: unknown;
  for (let i = 0; i < attempts; i++) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`gave up waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

export function testFlags(over: Partial<BridgeFlags> = {}): BridgeFlags {
  return {
    tableName: TABLE,
    rolloutTableName: ROLLOUT_TABLE,
    rolloutStateMachineArn: ROLLOUT_MACHINE_ARN,
    policyBundle: BUNDLE_PATH,
    policyReloadSeconds: 60,
    bindAddress: '127.0.0.1',
    webhookPort: 0,
    webhookCertDir: '',
    healthPort: 0,
    watchNamespace: '',
    resyncSeconds: 0.2,
    leaderElect: false,
    leaderElectionNamespace: 'cloudorch-system',
    leaderElectionId: 'cloudorch-bridge-leader',
    leaseDurationSeconds: 15,
    kubeconfig: '',
    ...over,
  };
}

export async function startTestBridge(
  env: TestEnv,
  dynamo: Dynamo,
  opts: {
    beforeWrite?: BeforeWrite;
    flags?: Partial<BridgeFlags>;
    log?: (m: string) => void;
    pod?: { name: string; namespace: string; uid: string };
    /** Where Rollout executions start (a local Step Functions endpoint). */
    sfn?: SFNClient;
  } = {},
): Promise<RunningBridge> {
  return startBridge(testFlags({ webhookCertDir: env.pki.webhookCertDir, ...opts.flags }), {
    kc: env.kubeConfig(),
    dynamo: dynamo.bridgeClient,
    engine: new PolicyEngine({ source: new FileBundleSource(BUNDLE_PATH) }),
    log: opts.log ?? (() => {}),
    ...(opts.beforeWrite ? { beforeWrite: opts.beforeWrite } : {}),
    ...(opts.pod ? { pod: opts.pod } : {}),
    ...(opts.sfn ? { sfn: opts.sfn } : {}),
  });
}

/**
 * A CRD serving a built-in Kubernetes type (Lease, Event) that the standalone API server lacks:
 * protected `*.k8s.io` groups need the "unapproved, test only" annotation (upstream's own trick).
 * Same API path, resourceVersion and 409 handling; not the built-in type's field validation.
 */
export async function installBuiltinStandIn(
  env: TestEnv,
  t: { group: string; kind: string; plural: string },
): Promise<void> {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${t.plural}.${t.group}`,
      annotations: { 'api-approved.kubernetes.io': 'unapproved, test only' },
    },
    spec: {
      group: t.group,
      scope: 'Namespaced',
      names: { kind: t.kind, listKind: `${t.kind}List`, plural: t.plural, singular: t.kind.toLowerCase() },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  };
  const r = await env.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
    body: crd,
  });
  if (r.status !== 201) throw new Error(`${t.plural} CRD: ${r.status} ${r.body}`);
  await waitFor(`${t.plural} served`, async () => {
    const g = await env.request('GET', `/apis/${t.group}/v1/${t.plural}`);
    return g.status === 200 ? true : undefined;
  });
}

/**
 * bridge/deploy/webhook.yaml, calling the test's bridge by URL instead of through the Service
 * (there are no Services): each webhook keeps its own path.
 */
export function webhookConfiguration(caFile: string, webhookPort: number): Record<string, unknown> {
  const doc = parse(readFileSync(join(dirname(CRD_FILE), 'webhook.yaml'), 'utf8')) as {
    webhooks: Record<string, unknown>[];
  };
  const caBundle = readFileSync(caFile).toString('base64');
  const webhooks = doc.webhooks.map((w) => {
    const path = (w['clientConfig'] as { service: { path: string } }).service.path;
    return { ...w, clientConfig: { url: `https://127.0.0.1:${webhookPort}${path}`, caBundle } };
  });
  return { ...doc, webhooks };
}
