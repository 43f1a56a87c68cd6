/**
 * The standard upgrade-readiness checks the simulator reports PASSING about a cluster's next minor, in
 * ListInsights' order (by name), for the tests that read them.
 */
export const standardInsightNames = (minor: string): string[] => [
  'Amazon EKS add-on version compatibility',
  'Cluster health issues',
  `Deprecated APIs removed in Kubernetes v${minor}`,
  'kube-proxy version skew',
  'Kubelet version skew',
];
