/**
 * Estimated monthly cost of one cluster: control plane plus every pool's nodes. Used in status, in
 * `plan`'s cost delta and as policy input.
 */
import { catalog, supportPhase } from '../catalog.js';
import { InternalError } from '../errors.js';
import type { Observation } from '../observation.js';
import type { CloudClusterSpec } from '../spec/schema.js';
import { PRICE_TABLE, type PriceTable } from './prices.js';

/** One pool's share of the estimate. */
export interface PoolCost {
  readonly name: string;
  readonly nodes: number;
  readonly monthly: number;
}

export interface CostEstimate {
  readonly currency: 'USD';
  readonly monthlyCost: number;
  readonly controlPlane: number;
  /** Every pool's nodes together. */
  readonly nodes: number;
  /** Per pool, in spec (or observation) order; the pool `monthly` figures sum to `nodes`, give or take rounding. */
  readonly pools: readonly PoolCost[];
  readonly supportPhase: 'standard' | 'extended';
  readonly assumptions: readonly string[];
}

/** What a pool costs depends on: its types, its size and whether it runs on spot. */
export interface PoolCostInput {
  readonly name: string;
  readonly instanceTypes: readonly string[];
  readonly nodeCount: number;
  readonly spot: boolean;
}

export interface CostInput {
  readonly kubernetesVersion: string;
  readonly region: string;
  readonly pools: readonly PoolCostInput[];
}

const round2 = (n: number) => Math.round(n * 100) / 100;

function hourlyOf(instanceType: string, prices: PriceTable): number {
  const hourly = prices.onDemandPerHour[instanceType];
  if (hourly === undefined) throw new InternalError(`no price for instance type ${instanceType}`);
  return hourly;
}

/** A pool of several types may run any of them: priced at the dearest, so the estimate never undershoots. */
function poolHourly(pool: PoolCostInput, prices: PriceTable): number {
  const onDemand = Math.max(...pool.instanceTypes.map((t) => hourlyOf(t, prices)));
  return pool.spot ? onDemand * prices.spotFractionOfOnDemand : onDemand;
}

function poolAssumptions(pools: readonly PoolCostInput[], prices: PriceTable): string[] {
  const out: string[] = [];
  if (pools.some((p) => p.spot))
    out.push(`spot capacity estimated at ${prices.spotFractionOfOnDemand * 100}% of on-demand`);
  const mixed = pools.filter((p) => p.instanceTypes.length > 1).map((p) => p.name);
  if (mixed.length > 0)
    out.push(`pools with several instance types are priced at the most expensive one (${mixed.join(', ')})`);
  return out;
}

/**
 * @example
 * estimateMonthlyCost({ kubernetesVersion: '1.34', region: 'us-east-1',
 *   pools: [{ name: 'default', instanceTypes: ['t3.large'], nodeCount: 3, spot: false }] }, new Date());
 */
export function estimateMonthlyCost(
  input: CostInput,
  at: Date,
  prices: PriceTable = PRICE_TABLE,
): CostEstimate {
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
  assumptions.push(...poolAssumptions(input.pools, prices));
  if (phase === 'unknown')
    assumptions.push(`support window of ${input.kubernetesVersion} unknown; standard rate used`);
  const controlPlane = round2(prices.controlPlanePerHour[billed] * prices.hoursPerMonth);
  const pools = input.pools.map((p) => ({
    name: p.name,
    nodes: p.nodeCount,
    exact: poolHourly(p, prices) * p.nodeCount * prices.hoursPerMonth,
  }));
  // Rounded once over the exact sum, so the total does not depend on how the nodes are split into pools.
  const nodes = round2(pools.reduce((sum, p) => sum + p.exact, 0));
  return {
    currency: 'USD',
    monthlyCost: round2(controlPlane + nodes),
    controlPlane,
    nodes,
    pools: pools.map((p) => ({ name: p.name, nodes: p.nodes, monthly: round2(p.exact) })),
    supportPhase: billed,
    assumptions,
  };
}

/** The spec's cost: every pool at its `nodeCount` (under external scaling, the autoscaler's size is unknown). */
export function estimateSpecCost(spec: CloudClusterSpec, at: Date): CostEstimate {
  const estimate = estimateMonthlyCost(
    {
      kubernetesVersion: spec.kubernetesVersion,
      region: spec.region,
      pools: spec.nodeGroups.map((p) => ({
        name: p.name,
        instanceTypes: p.instanceTypes,
        nodeCount: p.nodeCount,
        spot: p.capacityType === 'SPOT',
      })),
    },
    at,
  );
  const external = spec.nodeGroups.filter((p) => p.scaling === 'external').map((p) => p.name);
  if (external.length === 0) return estimate;
  const note = `pools scaled by an autoscaler are estimated at their nodeCount (${external.join(', ')})`;
  return { ...estimate, assumptions: [...estimate.assumptions, note] };
}

/**
 * What the observed cluster costs now: every node group at its desired size. A group whose instance
 * types have no price is left out (and said so) rather than priced with an invented figure.
 * `undefined` when there is no cluster.
 */
export function estimateObservedCost(o: Observation, region: string, at: Date): CostEstimate | undefined {
  const c = o.cluster;
  if (!c) return undefined;
  const priced = (t: string) => PRICE_TABLE.onDemandPerHour[t] !== undefined;
  const unpriced = o.nodegroups.filter((ng) => !ng.instanceTypes.some(priced)).map((ng) => ng.name);
  const pools = o.nodegroups
    .filter((ng) => ng.instanceTypes.some(priced))
    .map((ng) => ({
      name: ng.name,
      instanceTypes: ng.instanceTypes.filter(priced),
      nodeCount: ng.scaling.desiredSize,
      spot: ng.capacityType === 'SPOT',
    }));
  const estimate = estimateMonthlyCost({ kubernetesVersion: c.version, region, pools }, at);
  if (unpriced.length === 0) return estimate;
  const note = `node groups with no priced instance type are not included (${unpriced.join(', ')})`;
  return { ...estimate, assumptions: [...estimate.assumptions, note] };
}
