import { describe, expect, it } from 'vitest';
import { catalog, supportPhase } from '../../lambdas/core/catalog.js';
import {
  type CostInput,
  estimateMonthlyCost,
  estimateObservedCost,
  estimateSpecCost,
} from '../../lambdas/core/cost/estimate.js';
import { PRICE_TABLE } from '../../lambdas/core/cost/prices.js';
import { Health } from '../../lambdas/core/health.js';
import type { ObservedNodegroup } from '../../lambdas/core/observation.js';
import { validateSpec } from '../../lambdas/core/spec/validate.js';

const at = new Date('2026-11-29T00:00:00Z');
const pool = { name: 'default', instanceTypes: ['t3.large'], nodeCount: 3, spot: false };
const base: CostInput = { kubernetesVersion: '1.34', region: 'us-east-1', pools: [pool] };

function spec(input: Record<string, unknown>) {
  const r = validateSpec({
    provider: 'aws',
    region: 'us-east-1',
    clusterName: 'payments',
    kubernetesVersion: '1.34',
    tags: { team: 'payments', environment: 'dev' },
    ...input,
  });
  if (!r.ok) throw new Error(r.issues.map((i) => i.message).join('; '));
  return r.spec;
}

const threePools = spec({
  nodeGroups: [
    { name: 'system', instanceTypes: ['t3.large'], nodeCount: 2 },
    { name: 'workers', instanceTypes: ['m5.xlarge'], nodeCount: 4 },
    {
      name: 'spot',
      instanceTypes: ['m5.large', 'm6i.xlarge', 'c5.xlarge'],
      capacityType: 'SPOT',
      nodeCount: 5,
    },
  ],
});

function nodegroup(name: string, types: string[], size: number, spot = false): ObservedNodegroup {
  return {
    name,
    arn: `arn:aws:eks:us-east-1:111122223333:nodegroup/payments/${name}/1`,
    version: '1.34',
    status: 'ACTIVE',
    health: Health.Healthy,
    instanceTypes: types,
    capacityType: spot ? 'SPOT' : 'ON_DEMAND',
    scaling: { minSize: 0, maxSize: size + 2, desiredSize: size },
    nodeRole: 'arn:aws:iam::111122223333:role/node',
    subnets: [],
    tags: {},
    labels: {},
    taints: [],
  };
}

describe('cost estimate', () => {
  it('has a price for every allowed instance type', () => {
    expect(catalog.instanceTypes.filter((t) => PRICE_TABLE.onDemandPerHour[t] === undefined)).toEqual([]);
  });

  it('prices the control plane at the standard rate and nodes by the hour', () => {
    const e = estimateMonthlyCost(base, at);
    expect(e.controlPlane).toBe(73); // $0.10 x 730 h
    expect(e.nodes).toBe(182.21); // 3 x $0.0832 x 730 h
    expect(e.monthlyCost).toBe(255.21);
    expect(e.pools).toEqual([{ name: 'default', nodes: 3, monthly: 182.21 }]);
    expect(e.supportPhase).toBe('standard');
  });

  it('charges the extended-support rate while a version is in extended support', () => {
    expect(supportPhase('1.32', at)).toBe('extended');
    const e = estimateMonthlyCost({ ...base, kubernetesVersion: '1.32' }, at);
    expect(e.controlPlane).toBe(438); // $0.60 x 730 h
    expect(e.supportPhase).toBe('extended');
  });

  it('switches from standard to extended on the end-of-standard-support day', () => {
    expect(supportPhase('1.34', new Date('2026-12-01T23:59:59Z'))).toBe('standard');
    expect(supportPhase('1.34', new Date('2026-12-02T00:00:00Z'))).toBe('extended');
    expect(supportPhase('1.31', at)).toBe('end-of-life');
    expect(supportPhase('9.99', at)).toBe('unknown');
  });

  it('applies the documented spot assumption and says so', () => {
    const e = estimateMonthlyCost({ ...base, pools: [{ ...pool, spot: true }] }, at);
    expect(e.nodes).toBe(63.77); // 35% of 182.21
    expect(e.assumptions.join(' ')).toMatch(/spot capacity estimated at 35% of on-demand/);
  });

  it('zero nodes cost only the control plane', () => {
    expect(estimateMonthlyCost({ ...base, pools: [{ ...pool, nodeCount: 0 }] }, at).monthlyCost).toBe(73);
  });

  it('names its price source and date, and flags a region it has no prices for', () => {
    const e = estimateMonthlyCost({ ...base, region: 'eu-west-1' }, at);
    expect(e.assumptions.join(' ')).toContain(PRICE_TABLE.asOf);
    expect(e.assumptions.join(' ')).toMatch(/eu-west-1 is estimated with us-east-1 prices/);
  });

  it('refuses an instance type without a price instead of inventing one', () => {
    const odd = { ...base, pools: [{ ...pool, instanceTypes: ['x1.mega'] }] };
    expect(() => estimateMonthlyCost(odd, at)).toThrow(/no price/);
  });
});

describe('cost of a spec with pools', () => {
  it('sums the pools, the spot pool at the spot fraction of its dearest type', () => {
    const e = estimateSpecCost(threePools, at);
    // system:  2 x $0.0832 x 730 = 121.472
    // workers: 4 x $0.192  x 730 = 560.64
    // spot:    5 x $0.192 (m6i.xlarge, dearest of 0.096/0.192/0.17) x 0.35 x 730 = 245.28
    expect(e.pools).toEqual([
      { name: 'system', nodes: 2, monthly: 121.47 },
      { name: 'workers', nodes: 4, monthly: 560.64 },
      { name: 'spot', nodes: 5, monthly: 245.28 },
    ]);
    expect(e.nodes).toBe(927.39); // 121.472 + 560.64 + 245.28
    expect(e.monthlyCost).toBe(1000.39); // + 73 control plane
    expect(e.assumptions).toContain('spot capacity estimated at 35% of on-demand');
    expect(e.assumptions).toContain(
      'pools with several instance types are priced at the most expensive one (spot)',
    );
  });

  it('prices the flat fields exactly as before pools existed (one pool, default)', () => {
    const e = estimateSpecCost(spec({ instanceType: 't3.large', nodeCount: 3 }), at);
    expect(e.monthlyCost).toBe(255.21);
    expect(e.pools).toEqual([{ name: 'default', nodes: 3, monthly: 182.21 }]);
    expect(e.assumptions.join(' ')).not.toMatch(/spot|most expensive|autoscaler/);
  });

  it('estimates an externally scaled pool at its nodeCount and says so', () => {
    const e = estimateSpecCost(
      spec({
        nodeGroups: [
          { name: 'system', instanceTypes: ['t3.large'], nodeCount: 2 },
          {
            name: 'burst',
            instanceTypes: ['t3.large'],
            nodeCount: 1,
            scaling: 'external',
            minSize: 0,
            maxSize: 9,
          },
        ],
      }),
      at,
    );
    expect(e.pools.map((p) => p.nodes)).toEqual([2, 1]);
    expect(e.nodes).toBe(182.21);
    expect(e.assumptions).toContain('pools scaled by an autoscaler are estimated at their nodeCount (burst)');
  });
});

describe('cost of what EKS reports', () => {
  const cluster = {
    name: 'payments',
    arn: 'arn:aws:eks:us-east-1:111122223333:cluster/payments',
    region: 'us-east-1',
    version: '1.34',
    status: 'ACTIVE',
    health: Health.Healthy,
    roleArn: 'arn:aws:iam::111122223333:role/eks',
    subnetIds: [],
    securityGroupIds: [],
    tags: {},
  };

  it('is nothing without a cluster', () => {
    expect(
      estimateObservedCost({ cluster: null, nodegroups: [], observedAt: at.toISOString() }, 'us-east-1', at),
    ).toBe(undefined);
  });

  it('sums every node group at its desired size, the same way as the spec', () => {
    const o = {
      cluster,
      nodegroups: [
        nodegroup('system', ['t3.large'], 2),
        nodegroup('workers', ['m5.xlarge'], 4),
        nodegroup('spot', ['m5.large', 'm6i.xlarge', 'c5.xlarge'], 5, true),
      ],
      observedAt: at.toISOString(),
    };
    const e = estimateObservedCost(o, 'us-east-1', at);
    expect(e?.monthlyCost).toBe(estimateSpecCost(threePools, at).monthlyCost);
  });

  it('leaves out a group with no priced instance type, and says so', () => {
    const o = {
      cluster,
      nodegroups: [nodegroup('system', ['t3.large'], 3), nodegroup('gpu', ['p4d.24xlarge'], 2)],
      observedAt: at.toISOString(),
    };
    const e = estimateObservedCost(o, 'us-east-1', at);
    expect(e?.monthlyCost).toBe(255.21);
    expect(e?.assumptions).toContain('node groups with no priced instance type are not included (gpu)');
  });
});
