/** `cloudorch describe` annotates drift with how each field converges, read from the field table. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../lambdas/handlers/deps.js';
import { driftLine, leaseExpiry } from '../../local/cli/commands/describe.js';

describe('describe: drift lines', () => {
  it('keeps the difference first, naming the pool, and adds how the field converges and what it is compared with', () => {
    expect(driftLine({ field: 'nodeGroups[general].nodeCount', desired: '2', observed: '5' })).toBe(
      'nodeGroups[general].nodeCount: want 2, found 5  (in-place via UpdateNodegroupConfig; EKS nodegroup.scalingConfig.desiredSize)',
    );
  });

  it('says when a field cannot converge, and finds the rule of a sub-field or a pool field', () => {
    expect(driftLine({ field: 'network.subnetIds', desired: 'a,b', observed: 'c,d' })).toBe(
      'network.subnetIds: want a,b, found c,d  (impossible; EKS cluster.resourcesVpcConfig)',
    );
    expect(
      driftLine({
        field: 'nodeGroups[spot].instanceTypes',
        desired: '["m6i.large"]',
        observed: '["t3.large"]',
      }),
    ).toContain('(replace-nodegroup via CreateNodegroup, DeleteNodegroup; EKS nodegroup.instanceTypes)');
  });

  it('a missing cluster is a resource, not a field: the line stays as it was', () => {
    expect(driftLine({ field: 'cluster', desired: 'exists', observed: 'not found' })).toBe(
      'cluster: want exists, found not found',
    );
  });
});

describe('describe: the lease line', () => {
  const now = new Date('2026-01-01T00:00:00.000Z');
  const lease = (inMs: number) => ({ owner: 'run-1', expiresAt: now.getTime() + inMs });

  it('prints the state the sweep and reconcile act on (leaseView), not its own expiry test', () => {
    expect(leaseExpiry(lease(60_000), now)).toBe('live until 2026-01-01T00:01:00.000Z');
    expect(leaseExpiry(lease(0), now)).toBe('live until 2026-01-01T00:00:00.000Z');
    expect(leaseExpiry(lease(-1), now)).toBe('expired at 2025-12-31T23:59:59.999Z');
  });

  it('an implausible lease counts as free, however far ahead it claims to be valid', () => {
    const far = lease(DEFAULT_CONFIG.leaseTtlMs + 24 * 3_600_000);
    expect(leaseExpiry(far, now)).toMatch(/^implausible, counts as free: expires 2026-01-02T00:15:00\.000Z/);
  });
});
