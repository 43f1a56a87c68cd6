/**
 * The embedded control plane: the production handlers and the production state machine definition,
 * wired to local servers that speak the AWS wire protocols (a DynamoDB-compatible store, the EKS
 * simulator, the local Step Functions endpoint). Every client is the real SDK client and every
 * handler the real handler; besides endpoints it differs from AWS only as README.md's list says (the
 * change feed's tap, the sweep's settings, scaled waits and retries, one shared EKS provider, every
 * client for every handler, the policy bundle's source). `cloudorch dev` and the pipeline scenario
 * tests both run this.
 */

import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DynamoDBClient, ResourceInUseException } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { ENV } from '../../lambdas/config.js';
import type { PlanDefaults } from '../../lambdas/core/plan/types.js';
import { ALL_MAKERS } from '../../lambdas/handlers/clients/index.js';
import { storeOn } from '../../lambdas/handlers/clients/store.js';
import {
  compose,
  type Endpoints,
  type Env,
  type Maker,
  type WiringInput,
} from '../../lambdas/handlers/compose.js';
import { defaultsFromEnv } from '../../lambdas/handlers/deployment-defaults.js';
import { type Deps, type ShardInvoker, setDeps } from '../../lambdas/handlers/deps.js';
import { runStep } from '../../lambdas/handlers/steps/index.js';
import { onChange } from '../../lambdas/handlers/triggers/on-change.js';
import { reconcileNow } from '../../lambdas/handlers/triggers/reconcile-now.js';
import type { PolicyEngine } from '../../lambdas/policy/index.js';
import {
  DEFAULT_DEFINITION_OPTIONS,
  type DefinitionOptions,
  definitionString,
  STEP_FUNCTIONS,
  type StepFunctionKey,
  substitute,
} from '../../lambdas/statemachine/definition.js';
import type { RolloutDefinitionOptions } from '../../lambdas/statemachine/rollout-definition.js';
import type { DynamoDesiredStateStore } from '../../lambdas/store/dynamo-store.js';
import { type EksSimulator, SimAdminClient, startEksSimulator } from '../eks-sim/index.js';
import { type LocalSfnEndpoint, startLocalSfnEndpoint } from '../sfn/endpoint.js';
import { ChangeFeed } from '../store/change-feed.js';
import { createTable } from '../store/table.js';
import { feedWrites } from '../store/write-tap.js';
import { refuseBrowserRequests } from './browser-guard.js';
import { LOCAL_CREDENTIALS } from './credentials.js';
import { type LocalSweepReport, localSweeps } from './local-sweep.js';
import { RolloutBoard } from './rollout-board.js';
import { LOCAL_ROLLOUT_TABLE, rolloutMachine } from './rollout-machine.js';
import { servePolicyBundle } from './served-policy.js';
import { LOCAL_TARGET_ROLE } from './target-role.js';

export { LOCAL_TARGET_ROLE } from './target-role.js';
export const LOCAL_REGION = 'us-east-1';
export const LOCAL_ACCOUNT = '000000000000';
/** The local desired-state table (tools writing items straight to it, as tests do, name it). */
export const LOCAL_TABLE = 'cloudorch-desired-state';
const TABLE = LOCAL_TABLE;
/** The local coordination table: the EKS budget, claimed only when a rate is set (eksCallsPerSecond). */
export const LOCAL_COORDINATION_TABLE = 'cloudorch-coordination';

/** What the stack would set for the local account: the table, roles and subnets the simulator accepts. */
const LOCAL_ENV = {
  [ENV.table]: TABLE,
  [ENV.clusterRole]: `arn:aws:iam::${LOCAL_ACCOUNT}:role/cloudorch-local-cluster`,
  [ENV.nodeRole]: `arn:aws:iam::${LOCAL_ACCOUNT}:role/cloudorch-local-node`,
  [ENV.subnets]: 'subnet-0a000000000000001,subnet-0b000000000000002',
  // Other accounts are reached through this role, which the simulator's STS serves once created
  // (its admin API's createRole); locally one role name serves the read and the write side.
  [ENV.targetRoleName]: LOCAL_TARGET_ROLE,
  [ENV.ownAccountId]: LOCAL_ACCOUNT,
  [ENV.coordinationTable]: LOCAL_COORDINATION_TABLE,
  [ENV.rolloutTable]: LOCAL_ROLLOUT_TABLE,
};

/** What every local client connects with; the servers' addresses are added once they listen. */
const LOCAL_ENDPOINTS = {
  region: LOCAL_REGION,
  credentials: LOCAL_CREDENTIALS,
  eksRetry: { baseDelayMs: 5, throttlingBaseDelayMs: 10, maxDelayMs: 50 },
} as const;

/** Deployment defaults of the local account, as the functions read them from LOCAL_ENV. */
export const LOCAL_DEFAULTS: PlanDefaults = defaultsFromEnv(LOCAL_ENV);

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
  readonly rolloutDefinition?: RolloutDefinitionOptions;
  /** Run the sweep every this many ms (omit for no automatic sweep). */
  readonly sweepIntervalMs?: number;
  /** Where the checkout's policy bundle is built (default policies/build); dev serves its own copy. */
  readonly policyBuildDir?: string;
  /** Rebuild the served policy bundle on every change to the policies folder. */
  readonly watchPolicies?: boolean;
  /** Lines for the user (policy rebuilds). */
  readonly log?: (line: string) => void;
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
  readonly rolloutStateMachineArn: string;
  /** The rollout notifications and the alarms a rollout's failure policy reads, locally. */
  readonly board: RolloutBoard;
  readonly definition: string;
  /** The policy bundle file the engine loads: the control plane's own copy (see served-policy.ts). */
  readonly policyBundlePath: string;
  /**
   * One sweep period (one second by default): the dispatcher and, awaited, every shard run it hands
   * over (concurrency: clusters of one shard checked at once, default 4; fullObservePeriodSeconds:
   * default the period, so every look is full).
   */
  sweepNow(opts?: {
    readonly periodSeconds?: number;
    readonly concurrency?: number;
    readonly fullObservePeriodSeconds?: number;
  }): Promise<LocalSweepReport>;
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

type Stops = (() => Promise<void>)[];

/** dynalite with the desired-state and coordination tables (kept in `dataDir` when given), and a client. */
async function startLocalTable(
  dataDir: string | undefined,
  stops: Stops,
): Promise<{ url: string; client: DynamoDBClient }> {
  if (dataDir) await mkdir(dataDir, { recursive: true });
  const ddb = dynalite({
    createTableMs: 0,
    ...(dataDir ? { path: join(dataDir, 'dynamodb') } : {}),
  });
  // dynalite answers browsers with `Access-Control-Allow-Origin: *`: the dev store must not.
  refuseBrowserRequests(ddb, 'the local DynamoDB endpoint', 'com.amazon.coral.service#AccessDeniedException');
  const url = await listen(ddb);
  stops.push(() => new Promise<void>((r) => ddb.close(() => r())));
  const client = new DynamoDBClient({ endpoint: url, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  stops.push(async () => client.destroy());
  for (const name of [TABLE, LOCAL_COORDINATION_TABLE, LOCAL_ROLLOUT_TABLE]) {
    try {
      await createTable(client, name, { stream: false });
    } catch (err) {
      // A persisted table from an earlier run is reused.
      if (!(err instanceof ResourceInUseException)) throw err;
    }
  }
  return { url, client };
}

/** The EKS simulator, as fast as the options say. */
async function startSimulator(opts: ControlPlaneOptions, stops: Stops): Promise<EksSimulator> {
  const sim = await startEksSimulator({
    seed: opts.seed ?? 1,
    speed: opts.simSpeed ?? 600,
    accountId: LOCAL_ACCOUNT,
    ...(opts.simClock ? { clock: opts.simClock } : {}),
  });
  stops.push(() => sim.close());
  return sim;
}

/** The production definition on the local Step Functions endpoint, each Task running its real step. */
async function startStateMachine(opts: ControlPlaneOptions, stops: Stops) {
  const definitionOpts = opts.definition ?? DEFAULT_DEFINITION_OPTIONS;
  const keys = Object.keys(STEP_FUNCTIONS) as StepFunctionKey[];
  const arns = Object.fromEntries(keys.map((k) => [k, localFunctionArn(k)])) as Record<
    StepFunctionKey,
    string
  >;
  const definition = substitute(definitionString(definitionOpts), arns);
  const stateMachineArn = `arn:aws:states:${LOCAL_REGION}:${LOCAL_ACCOUNT}:stateMachine:cloudorch-reconcile`;
  const handlers = new Map(keys.map((k) => [localFunctionArn(k), runStep(k)]));
  const rollout = rolloutMachine(LOCAL_REGION, LOCAL_ACCOUNT, opts.rolloutDefinition);
  const sfn = await startLocalSfnEndpoint({
    stateMachines: [{ arn: stateMachineArn, definition, handlers }, rollout],
    waitScale: opts.waitScale ?? 0.01,
    retryIntervalMs: opts.retryIntervalMs ?? 20,
  });
  stops.push(() => sfn.close());
  return { sfn, definition, stateMachineArn, rolloutStateMachineArn: rollout.arn };
}

/** The environment the stack would give the functions, pointing at local things. */
function localEnv(opts: ControlPlaneOptions, stateMachineArn: string, bundlePath: string): Env {
  return {
    ...LOCAL_ENV,
    [ENV.stateMachine]: stateMachineArn,
    [ENV.policyBundleFile]: bundlePath,
    [ENV.policyReloadSeconds]: '2',
    ...(opts.eksCallsPerSecond ? { [ENV.eksCallsPerSecond]: String(opts.eksCallsPerSecond) } : {}),
  };
}

/**
 * Every client through the production composition root, for this one process that hosts every
 * function; the tests' clock and configuration overrides go on top.
 */
async function installDeps(
  makers: Omit<typeof ALL_MAKERS, 'store' | 'shardInvoker'> & {
    store: Maker<DynamoDesiredStateStore>;
    shardInvoker: Maker<ShardInvoker>;
  },
  wiring: { env: Env; endpoints: Endpoints },
  opts: ControlPlaneOptions,
  stops: Stops,
) {
  const composition = compose(makers, wiring);
  stops.push(async () => composition.close());
  const policy = composition.deps.policy.engine;
  await policy.ready();
  const deps = {
    ...composition.deps,
    now: opts.now ?? composition.deps.now,
    config: { ...composition.deps.config, ...opts.config },
  };
  setDeps(deps);
  return { deps, policy };
}

/** Runs the sweep every `ms`, skipping a tick while the previous run is still going. */
function sweepEvery(ms: number, sweepNow: () => Promise<unknown>, stops: Stops): void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    sweepNow()
      .catch(() => undefined)
      .finally(() => {
        running = false;
      });
  }, ms);
  stops.push(async () => clearInterval(timer));
}

/** The control plane's own copy of the policy bundle, removed when it stops. */
async function servePolicy(opts: ControlPlaneOptions, stops: Stops) {
  const served = await servePolicyBundle({
    ...(opts.policyBuildDir ? { buildDir: opts.policyBuildDir } : {}),
    ...(opts.watchPolicies ? { watch: true } : {}),
    ...(opts.log ? { log: opts.log } : {}),
  });
  stops.push(() => served.stop());
  return served;
}

/** What only the local control plane hands its functions: the local sweep's invoker, the board. */
function localMakers(board: RolloutBoard, sweeps: ReturnType<typeof localSweeps>) {
  return {
    shardInvoker: () => sweeps.invoker,
    notifier: () => board.notifier,
    alarms: () => board.alarms,
  };
}

export async function startControlPlane(opts: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const stops: Stops = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => undefined);
    setDeps(undefined);
  };
  try {
    const table = await startLocalTable(opts.dataDir, stops);
    const ddbClient = table.client;

    const sim = await startSimulator(opts, stops);
    const { bundlePath } = await servePolicy(opts, stops);
    const feed = new ChangeFeed({ tableName: TABLE, region: LOCAL_REGION });
    // dynalite has no streams: the feed mirrors the store client's writes instead.
    const fedStore = (w: WiringInput) => storeOn(feedWrites(ddbClient, feed), w.env);

    const { sfn, definition, stateMachineArn, rolloutStateMachineArn } = await startStateMachine(opts, stops);

    const wiring = {
      env: localEnv(opts, stateMachineArn, bundlePath),
      endpoints: { ...LOCAL_ENDPOINTS, dynamodb: table.url, eks: sim.url, sfn: sfn.url },
    };
    const sweeps = localSweeps();
    const board = new RolloutBoard(opts.now);
    const makers = { ...ALL_MAKERS, ...localMakers(board, sweeps), store: fedStore };
    const { deps, policy } = await installDeps(makers, wiring, opts, stops);
    const { store } = deps;
    // The stream trigger: every write reaches on-change, which filters out status-only changes.
    const unsubscribe = feed.subscribe(
      (record) => onChange({ Records: [record] }).then(() => undefined),
      () => undefined,
    );
    stops.push(async () => unsubscribe());

    if (opts.sweepIntervalMs) sweepEvery(opts.sweepIntervalMs, sweeps.sweepNow, stops);

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
      endpoints: { dynamodb: table.url, eks: sim.url, sfn: sfn.url },
      stateMachineArn,
      rolloutStateMachineArn,
      board,
      definition,
      policyBundlePath: bundlePath,
      sweepNow: sweeps.sweepNow,
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
