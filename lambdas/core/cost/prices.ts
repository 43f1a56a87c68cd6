/**
 * Price table for the cost estimate. USD, us-east-1, Linux, shared tenancy, on-demand.
 *
 * Sources (read 2026-11):
 * - EKS control plane: $0.10 per cluster-hour in standard support, $0.60 in extended support,
 *   "effective from the April 2024 billing cycle" (AWS Containers blog, "Amazon EKS extended support
 *   for Kubernetes versions pricing"; consistent with the EKS user guide, kubernetes-versions).
 * - EC2 on-demand: aws/karpenter-provider-aws pkg/providers/pricing/zz_generated.pricing_aws.go,
 *   InitialOnDemandPricesAWS["us-east-1"], generated 2026-07-20T13:44:30Z from the AWS Price List API.
 *
 * Prices drift: regenerate from the Price List API (pricing:GetProducts) rather than trusting these.
 */
export const PRICE_TABLE = {
  source:
    'AWS Containers blog (EKS control plane); karpenter-provider-aws generated pricing (EC2, us-east-1)',
  asOf: '2026-07-20',
  region: 'us-east-1',
  hoursPerMonth: 730,
  controlPlanePerHour: { standard: 0.1, extended: 0.6 },
  onDemandPerHour: {
    't3.medium': 0.0416,
    't3.large': 0.0832,
    't3.xlarge': 0.1664,
    't3.2xlarge': 0.3328,
    't3a.medium': 0.0376,
    't3a.large': 0.0752,
    't4g.medium': 0.0336,
    'm5.large': 0.096,
    'm5.xlarge': 0.192,
    'm5.2xlarge': 0.384,
    'm6i.large': 0.096,
    'm6i.xlarge': 0.192,
    'm6i.2xlarge': 0.384,
    'm7i.large': 0.1008,
    'm7i.xlarge': 0.2016,
    'm6g.large': 0.077,
    'm7g.large': 0.0816,
    'c5.large': 0.085,
    'c5.xlarge': 0.17,
    'c6i.large': 0.085,
    'c6i.xlarge': 0.17,
    'c7i.large': 0.08925,
    'r5.large': 0.126,
    'r5.xlarge': 0.252,
    'r6i.large': 0.126,
    'r6i.xlarge': 0.252,
    'g4dn.xlarge': 0.526,
  } as Readonly<Record<string, number>>,
  /**
   * Assumption, not a price: spot capacity is estimated at 35% of on-demand (a 65% discount). Spot
   * prices move hourly and no static list exists; the estimate says so in its assumptions.
   */
  spotFractionOfOnDemand: 0.35,
} as const;
export type PriceTable = typeof PRICE_TABLE;
