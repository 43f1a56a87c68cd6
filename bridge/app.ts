/**
 * Wires the bridge: informer -> work queue -> mirror for CloudClusters and for CloudRollouts (both
 * write only while leading), the webhook, the health server and leader election. `startBridge` is
 * what main.ts runs and what the tests start in-process against a real API server; it fails if the
 * webhook or health port cannot be bound.
 */
import { hostname } from 'node:os';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { SFNClient } from '@aws-sdk/client-sfn';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  type BundleSource,
  FileBundleSource,
  PolicyEngine,
  parseS3Url,
  S3BundleSource,
} from '../lambdas/policy/index.js';
import { sdkObjectGetter } from '../lambdas/policy/sdk-object-getter.js';
import { DynamoDesiredStateStore } from '../lambdas/store/dynamo-store.js';
import { FINALIZER } from './constants.js';
import { EventRecorder, type EventSink, type EventSubject } from './events.js';
import type { BridgeFlags } from './flags.js';
import { GenerationMap } from './generations.js';
import { startHealthServer } from './health.js';
import { type CheckSources, healthChecks } from './health-checks.js';
import type { CloudClusterInformer } from './informer.js';
import { CloudClusterApi } from './kube.js';
import { LeaderElector } from './leader.js';
import { type BeforeWrite, Mirror } from './mirror.js';
import { mirrorLoop } from './mirror-loop.js';
import type { WorkQueue } from './queue.js';
import { type RolloutPipeline, rolloutPipeline } from './rollout-pipeline.js';
import { startWebhook } from './webhook.js';

export type Log = (msg: string) => void;

export const jsonLog: Log = (msg) =>
  process.stderr.write(
    `${JSON.stringify({ time: new Date().toISOString(), component: 'cloudorch-bridge', msg })}\n`,
  );

export function policyEngineFor(flags: BridgeFlags): PolicyEngine {
  const at = parseS3Url(flags.policyBundle);
  const source: BundleSource = at
    ? new S3BundleSource(sdkObjectGetter(new S3Client({})), at.bucket, at.key)
    : new FileBundleSource(flags.policyBundle);
  return new PolicyEngine({ source, reloadIntervalMs: flags.policyReloadSeconds * 1000 });
}

export interface BridgeDeps {
  readonly kc: KubeConfig;
  readonly dynamo: DynamoDBClient;
  /** Starts Rollout executions; default the SDK's standard chain. */
  readonly sfn?: SFNClient;
  readonly engine: PolicyEngine;
  readonly log?: Log;
  /** Lease holder name; default POD_NAME or host name and pid. */
  readonly identity?: string;
  /** Called when leadership is lost; main.ts exits so the pod restarts as a follower. */
  readonly onLostLeadership?: () => void;
  readonly beforeWrite?: BeforeWrite;
  /** This replica's Pod, for Events about the replica itself; default POD_NAME, POD_NAMESPACE, POD_UID. */
  readonly pod?: { readonly name: string; readonly namespace: string; readonly uid: string };
}

export interface RunningBridge {
  readonly webhookPort: number;
  readonly healthPort: number;
  readonly informer: CloudClusterInformer;
  readonly queue: WorkQueue;
  readonly mirror: Mirror;
  readonly events: EventRecorder;
  readonly rollouts: RolloutPipeline;
  isLeader(): boolean;
  stop(): Promise<void>;
}

/** This replica's name, for the Lease holder and the Events' reportingInstance. */
const identityOf = (deps: BridgeDeps): string =>
  deps.identity ?? process.env['POD_NAME'] ?? `${hostname()}-${process.pid}`;

/** The Pod as an Event subject, when the Deployment passes its name, namespace and uid. */
function podOf(deps: BridgeDeps): EventSubject | undefined {
  const env = process.env;
  const pod =
    deps.pod ??
    (env['POD_NAME'] && env['POD_NAMESPACE'] && env['POD_UID']
      ? { name: env['POD_NAME'], namespace: env['POD_NAMESPACE'], uid: env['POD_UID'] }
      : undefined);
  return pod && { apiVersion: 'v1', kind: 'Pod', metadata: pod };
}

/** The queues write only while this replica leads (or always, without leader election). */
function startWriting(
  flags: BridgeFlags,
  deps: BridgeDeps,
  queues: readonly WorkQueue[],
  everyKey: () => void,
  log: Log,
  events: EventSink,
): LeaderElector | undefined {
  if (!flags.leaderElect) {
    for (const q of queues) q.start();
    return undefined;
  }
  const elector = new LeaderElector({
    kc: deps.kc,
    namespace: flags.leaderElectionNamespace,
    name: flags.leaderElectionId,
    identity: identityOf(deps),
    leaseDurationSeconds: flags.leaseDurationSeconds,
    log,
    onStartedLeading: () => {
      for (const q of queues) q.start();
      everyKey();
    },
    onStoppedLeading: () => {
      for (const q of queues) q.pause();
      deps.onLostLeadership?.();
    },
    // The Pod stays Ready (its webhook works), so `kubectl describe pod` is where this shows.
    onFailing: (reason) => {
      const pod = podOf(deps);
      if (pod)
        events.record(pod, {
          type: 'Warning',
          reason: 'LeaderElectionFailing',
          action: 'LeaderElection',
          note: reason,
        });
    },
  });
  elector.start();
  return elector;
}

/** The mirror pipeline: informer -> work queue -> mirror, with events on the CRs. */
function pipeline(flags: BridgeFlags, deps: BridgeDeps, store: DynamoDesiredStateStore, log: Log) {
  const api = new CloudClusterApi(deps.kc, flags.watchNamespace);
  const events = new EventRecorder({ kc: deps.kc, controller: FINALIZER, instance: identityOf(deps), log });
  const { informer, queue, mirror, everyKey } = mirrorLoop({
    kind: 'CloudCluster',
    api,
    events,
    log,
    mirror: (cached) =>
      new Mirror({
        api,
        store,
        generations: new GenerationMap(),
        cached,
        events,
        ...(deps.beforeWrite ? { beforeWrite: deps.beforeWrite } : {}),
      }),
  });
  return { informer, queue, mirror, events, everyKey };
}

/** The webhook (HTTPS) and the health server; fails, closing what it opened, if a port is taken. */
async function servers(
  flags: BridgeFlags,
  deps: BridgeDeps,
  log: Log,
  sources: Omit<CheckSources, 'webhookListening'>,
) {
  await deps.engine.ready();
  const webhook = await startWebhook({
    engine: deps.engine,
    certDir: flags.webhookCertDir,
    port: flags.webhookPort,
    host: flags.bindAddress,
    log,
    claims: sources.store,
  });
  const health = await startHealthServer({
    port: flags.healthPort,
    host: flags.bindAddress,
    checks: healthChecks({ ...sources, webhookListening: webhook.listening }),
  }).catch(async (err: unknown) => {
    await webhook.close();
    throw err;
  });
  return { webhook, health };
}

export async function startBridge(flags: BridgeFlags, deps: BridgeDeps): Promise<RunningBridge> {
  const log = deps.log ?? jsonLog;
  const store = new DynamoDesiredStateStore({ client: deps.dynamo, tableName: flags.tableName });
  const { informer, queue, mirror, events, everyKey } = pipeline(flags, deps, store, log);
  const rollouts = rolloutPipeline({
    flags,
    kc: deps.kc,
    dynamo: deps.dynamo,
    sfn: deps.sfn ?? new SFNClient({}),
    events,
    log,
  });
  const allKeys = () => {
    everyKey();
    rollouts.everyKey();
  };
  let elector: LeaderElector | undefined;
  const { webhook, health } = await servers(flags, deps, log, {
    watch: () => informer.health(),
    rolloutWatch: () => rollouts.informer.health(),
    store,
    rolloutStore: rollouts.store,
    engine: deps.engine,
    elector: () => elector,
  });
  elector = startWriting(flags, deps, [queue, rollouts.queue], allKeys, log, events);
  informer.start();
  rollouts.informer.start();
  // Status comes from DynamoDB, which the bridge does not watch: re-read every record periodically.
  const resync = setInterval(allKeys, flags.resyncSeconds * 1000);
  log(
    `started: webhook :${webhook.port}, health :${health.port}, leader election ${flags.leaderElect ? 'on' : 'off'}`,
  );
  return {
    webhookPort: webhook.port,
    healthPort: health.port,
    informer,
    queue,
    mirror,
    events,
    rollouts,
    isLeader: () => (elector ? elector.isLeader() : true),
    stop: async () => {
      clearInterval(resync);
      // The informers first (no new keys), then the queues drain, so no write outlives the bridge.
      await Promise.all([informer.stop(), rollouts.informer.stop()]);
      await Promise.all([queue.stop(), rollouts.queue.stop()]);
      await elector?.stop();
      await events.flush();
      await Promise.all([webhook.close(), health.close()]);
    },
  };
}
