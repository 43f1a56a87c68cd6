/**
 * EKS's access policies (ListAccessPolicies), by name. Names from the EKS user guide's "Review access
 * policy permissions" page; a spec names one of these, and the planner sends its ARN.
 */
export const ACCESS_POLICY_NAMES = [
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
export type AccessPolicyName = (typeof ACCESS_POLICY_NAMES)[number];

/** The policy that makes a principal cluster-admin (policy rule `cluster-admin`). */
export const CLUSTER_ADMIN_POLICY: AccessPolicyName = 'AmazonEKSClusterAdminPolicy';

const ARN_PREFIX = 'arn:aws:eks::aws:cluster-access-policy/';

export const accessPolicyArn = (name: string): string => `${ARN_PREFIX}${name}`;

/** The name in an access policy ARN (EKS's own ARNs end in the name). */
export const accessPolicyName = (arn: string): string => arn.slice(arn.lastIndexOf('/') + 1);
