/**
 * Wires the bridge: informer -> work queue -> mirror (writes only while leading), the webhook, the
 * health server and leader election. `startBridge` is what main.ts runs and what the tests start
 * in-process against a real API server; it fails if the webhook or health port cannot be bound.
 */
import { hostname } from 'node:os';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  type BundleSource,
  FileBundleSource,
  PolicyEngine,
  S3BundleSource,
} from '../lambdas/policy/index.js';
import { DynamoDesiredStateStore } from '../lambdas/store/dynamo-store.js';
import type { BridgeFlags } from './flags.js';
import { GenerationMap } from './generations.js';
import { type HealthChecks, startHealthServer } from './health.js';
import { CloudClusterInformer } from './informer.js';
import { CloudClusterApi } from './kube.js';
import { LeaderElector } from './leader.js';
import { type BeforeWrite, Mirror } from './mirror.js';
import { WorkQueue } from './queue.js';
import { startWebhook } from './webhook.js';

export type Log = (msg: string) => void;

export const jsonLog: Log = (msg) =>
  process.stderr.write(
    `${JSON.stringify({ time: new Date().toISOString(), component: 'cloudorch-bridge', msg })}\n`,
  );

/** Read only to answer readiness: a GetItem that proves the table answers with our permissions. */
const PROBE_ID = 'cloudorch-bridge/readiness-probe';

export function policyEngineFor(flags: BridgeFlags): PolicyEngine {
  const m = /^s3:\/\/([^/]+)\/(.+)$/.exec(flags.policyBundle);
  const source: BundleSource = m
    ? new S3BundleSource(new S3Client({}), m[1] as string, m[2] as string)
    : new FileBundleSource(flags.policyBundle);
  return new PolicyEngine({ source, reloadIntervalMs: flags.policyReloadSeconds * 1000 });
}

export interface BridgeDeps {
  readonly kc: KubeConfig;
  readonly dynamo: DynamoDBClient;
  readonly engine: PolicyEngine;
  readonly log?: Log;
  /** Lease holder name; default POD_NAME or host name and pid. */
  readonly identity?: string;
  /** Called when leadership is lost; main.ts exits so the pod restarts as a follower. */
  readonly onLostLeadership?: () => void;
  readonly beforeWrite?: BeforeWrite;
}

export interface RunningBridge {
  readonly webhookPort: number;
  readonly healthPort: number;
  readonly informer: CloudClusterInformer;
  readonly queue: WorkQueue;
  readonly mirror: Mirror;
  isLeader(): boolean;
  stop(): Promise<void>;
}

/** Liveness is the webhook alone; readiness needs the watch, the table and a loaded policy bundle. */
function healthChecks(
  webhookListening: () => boolean,
  watch: () => ReturnType<CloudClusterInformer['health']> | undefined,
  store: DynamoDesiredStateStore,
  engine: PolicyEngine,
): HealthChecks {
  return {
    live: {
      webhook: () => (webhookListening() ? undefined : 'webhook server is not listening'),
    },
    ready: {
      watch: () => {
        const h = watch();
        if (!h?.synced) return `cloudclusters not listed yet${h?.lastError ? `: ${h.lastError}` : ''}`;
        return h.watching ? undefined : `watch is reconnecting${h.lastError ? `: ${h.lastError}` : ''}`;
      },
      dynamodb: async () => {
        await store.get(PROBE_ID);
        return undefined;
      },
      policy: () => {
        const h = engine.health();
        return h.status === 'ok' ? undefined : `policy bundle not loaded: ${h.reason ?? 'unknown'}`;
      },
    },
  };
}

/** The queue writes only while this replica leads (or always, without leader election). */
function startWriting(
  flags: BridgeFlags,
  deps: BridgeDeps,
  queue: WorkQueue,
  everyKey: () => void,
  log: Log,
): LeaderElector | undefined {
  if (!flags.leaderElect) {
    queue.start();
    return undefined;
  }
  const elector = new LeaderElector({
    kc: deps.kc,
    namespace: flags.leaderElectionNamespace,
    name: flags.leaderElectionId,
    identity: deps.identity ?? process.env['POD_NAME'] ?? `${hostname()}-${process.pid}`,
    leaseDurationSeconds: flags.leaseDurationSeconds,
    log,
    onStartedLeading: () => {
      queue.start();
      everyKey();
    },
    onStoppedLeading: () => {
      queue.pause();
      deps.onLostLeadership?.();
    },
  });
  elector.start();
  return elector;
}

export async function startBridge(flags: BridgeFlags, deps: BridgeDeps): Promise<RunningBridge> {
  const log = deps.log ?? jsonLog;
  const store = new DynamoDesiredStateStore({ client: deps.dynamo, tableName: flags.tableName });
  const api = new CloudClusterApi(deps.kc, flags.watchNamespace);
  const generations = new GenerationMap();
  let informer: CloudClusterInformer | undefined;
  const mirror = new Mirror({
    api,
    store,
    generations,
    cached: (key) => informer?.get(key),
    ...(deps.beforeWrite ? { beforeWrite: deps.beforeWrite } : {}),
  });
  const queue = new WorkQueue({
    work: async (key) => {
      const result = await mirror.reconcile(key);
      if (result !== 'mirrored') log(`CloudCluster ${key}: ${result}`);
    },
    log: (m) => log(`CloudCluster ${m}`),
  });
  informer = new CloudClusterInformer({ api, onChange: (key) => queue.add(key), log });
  const everyKey = () => {
    for (const key of informer?.keys() ?? []) queue.add(key);
  };

  await deps.engine.ready();
  const webhook = await startWebhook({
    engine: deps.engine,
    certDir: flags.webhookCertDir,
    port: flags.webhookPort,
    host: flags.bindAddress,
    log,
    claims: store,
  });
  const health = await startHealthServer({
    port: flags.healthPort,
    host: flags.bindAddress,
    checks: healthChecks(webhook.listening, () => informer?.health(), store, deps.engine),
  }).catch(async (err: unknown) => {
    await webhook.close();
    throw err;
  });

  const elector = startWriting(flags, deps, queue, everyKey, log);

  informer.start();
  // Status comes from DynamoDB, which the bridge does not watch: re-read every record periodically.
  const resync = setInterval(everyKey, flags.resyncSeconds * 1000);
  log(
    `started: webhook :${webhook.port}, health :${health.port}, leader election ${flags.leaderElect ? 'on' : 'off'}`,
  );

  return {
    webhookPort: webhook.port,
    healthPort: health.port,
    informer,
    queue,
    mirror,
    isLeader: () => (elector ? elector.isLeader() : true),
    stop: async () => {
      clearInterval(resync);
      // The informer first (no new keys), then the queue drains, so no write outlives the bridge.
      await informer?.stop();
      await queue.stop();
      await elector?.stop();
      await Promise.all([webhook.close(), health.close()]);
    },
  };
}
