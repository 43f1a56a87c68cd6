/**
 * Which CloudOrch the CLI talks to: a running `cloudorch dev` (found through its state file), or a
 * deployed stack in AWS (`--region`, `--table`, `--state-machine-arn`, `--profile`). Both are the
 * same clients against different endpoints: the CLI only reads and writes records, starts
 * executions and, for `plan`, observes EKS read-only.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SFNClient } from '@aws-sdk/client-sfn';
import type { PlanDefaults } from '../../lambdas/core/plan/types.js';
import type { ClusterProvider } from '../../lambdas/core/provider.js';
import { engineEvaluator } from '../../lambdas/handlers/clients/policy.js';
import type { ExecutionStarter, PolicyEvaluator } from '../../lambdas/handlers/deps.js';
import { sfnStarter } from '../../lambdas/handlers/sfn-starter.js';
import {
  FileBundleSource,
  POLICY_ENV,
  PolicyEngine,
  policyEngineFromEnv,
} from '../../lambdas/policy/index.js';
import { defaultsFromEnv } from '../../lambdas/provider/defaults.js';
import { EksProvider } from '../../lambdas/provider/eks-provider.js';
import { DynamoDesiredStateStore } from '../../lambdas/store/dynamo-store.js';
import { ensurePolicyBundle } from '../../policies/build.js';
import { devStatePath, readDevState } from '../dev/state-file.js';
import { SimAdminClient } from '../eks-sim/index.js';
import { LOCAL_DEFAULTS } from '../runtime/control-plane.js';

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
  policy(): Promise<PolicyEvaluator>;
  close(): void;
}

export class TargetError extends Error {
  override readonly name = 'TargetError';
}

const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

async function localPolicy(): Promise<PolicyEvaluator> {
  const { bundlePath } = await ensurePolicyBundle({ outDir: 'policies/build' });
  const engine = new PolicyEngine({ source: new FileBundleSource(bundlePath) });
  await engine.ready();
  return engineEvaluator(() => engine);
}

export async function resolveTarget(opts: TargetOptions): Promise<Target> {
  if (opts.table || opts.region || opts.stateMachineArn) {
    if (!opts.table || !opts.region) throw new TargetError('AWS mode needs both --table and --region');
    if (opts.profile) process.env.AWS_PROFILE = opts.profile;
    const ddb = new DynamoDBClient({ region: opts.region });
    const sfn = new SFNClient({ region: opts.region });
    const arn = opts.stateMachineArn;
    return {
      kind: 'aws',
      description: `table ${opts.table} in ${opts.region}`,
      store: new DynamoDesiredStateStore({ client: ddb, tableName: opts.table }),
      executions: arn
        ? sfnStarter(sfn, arn)
        : {
            start: async () => {
              throw new TargetError(
                'starting a reconcile needs --state-machine-arn (the stack output StateMachineArn)',
              );
            },
            // Asking about an execution needs no state machine ARN: the execution's own is enough.
            status: sfnStarter(sfn, undefined).status,
          },
      provider: new EksProvider(),
      defaults: defaultsFromEnv(),
      // The deployed bundle when its location is given, else the policies of this checkout.
      policy: async () =>
        process.env[POLICY_ENV.s3] ? engineEvaluator(() => policyEngineFromEnv()) : localPolicy(),
      close: () => {
        ddb.destroy();
        sfn.destroy();
      },
    };
  }
  const state = await readDevState(devStatePath());
  if (!state) {
    throw new TargetError(
      `no running 'cloudorch dev' found (${devStatePath()}); start it, or target AWS with --table and --region`,
    );
  }
  const ddb = new DynamoDBClient({
    endpoint: state.endpoints.dynamodb,
    region: state.region,
    credentials: LOCAL_CREDENTIALS,
  });
  const sfn = new SFNClient({
    endpoint: state.endpoints.sfn,
    region: state.region,
    credentials: LOCAL_CREDENTIALS,
  });
  return {
    kind: 'local',
    description: `cloudorch dev (dashboard ${state.endpoints.dashboard})`,
    store: new DynamoDesiredStateStore({ client: ddb, tableName: state.tableName }),
    executions: sfnStarter(sfn, state.stateMachineArn),
    provider: new EksProvider({
      endpoint: state.endpoints.eks,
      credentials: LOCAL_CREDENTIALS,
    }),
    defaults: LOCAL_DEFAULTS,
    sim: new SimAdminClient(state.endpoints.eks, state.region),
    policy: localPolicy,
    close: () => {
      ddb.destroy();
      sfn.destroy();
    },
  };
}
