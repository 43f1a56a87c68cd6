/**
 * EKS's access policies as ListAccessPolicies returns them, sorted by name: the names CloudOrch's spec
 * accepts (one list, lambdas/core/access-policies.ts); the simulator does not evaluate their rules.
 */
import { ACCESS_POLICY_NAMES } from '../../lambdas/core/access-policies.js';

export interface AccessPolicy {
  readonly name: string;
  readonly arn: string;
}

export const ACCESS_POLICIES: readonly AccessPolicy[] = ACCESS_POLICY_NAMES.map((name) => ({
  name,
  arn: `arn:aws:eks::aws:cluster-access-policy/${name}`,
}));

export const isAccessPolicyArn = (arn: string): boolean => ACCESS_POLICIES.some((p) => p.arn === arn);
