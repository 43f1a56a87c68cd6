/**
 * Deployment configuration for creates, read from the environment. Kept apart from the SDK-based
 * provider so that functions that never call EKS do not load the SDK to read it.
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
