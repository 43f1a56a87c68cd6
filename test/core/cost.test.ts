import { describe, expect, it } from 'vitest';
import { catalog, supportPhase } from '../../lambdas/core/catalog.js';
import { estimateMonthlyCost } from '../../lambdas/core/cost/estimate.js';
import { PRICE_TABLE } from '../../lambdas/core/cost/prices.js';

const at = new Date('2026-11-29T00:00:00Z');
const base = {
  kubernetesVersion: '1.34',
  instanceType: 't3.large',
  nodeCount: 3,
  spotEnabled: false,
  region: 'us-east-1',
};

describe('cost estimate', () => {
  it('has a price for every allowed instance type', () => {
    expect(catalog.instanceTypes.filter((t) => PRICE_TABLE.onDemandPerHour[t] === undefined)).toEqual([]);
  });

  it('prices the control plane at the standard rate and nodes by the hour', () => {
    const e = estimateMonthlyCost(base, at);
    expect(e.controlPlane).toBe(73); // $0.10 x 730 h
    expect(e.nodes).toBe(182.21); // 3 x $0.0832 x 730 h
    expect(e.monthlyCost).toBe(255.21);
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
    const e = estimateMonthlyCost({ ...base, spotEnabled: true }, at);
    expect(e.nodes).toBe(63.77); // 35% of 182.21
    expect(e.assumptions.join(' ')).toMatch(/spot capacity estimated at 35% of on-demand/);
  });

  it('zero nodes cost only the control plane', () => {
    expect(estimateMonthlyCost({ ...base, nodeCount: 0 }, at).monthlyCost).toBe(73);
  });

  it('names its price source and date, and flags a region it has no prices for', () => {
    const e = estimateMonthlyCost({ ...base, region: 'eu-west-1' }, at);
    expect(e.assumptions.join(' ')).toContain(PRICE_TABLE.asOf);
    expect(e.assumptions.join(' ')).toMatch(/eu-west-1 is estimated with us-east-1 prices/);
  });

  it('refuses an instance type without a price instead of inventing one', () => {
    expect(() => estimateMonthlyCost({ ...base, instanceType: 'x1.mega' }, at)).toThrow(/no price/);
  });
});
