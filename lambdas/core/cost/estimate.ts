/** Estimated monthly cost of one cluster: control plane plus nodes. Used in status and as policy input. */
import { catalog, supportPhase } from '../catalog.js';
import { InternalError } from '../errors.js';
import type { CloudClusterSpec } from '../spec/schema.js';
import { PRICE_TABLE, type PriceTable } from './prices.js';

export interface CostEstimate {
  readonly currency: 'USD';
  readonly monthlyCost: number;
  readonly controlPlane: number;
  readonly nodes: number;
  readonly supportPhase: 'standard' | 'extended';
  readonly assumptions: readonly string[];
}

export interface CostInput {
  readonly kubernetesVersion: string;
  readonly instanceType: string;
  readonly nodeCount: number;
  readonly spotEnabled: boolean;
  readonly region: string;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

export function estimateMonthlyCost(
  input: CostInput,
  at: Date,
  prices: PriceTable = PRICE_TABLE,
): CostEstimate {
  const hourly = prices.onDemandPerHour[input.instanceType];
  if (hourly === undefined) throw new InternalError(`no price for instance type ${input.instanceType}`);
  const phase = supportPhase(input.kubernetesVersion, at, catalog);
  // Past extended support EKS auto-upgrades the control plane; it is then billed at the standard rate.
  const billed = phase === 'extended' ? 'extended' : 'standard';
  const assumptions = [
    `prices are ${prices.region} on-demand Linux as of ${prices.asOf} (${prices.source})`,
    `${prices.hoursPerMonth} hours per month`,
    'EBS volumes, data transfer, load balancers and add-ons are not included',
  ];
  if (input.region !== prices.region)
    assumptions.push(`${input.region} is estimated with ${prices.region} prices`);
  let nodeHourly = hourly;
  if (input.spotEnabled) {
    nodeHourly = hourly * prices.spotFractionOfOnDemand;
    assumptions.push(`spot capacity estimated at ${prices.spotFractionOfOnDemand * 100}% of on-demand`);
  }
  if (phase === 'unknown')
    assumptions.push(`support window of ${input.kubernetesVersion} unknown; standard rate used`);
  const controlPlane = round2(prices.controlPlanePerHour[billed] * prices.hoursPerMonth);
  const nodes = round2(nodeHourly * input.nodeCount * prices.hoursPerMonth);
  return {
    currency: 'USD',
    monthlyCost: round2(controlPlane + nodes),
    controlPlane,
    nodes,
    supportPhase: billed,
    assumptions,
  };
}

export function estimateSpecCost(spec: CloudClusterSpec, at: Date): CostEstimate {
  return estimateMonthlyCost(spec, at);
}
