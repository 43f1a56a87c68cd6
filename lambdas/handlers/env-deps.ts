/**
 * Handler dependencies from the environment: what every Lambda entry uses in AWS. Local mode sets
 * the same variables to local endpoints; no code path differs.
 *
 * - CLOUDORCH_TABLE_NAME: the desired-state table.
 * - CLOUDORCH_STATE_MACHINE_ARN: the Reconcile state machine (triggers only).
 * - CLOUDORCH_DEFAULT_CLUSTER_ROLE_ARN, CLOUDORCH_DEFAULT_NODE_ROLE_ARN, CLOUDORCH_DEFAULT_SUBNET_IDS
 *   (comma-separated), CLOUDORCH_DEFAULT_SECURITY_GROUP_IDS: what creates use when the spec is silent.
 * - CLOUDORCH_OWN_ROLE_ARNS (comma-separated): CloudOrch's own roles; their EKS calls are not drift.
 * - CLOUDORCH_EKS_ENDPOINT, AWS_ENDPOINT_URL_DYNAMODB, AWS_ENDPOINT_URL_SFN: endpoint overrides.
 * - Policy bundle: see lambdas/policy/index.ts.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SFNClient } from '@aws-sdk/client-sfn';
import { getPolicyEngine, type PolicyEngine } from '../policy/index.js';
import { EksProvider } from '../provider/eks-provider.js';
import { DynamoDesiredStateStore } from '../store/dynamo-store.js';
import { type Deps, type ExecutionStarter, type PolicyEvaluator, setDepsFactory } from './deps.js';
import { configFromEnv, ENV } from './env-config.js';
import { sfnStarter } from './sfn-starter.js';
import { emit, METRIC } from './telemetry.js';
import { perSecondLimiter } from './token-bucket.js';

export { ENV } from './env-config.js';

function required(env: NodeJS.ProcessEnv, name: string): string {
  const v = env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
}

/** The policy engine as the pipeline sees it: always an answer, degraded when no bundle is loaded. */
export function engineEvaluator(engine: () => PolicyEngine = getPolicyEngine): PolicyEvaluator {
  return {
    async evaluate(input) {
      const d = await engine().decide(input);
      return { allow: d.allow, violations: d.violations, degraded: d.bundleVersion === null };
    },
  };
}

/** Starts executions only where the state machine is configured (triggers); any function may ask about one. */
function starterFromEnv(env: NodeJS.ProcessEnv): ExecutionStarter {
  return sfnStarter(new SFNClient({}), env[ENV.stateMachine]);
}

export function depsFromEnv(env: NodeJS.ProcessEnv = process.env): Deps {
  const config = configFromEnv(env);
  const rate = Number(env[ENV.eksCallsPerSecond]) || undefined;
  return {
    store: new DynamoDesiredStateStore({
      client: new DynamoDBClient({}),
      tableName: required(env, ENV.table),
    }),
    provider: new EksProvider({
      defaults: config.defaults,
      onThrottle: (region) => emit(METRIC.EksThrottled, 1, { Region: region }),
      ...(rate ? { beforeAttempt: perSecondLimiter(rate) } : {}),
    }),
    policy: engineEvaluator(),
    executions: starterFromEnv(env),
    now: () => new Date(),
    config,
  };
}

/** Called once at module load by every Lambda entry. */
export function configureFromEnv(): void {
  setDepsFactory(() => depsFromEnv());
}
