/**
 * The embedded control plane: the production handlers and the production state machine definition,
 * wired to local servers that speak the AWS wire protocols (a DynamoDB-compatible store, the EKS
 * simulator, the local Step Functions endpoint). Only endpoints differ from AWS; every client is the
 * real SDK client and every handler the real handler. `cloudorch dev` and the pipeline scenario
 * tests both run this.
 */
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SFNClient } from '@aws-sdk/client-sfn';
import dynalite from 'dynalite';
import type { PlanDefaults } from '../../lambdas/core/plan/types.js';
import { DEFAULT_CONFIG, type Deps, setDeps } from '../../lambdas/handlers/deps.js';
import { engineEvaluator } from '../../lambdas/handlers/env-deps.js';
import { sfnStarter } from '../../lambdas/handlers/sfn-starter.js';
import { runStep } from '../../lambdas/handlers/steps/index.js';
import { emit, METRIC } from '../../lambdas/handlers/telemetry.js';
import { perSecondLimiter } from '../../lambdas/handlers/token-bucket.js';
import { onChange } from '../../lambdas/handlers/triggers/on-change.js';
import { reconcileNow } from '../../lambdas/handlers/triggers/reconcile-now.js';
import { type SweepReport, sweep } from '../../lambdas/handlers/triggers/sweep.js';
import { FileBundleSource, PolicyEngine } from '../../lambdas/policy/index.js';
import { EksProvider } from '../../lambdas/provider/eks-provider.js';
import {
  DEFAULT_DEFINITION_OPTIONS,
  type DefinitionOptions,
  definitionString,
  STEP_FUNCTIONS,
  type StepFunctionKey,
  substitute,
} from '../../lambdas/statemachine/definition.js';
import { DynamoDesiredStateStore } from '../../lambdas/store/dynamo-store.js';
import { createTable } from '../../lambdas/store/table.js';
import { ensurePolicyBundle } from '../../policies/build.js';
import { type EksSimulator, SimAdminClient, startEksSimulator } from '../eks-sim/index.js';
import { type LocalSfnEndpoint, startLocalSfnEndpoint } from '../sfn/endpoint.js';
import { ChangeFeed } from '../store/change-feed.js';
import { feedWrites } from '../store/write-tap.js';
import { refuseBrowserRequests } from './browser-guard.js';

export const LOCAL_REGION = 'us-east-1';
export const LOCAL_ACCOUNT = '000000000000';
/** The local desired-state table (tools writing items straight to it, as tests do, name it). */
export const LOCAL_TABLE = 'cloudorch-desired-state';
const TABLE = LOCAL_TABLE;
const CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

/** Deployment defaults of the local account: roles and subnets the simulator accepts. */
export const LOCAL_DEFAULTS: PlanDefaults = {
  clusterRoleArn: `arn:aws:iam::${LOCAL_ACCOUNT}:role/cloudorch-local-cluster`,
  nodeRoleArn: `arn:aws:iam::${LOCAL_ACCOUNT}:role/cloudorch-local-node`,
  subnetIds: ['subnet-0a000000000000001', 'subnet-0b000000000000002'],
};

export interface ControlPlaneOptions {
  /** Keep the store's data in this folder across restarts (default: in memory). */
  readonly dataDir?: string;
  /** Simulator speed factor: EKS durations are divided by it. */
  readonly simSpeed?: number;
  readonly seed?: number;
  /** Real Wait seconds are multiplied by this (e.g. 0.001: 30 s -> 30 ms). */
  readonly waitScale?: number;
  /** Retry intervals in ms (local only; disables jitter locally). */
  readonly retryIntervalMs?: number;
  readonly definition?: DefinitionOptions;
  /** Run the sweep every this many ms (omit for no automatic sweep). */
  readonly sweepIntervalMs?: number;
  /** Where the policy bundle is built (default policies/build). */
  readonly policyBuildDir?: string;
  /** EKS HTTP attempts per second per region, retries included (omit: no client-side limit). */
  readonly eksCallsPerSecond?: number;
  /** Simulator clock, for tests that move time by hand. */
  readonly simClock?: () => number;
  /** The reconciler's clock (policy `now`, cost support phase, leases). Default: the wall clock. */
  readonly now?: () => Date;
  /** Overrides of the pipeline configuration (lease TTL, deletion call budget). */
  readonly config?: Partial<Pick<Deps['config'], 'leaseTtlMs' | 'maxDeletionCalls' | 'ownRoleArns'>>;
}

export interface ControlPlane {
  readonly store: DynamoDesiredStateStore;
  readonly sim: EksSimulator;
  readonly simAdmin: SimAdminClient;
  readonly sfn: LocalSfnEndpoint;
  readonly feed: ChangeFeed;
  readonly policy: PolicyEngine;
  readonly deps: Deps;
  readonly endpoints: { readonly dynamodb: string; readonly eks: string; readonly sfn: string };
  readonly stateMachineArn: string;
  readonly definition: string;
  sweepNow(): Promise<SweepReport>;
  /** "Reconcile now" for one record, then wait until everything settled. */
  reconcile(id: string): Promise<void>;
  /** Resolves once every change was delivered and no execution is running. */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

function localFunctionArn(key: StepFunctionKey): string {
  return `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT}:function:cloudorch-${key}`;
}

async function listen(server: ReturnType<typeof dynalite>): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export async function startControlPlane(opts: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => undefined);
    setDeps(undefined);
  };
  try {
    if (opts.dataDir) await mkdir(opts.dataDir, { recursive: true });
    const ddb = dynalite({
      createTableMs: 0,
      ...(opts.dataDir ? { path: join(opts.dataDir, 'dynamodb') } : {}),
    });
    // dynalite answers browsers with `Access-Control-Allow-Origin: *`: the dev store must not.
    refuseBrowserRequests(
      ddb,
      'the local DynamoDB endpoint',
      'com.amazon.coral.service#AccessDeniedException',
    );
    const dynamodbUrl = await listen(ddb);
    stops.push(() => new Promise<void>((r) => ddb.close(() => r())));
    const ddbClient = new DynamoDBClient({
      endpoint: dynamodbUrl,
      region: LOCAL_REGION,
      credentials: CREDENTIALS,
    });
    stops.push(async () => ddbClient.destroy());
    try {
      await createTable(ddbClient, TABLE, { stream: false });
    } catch (err) {
      // A persisted table from an earlier run is reused.
      if ((err as { name?: string }).name !== 'ResourceInUseException') throw err;
    }

    const sim = await startEksSimulator({
      seed: opts.seed ?? 1,
      speed: opts.simSpeed ?? 600,
      accountId: LOCAL_ACCOUNT,
      ...(opts.simClock ? { clock: opts.simClock } : {}),
    });
    stops.push(() => sim.close());

    const { bundlePath } = await ensurePolicyBundle({ outDir: opts.policyBuildDir ?? 'policies/build' });
    const policy = new PolicyEngine({ source: new FileBundleSource(bundlePath), reloadIntervalMs: 2_000 });
    await policy.ready();

    const feed = new ChangeFeed({ tableName: TABLE, region: LOCAL_REGION });
    // dynalite has no streams: the feed mirrors the store client's writes instead.
    const store = new DynamoDesiredStateStore({ client: feedWrites(ddbClient, feed), tableName: TABLE });
    const provider = new EksProvider({
      endpoint: sim.url,
      credentials: CREDENTIALS,
      defaults: LOCAL_DEFAULTS,
      retry: { baseDelayMs: 5, throttlingBaseDelayMs: 10, maxDelayMs: 50 },
      onThrottle: (region) => emit(METRIC.EksThrottled, 1, { Region: region }),
      ...(opts.eksCallsPerSecond ? { beforeAttempt: perSecondLimiter(opts.eksCallsPerSecond) } : {}),
    });

    const definitionOpts = opts.definition ?? DEFAULT_DEFINITION_OPTIONS;
    const arns = Object.fromEntries(
      Object.keys(STEP_FUNCTIONS).map((k) => [k, localFunctionArn(k as StepFunctionKey)]),
    ) as Record<StepFunctionKey, string>;
    const definition = substitute(definitionString(definitionOpts), arns);
    const stateMachineArn = `arn:aws:states:${LOCAL_REGION}:${LOCAL_ACCOUNT}:stateMachine:cloudorch-reconcile`;
    const handlers = new Map(
      Object.keys(STEP_FUNCTIONS).map((k) => [
        localFunctionArn(k as StepFunctionKey),
        runStep(k as StepFunctionKey),
      ]),
    );
    const sfn = await startLocalSfnEndpoint({
      stateMachines: [{ arn: stateMachineArn, definition, handlers }],
      waitScale: opts.waitScale ?? 0.01,
      retryIntervalMs: opts.retryIntervalMs ?? 20,
    });
    stops.push(() => sfn.close());
    const sfnClient = new SFNClient({ endpoint: sfn.url, region: LOCAL_REGION, credentials: CREDENTIALS });
    stops.push(async () => sfnClient.destroy());

    const deps: Deps = {
      store,
      provider,
      policy: engineEvaluator(() => policy),
      executions: sfnStarter(sfnClient, stateMachineArn),
      now: opts.now ?? (() => new Date()),
      config: { ...DEFAULT_CONFIG, defaults: LOCAL_DEFAULTS, ownRoleArns: [], ...opts.config },
    };
    setDeps(deps);

    // The stream trigger: every write reaches on-change, which filters out status-only changes.
    const unsubscribe = feed.subscribe(
      (record) => onChange({ Records: [record] }).then(() => undefined),
      () => undefined,
    );
    stops.push(async () => unsubscribe());

    const sweepOptions = {
      segment: 0,
      totalSegments: 1,
      periodSeconds: 1,
      concurrency: 4,
    };
    const sweepNow = () => sweep(sweepOptions);
    if (opts.sweepIntervalMs) {
      let running = false;
      const timer = setInterval(() => {
        if (running) return;
        running = true;
        sweepNow()
          .catch(() => undefined)
          .finally(() => {
            running = false;
          });
      }, opts.sweepIntervalMs);
      stops.push(async () => clearInterval(timer));
    }

    const settle = async () => {
      // Deliveries start executions and executions write records: repeat until both are quiet.
      for (let i = 0; i < 5; i++) {
        await feed.drain();
        await sfn.waitForIdle();
      }
    };
    return {
      store,
      sim,
      simAdmin: new SimAdminClient(sim.url, LOCAL_REGION),
      sfn,
      feed,
      policy,
      deps,
      endpoints: { dynamodb: dynamodbUrl, eks: sim.url, sfn: sfn.url },
      stateMachineArn,
      definition,
      sweepNow,
      async reconcile(id: string) {
        await reconcileNow({ id });
        await settle();
      },
      settle,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
