/**
 * Which CloudOrch the CLI talks to: a running `cloudorch dev` (found through its state file), or a
 * deployed stack in AWS, chosen by flags, environment or a named target (config/resolve.ts). Both
 * are the functions' own clients, built by their composition root and makers, against different
 * endpoints: the CLI only reads and writes records, starts executions and, for `plan`, observes EKS
 * read-only and judges with the policy bundle the target itself serves, never one of its own.
 */
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { ENV } from '../../lambdas/config.js';
import type { PlanDefaults } from '../../lambdas/core/plan/types.js';
import type { ClusterProvider } from '../../lambdas/core/provider.js';
import { eksProvider } from '../../lambdas/handlers/clients/eks-provider.js';
import { type EnginePolicy, wasmPolicyOver } from '../../lambdas/handlers/clients/policy.js';
import { sfnCallbacks, sfnExecutions } from '../../lambdas/handlers/clients/sfn.js';
import { dynamoStore } from '../../lambdas/handlers/clients/store.js';
import { compose, type Env, sdkOptions, type WiringInput } from '../../lambdas/handlers/compose.js';
import type { ExecutionStarter, TaskCallbacks } from '../../lambdas/handlers/deps.js';
import { bundleSourceFromEnv, FileBundleSource, type ObjectGetter } from '../../lambdas/policy/index.js';
import { sdkObjectGetter } from '../../lambdas/policy/sdk-object-getter.js';
import type { DynamoDesiredStateStore } from '../../lambdas/store/dynamo-store.js';
import { type DevState, devStatePath, readDevState } from '../dev/state-file.js';
import { SimAdminClient } from '../eks-sim/index.js';
import { LOCAL_DEFAULTS } from '../runtime/control-plane.js';
import { LOCAL_CREDENTIALS } from '../runtime/credentials.js';
import { ConfigFileError, configPath, readConfig } from './config/file.js';
import { type AwsSelection, describeSelection, selectTarget, type TargetOptions } from './config/resolve.js';
import { bundleRevision, type Fact, stackVersion } from './config/stack-facts.js';
import { stackHowToSet, type TargetRollouts, targetRollouts } from './rollout-target.js';

export type { TargetOptions };

/** What `cloudorch version` reports of a target. */
export interface TargetFacts {
  readonly target: string;
  /** Where the target's policy bundle is (a file for dev, `s3://…` for a stack), when known. */
  readonly policyBundle?: string;
  readonly policyRevision: Fact;
  readonly stackVersion: Fact;
}

export interface Target {
  readonly kind: 'local' | 'aws';
  readonly description: string;
  readonly store: DynamoDesiredStateStore;
  readonly executions: ExecutionStarter;
  /** Answers a Reconcile execution's wait for approval (`approve`, `deny`). */
  readonly callbacks: TaskCallbacks;
  readonly provider: ClusterProvider;
  readonly defaults: PlanDefaults;
  /** What the target's clients were composed from (for readers the CLI builds itself). */
  readonly wiring: WiringInput;
  /** The Reconcile state machine, when the target names one. */
  readonly stateMachineArn?: string;
  /** The CloudRollouts: their store and control, made on first use (an error names a missing setting). */
  readonly rollouts: TargetRollouts;
  readonly sim?: SimAdminClient;
  /** The simulator's admin API for clusters of another region than the dev's own. */
  simIn?(region: string): SimAdminClient;
  /** The engine over the bundle the target serves, loaded; throws when it cannot be loaded. */
  policy(): Promise<EnginePolicy>;
  facts(): Promise<TargetFacts>;
  close(): void;
}

export class TargetError extends Error {
  override readonly name = 'TargetError';
}

/** The CLI's clients, through the functions' composition root: the same makers, other wiring. */
const cliClients = (input: WiringInput) =>
  compose(
    { store: dynamoStore, provider: eksProvider, executions: sfnExecutions, callbacks: sfnCallbacks },
    input,
  );

/** The CLI reads a stack's bundle through the SDK's client, for its whole credential chain. */
const sdkGetter = (w: WiringInput): ObjectGetter => sdkObjectGetter(new S3Client(sdkOptions(w)));

/** Clients made after the target (the policy engine, on first use), closed with it. */
type Closers = (() => void)[];

/**
 * A policy engine built by the functions' maker over the bundle `env` names, as a function loads
 * it. A bundle that does not load is an error here: a plan must not pass off "degraded" as a verdict.
 */
async function enginePolicy(env: Env, closers: Closers): Promise<EnginePolicy> {
  const { deps, close } = compose({ policy: wasmPolicyOver(sdkGetter) }, { env });
  closers.push(close);
  await deps.policy.engine.ready();
  const health = deps.policy.engine.health();
  if (health.status !== 'ok')
    throw new TargetError(
      `cannot load the policy bundle ${health.source}: ${health.reason ?? 'unknown reason'}`,
    );
  return deps.policy;
}

function closeAll(closers: Closers): () => void {
  return () => {
    for (const close of closers.splice(0)) close();
  };
}

/** Without a state machine the CLI can ask about executions but not start one. */
function statusOnly(executions: ExecutionStarter): ExecutionStarter {
  return {
    start: async () => {
      throw new TargetError(
        `starting a reconcile needs the stack's state machine (stack output StateMachineArn): --state-machine-arn, ${ENV.stateMachine}, or the target's stateMachineArn`,
      );
    },
    // Asking about an execution needs no state machine ARN: the execution's own is enough.
    status: (arn) => executions.status(arn),
  };
}

const NO_BUNDLE = `no policy bundle is known for this stack: give the stack output PolicyBundleUrl as --policy-bundle s3://…, ${ENV.policyBundleS3}, or the target's policyBundle (cloudorch config set-target NAME … --policy-bundle s3://…)`;

function awsTarget(s: AwsSelection): Target {
  if (s.profile) process.env.AWS_PROFILE = s.profile.value;
  // The stack's names only; deployment defaults come from the selection, never the ambient environment.
  const env: Env = {
    [ENV.table]: s.table.value,
    [ENV.stateMachine]: s.stateMachineArn?.value,
    [ENV.policyBundleS3]: s.policyBundle?.value,
    AWS_REGION: s.region.value,
    // Client-side settings of the caller's, not the stack's: an EKS endpoint and rate.
    [ENV.eksEndpoint]: process.env[ENV.eksEndpoint],
    [ENV.eksCallsPerSecond]: process.env[ENV.eksCallsPerSecond],
  };
  const wiring: WiringInput = { env };
  const { deps, close } = cliClients(wiring);
  const closers: Closers = [close];
  const description = describeSelection(s);
  const executions = s.stateMachineArn ? deps.executions : statusOnly(deps.executions);
  const rolloutSettings = {
    ...(s.rolloutTable ? { table: s.rolloutTable.value } : {}),
    ...(s.rolloutStateMachineArn ? { stateMachineArn: s.rolloutStateMachineArn.value } : {}),
    howToSet: stackHowToSet,
  };
  return {
    kind: 'aws',
    description,
    store: deps.store,
    executions,
    callbacks: deps.callbacks,
    rollouts: targetRollouts(wiring, rolloutSettings, { store: deps.store, executions }, closers),
    provider: deps.provider,
    defaults: s.defaults,
    wiring,
    ...(s.stateMachineArn ? { stateMachineArn: s.stateMachineArn.value } : {}),
    policy: async () => {
      if (!s.policyBundle) throw new TargetError(NO_BUNDLE);
      return enginePolicy(env, closers);
    },
    facts: async () => {
      const ddb = new DynamoDBClient(sdkOptions({ env }));
      closers.push(() => ddb.destroy());
      const s3 = () => {
        const getter = sdkGetter({ env });
        closers.push(() => getter.destroy());
        return getter;
      };
      return {
        target: description,
        ...(s.policyBundle ? { policyBundle: s.policyBundle.value } : {}),
        policyRevision: s.policyBundle
          ? await bundleRevision(bundleSourceFromEnv(env, s3))
          : { unknown: NO_BUNDLE },
        stackVersion: await stackVersion(ddb, s.table.value),
      };
    },
    close: closeAll(closers),
  };
}

function devBundle(state: DevState, statePath: string): { path: string } {
  if (!state.policyBundle)
    throw new TargetError(
      `the running cloudorch dev (pid ${state.pid}) did not record its policy bundle in ${statePath}: restart it with this version`,
    );
  return state.policyBundle;
}

/**
 * The running dev's version as its state file records it, once dev answers on its store endpoint: a
 * state file whose dev no longer answers (its process id reused) says so instead of a version.
 */
async function devVersion(state: DevState, wiring: WiringInput, statePath: string): Promise<Fact> {
  const ddb = new DynamoDBClient(sdkOptions(wiring, 'dynamodb'));
  try {
    await ddb.send(new DescribeTableCommand({ TableName: state.tableName }));
  } catch (err) {
    return {
      unknown: `cloudorch dev does not answer at ${state.endpoints.dynamodb} (${(err as Error).message}); state file ${statePath}`,
    };
  } finally {
    ddb.destroy();
  }
  return state.version
    ? { value: state.version }
    : { unknown: `the running cloudorch dev did not record its version in ${statePath}: restart it` };
}

async function devTarget(): Promise<Target> {
  const statePath = devStatePath();
  const state = await readDevState(statePath);
  if (!state) {
    throw new TargetError(
      `no running 'cloudorch dev' found (${statePath}); start it, or target a deployed stack: --table and --region, ${ENV.table}, or a named target (cloudorch config set-target)`,
    );
  }
  const wiring: WiringInput = {
    env: { [ENV.table]: state.tableName, [ENV.stateMachine]: state.stateMachineArn },
    endpoints: {
      region: state.region,
      credentials: LOCAL_CREDENTIALS,
      dynamodb: state.endpoints.dynamodb,
      eks: state.endpoints.eks,
      sfn: state.endpoints.sfn,
    },
  };
  const { deps, close } = cliClients(wiring);
  const closers: Closers = [close];
  const description = `cloudorch dev (dashboard ${state.endpoints.dashboard}, state file ${statePath})`;
  const rolloutSettings = {
    ...(state.rolloutTableName ? { table: state.rolloutTableName } : {}),
    ...(state.rolloutStateMachineArn ? { stateMachineArn: state.rolloutStateMachineArn } : {}),
    howToSet: () =>
      `the running cloudorch dev (pid ${state.pid}) did not record it in ${statePath}: restart it with this version`,
  };
  return {
    kind: 'local',
    description,
    store: deps.store,
    executions: deps.executions,
    rollouts: targetRollouts(wiring, rolloutSettings, deps, closers),
    callbacks: deps.callbacks,
    provider: deps.provider,
    defaults: LOCAL_DEFAULTS,
    wiring,
    stateMachineArn: state.stateMachineArn,
    sim: new SimAdminClient(state.endpoints.eks, state.region),
    simIn: (region) => new SimAdminClient(state.endpoints.eks, region),
    // The file dev's engine reloads: read, never built or written.
    policy: async () => enginePolicy({ [ENV.policyBundleFile]: devBundle(state, statePath).path }, closers),
    facts: async () => {
      const bundle = devBundle(state, statePath);
      return {
        target: description,
        policyBundle: bundle.path,
        // What the file holds now: dev reloads it, so it is what dev judges with.
        policyRevision: await bundleRevision(new FileBundleSource(bundle.path)),
        stackVersion: await devVersion(state, wiring, statePath),
      };
    },
    close: closeAll(closers),
  };
}

export async function resolveTarget(opts: TargetOptions, env: Env = process.env): Promise<Target> {
  const path = configPath(env);
  const config = await readConfig(path).catch((err: unknown) => {
    if (err instanceof ConfigFileError) return err;
    throw err;
  });
  const selection = selectTarget(opts, env, config, path);
  return selection.kind === 'aws' ? awsTarget(selection) : devTarget();
}
