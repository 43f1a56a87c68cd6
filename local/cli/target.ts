/**
 * Which CloudOrch the CLI talks to: a running `cloudorch dev` (found through its state file), or a
 * deployed stack in AWS (`--region`, `--table`, `--state-machine-arn`, `--profile`). Both are the
 * functions' own clients, built by their composition root and makers, against different endpoints:
 * the CLI only reads and writes records, starts executions and, for `plan`, observes EKS read-only.
 */
import { ENV } from '../../lambdas/config.js';
import type { PlanDefaults } from '../../lambdas/core/plan/types.js';
import type { ClusterProvider } from '../../lambdas/core/provider.js';
import { eksProvider } from '../../lambdas/handlers/clients/eks.js';
import { wasmPolicy } from '../../lambdas/handlers/clients/policy.js';
import { sfnExecutions } from '../../lambdas/handlers/clients/sfn.js';
import { dynamoStore } from '../../lambdas/handlers/clients/store.js';
import { compose, type Env, type WiringInput } from '../../lambdas/handlers/compose.js';
import type { ExecutionStarter, PolicyEvaluator } from '../../lambdas/handlers/deps.js';
import type { DynamoDesiredStateStore } from '../../lambdas/store/dynamo-store.js';
import { ensurePolicyBundle } from '../../policies/build.js';
import { devStatePath, readDevState } from '../dev/state-file.js';
import { SimAdminClient } from '../eks-sim/index.js';
import { LOCAL_DEFAULTS } from '../runtime/control-plane.js';
import { LOCAL_CREDENTIALS } from '../runtime/credentials.js';

export interface TargetOptions {
  readonly region?: string;
  readonly table?: string;
  readonly stateMachineArn?: string;
  readonly profile?: string;
}

export interface Target {
  readonly kind: 'local' | 'aws';
  readonly description: string;
  readonly store: DynamoDesiredStateStore;
  readonly executions: ExecutionStarter;
  readonly provider: ClusterProvider;
  readonly defaults: PlanDefaults;
  readonly sim?: SimAdminClient;
  /** The simulator's admin API for clusters of another region than the dev's own. */
  simIn?(region: string): SimAdminClient;
  policy(): Promise<PolicyEvaluator>;
  close(): void;
}

export class TargetError extends Error {
  override readonly name = 'TargetError';
}

/** The CLI's clients, through the functions' composition root: the same makers, other wiring. */
const cliClients = (input: WiringInput) =>
  compose({ store: dynamoStore, provider: eksProvider, executions: sfnExecutions }, input);

/** Compositions made after the target (the policy engine, on first use), closed with it. */
type Closers = (() => void)[];

/** A policy engine built by the functions' maker; it waits for its bundle before the first decision. */
async function enginePolicy(env: Env, closers: Closers): Promise<PolicyEvaluator> {
  const { deps, close } = compose({ policy: wasmPolicy }, { env });
  closers.push(close);
  await deps.policy.engine.ready();
  return deps.policy;
}

/** The policies of this checkout, built if needed. */
async function localPolicy(closers: Closers): Promise<PolicyEvaluator> {
  const { bundlePath } = await ensurePolicyBundle({ outDir: 'policies/build' });
  return enginePolicy({ [ENV.policyBundleFile]: bundlePath }, closers);
}

function closeAll(closers: Closers): () => void {
  return () => {
    for (const close of closers.splice(0)) close();
  };
}

/** Without --state-machine-arn the CLI can ask about executions but not start one. */
function statusOnly(executions: ExecutionStarter): ExecutionStarter {
  return {
    start: async () => {
      throw new TargetError(
        'starting a reconcile needs --state-machine-arn (the stack output StateMachineArn)',
      );
    },
    // Asking about an execution needs no state machine ARN: the execution's own is enough.
    status: (arn) => executions.status(arn),
  };
}

function awsTarget(opts: TargetOptions & { table: string; region: string }): Target {
  if (opts.profile) process.env.AWS_PROFILE = opts.profile;
  // The caller's environment, as a function's would be, with the flags' table, state machine and region.
  const env: Env = {
    ...process.env,
    [ENV.table]: opts.table,
    [ENV.stateMachine]: opts.stateMachineArn,
    AWS_REGION: opts.region,
  };
  const { deps, close } = cliClients({ env });
  const closers: Closers = [close];
  return {
    kind: 'aws',
    description: `table ${opts.table} in ${opts.region}`,
    store: deps.store,
    executions: opts.stateMachineArn ? deps.executions : statusOnly(deps.executions),
    provider: deps.provider,
    // Deployment defaults come from the caller's environment, as the functions take them from theirs.
    defaults: deps.config.defaults,
    // The deployed bundle when its location is given, else the policies of this checkout.
    policy: () => (env[ENV.policyBundleS3] ? enginePolicy(env, closers) : localPolicy(closers)),
    close: closeAll(closers),
  };
}

export async function resolveTarget(opts: TargetOptions): Promise<Target> {
  if (opts.table || opts.region || opts.stateMachineArn) {
    if (!opts.table || !opts.region) throw new TargetError('AWS mode needs both --table and --region');
    return awsTarget({ ...opts, table: opts.table, region: opts.region });
  }
  const state = await readDevState(devStatePath());
  if (!state) {
    throw new TargetError(
      `no running 'cloudorch dev' found (${devStatePath()}); start it, or target AWS with --table and --region`,
    );
  }
  const { deps, close } = cliClients({
    env: { [ENV.table]: state.tableName, [ENV.stateMachine]: state.stateMachineArn },
    endpoints: {
      region: state.region,
      credentials: LOCAL_CREDENTIALS,
      dynamodb: state.endpoints.dynamodb,
      eks: state.endpoints.eks,
      sfn: state.endpoints.sfn,
    },
  });
  const closers: Closers = [close];
  return {
    kind: 'local',
    description: `cloudorch dev (dashboard ${state.endpoints.dashboard})`,
    store: deps.store,
    executions: deps.executions,
    provider: deps.provider,
    defaults: LOCAL_DEFAULTS,
    sim: new SimAdminClient(state.endpoints.eks, state.region),
    simIn: (region) => new SimAdminClient(state.endpoints.eks, region),
    policy: () => localPolicy(closers),
    close: closeAll(closers),
  };
}
