/**
 * Environment names and the pipeline configuration they carry, without any AWS client: the pure
 * steps (plan, classify-error) configure themselves from this alone and so never load the SDK.
 */
import { DEFAULTS_ENV, defaultsFromEnv, list } from '../provider/defaults.js';
import { DEFAULT_CONFIG, type Deps, type PipelineConfig, setDepsFactory } from './deps.js';

export const ENV = {
  table: 'CLOUDORCH_TABLE_NAME',
  stateMachine: 'CLOUDORCH_STATE_MACHINE_ARN',
  // Deployment defaults for creates: one definition, the provider's.
  clusterRole: DEFAULTS_ENV.clusterRoleArn,
  nodeRole: DEFAULTS_ENV.nodeRoleArn,
  subnets: DEFAULTS_ENV.subnetIds,
  securityGroups: DEFAULTS_ENV.securityGroupIds,
  ownRoles: 'CLOUDORCH_OWN_ROLE_ARNS',
  /** EKS HTTP attempts per second per region for this function (unset: no client-side limit). */
  eksCallsPerSecond: 'CLOUDORCH_EKS_CALLS_PER_SECOND',
} as const;

export function configFromEnv(env: NodeJS.ProcessEnv = process.env): PipelineConfig {
  return { ...DEFAULT_CONFIG, defaults: defaultsFromEnv(env), ownRoleArns: list(env[ENV.ownRoles]) ?? [] };
}

/** A dependency a pure step does not have: using it is a bug, and it says so. */
function unavailable<T extends object>(name: string, step: string): T {
  return new Proxy({} as T, {
    get: () => () => {
      throw new Error(`the ${step} step has no ${name}: it is pure by design`);
    },
  });
}

/** For the pure steps' Lambda entries: configuration and a clock, no clients. */
export function configurePureFromEnv(step: string): void {
  setDepsFactory(
    (): Deps => ({
      store: unavailable('store', step),
      provider: unavailable('EKS provider', step),
      policy: unavailable('policy engine', step),
      executions: unavailable('Step Functions client', step),
      now: () => new Date(),
      config: configFromEnv(),
    }),
  );
}
