/**
 * EKS's access policies as ListAccessPolicies returns them, sorted by name. Names from the EKS user
 * guide's "Review access policy permissions" page (2025); the simulator does not evaluate their rules.
 */
const NAMES = [
  'AmazonAIOpsAssistantPolicy',
  'AmazonARCRegionSwitchScalingPolicy',
  'AmazonEKSAdminPolicy',
  'AmazonEKSAdminViewPolicy',
  'AmazonEKSAutoNodePolicy',
  'AmazonEKSBlockStoragePolicy',
  'AmazonEKSClusterAdminPolicy',
  'AmazonEKSComputePolicy',
  'AmazonEKSEditPolicy',
  'AmazonEKSHybridPolicy',
  'AmazonEKSLoadBalancingPolicy',
  'AmazonEKSNetworkingPolicy',
  'AmazonEKSViewPolicy',
  'AmazonEMRJobPolicy',
] as const;

export interface AccessPolicy {
  readonly name: string;
  readonly arn: string;
}

export const ACCESS_POLICIES: readonly AccessPolicy[] = NAMES.map((name) => ({
  name,
  arn: `arn:aws:eks::aws:cluster-access-policy/${name}`,
}));

export const isAccessPolicyArn = (arn: string): boolean => ACCESS_POLICIES.some((p) => p.arn === arn);
