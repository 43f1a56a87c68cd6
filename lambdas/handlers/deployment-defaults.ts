/**
 * The deployment defaults the planner resolves creates with (roles, subnets, security groups), read
 * from a function's environment by the composition root. The provider takes none: it sends what the
 * plan says.
 */
import { DEFAULTS_ENV } from '../config.js';
import type { PlanDefaults } from '../core/plan/types.js';

/** A comma-separated environment value as a list (undefined when empty). */
export const list = (v: string | undefined) =>
  v
    ? v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined;

export function defaultsFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
): PlanDefaults {
  const out: { -readonly [K in keyof PlanDefaults]: PlanDefaults[K] } = {};
  const clusterRoleArn = env[DEFAULTS_ENV.clusterRoleArn];
  const nodeRoleArn = env[DEFAULTS_ENV.nodeRoleArn];
  if (clusterRoleArn) out.clusterRoleArn = clusterRoleArn;
  if (nodeRoleArn) out.nodeRoleArn = nodeRoleArn;
  const subnets = list(env[DEFAULTS_ENV.subnetIds]);
  if (subnets) out.subnetIds = subnets;
  const sgs = list(env[DEFAULTS_ENV.securityGroupIds]);
  if (sgs) out.securityGroupIds = sgs;
  return out;
}
