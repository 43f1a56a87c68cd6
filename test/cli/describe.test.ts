/** `cloudorch describe` annotates drift with how each field converges, read from the field table. */
import { describe, expect, it } from 'vitest';
import { driftLine } from '../../local/cli/commands/describe.js';

describe('describe: drift lines', () => {
  it('keeps the difference first and adds how the field converges and what it is compared with', () => {
    expect(driftLine({ field: 'nodeCount', desired: '2', observed: '5' })).toBe(
      'nodeCount: want 2, found 5  (in-place via UpdateNodegroupScaling; EKS nodegroup.scalingConfig.desiredSize)',
    );
  });

  it('says when a field cannot converge, and finds the rule of a sub-field', () => {
    expect(driftLine({ field: 'network.subnetIds', desired: 'a,b', observed: 'c,d' })).toBe(
      'network.subnetIds: want a,b, found c,d  (impossible; EKS cluster.resourcesVpcConfig)',
    );
    expect(
      driftLine({ field: 'instanceType', desired: '["m6i.large"]', observed: '["t3.large"]' }),
    ).toContain('(replace-nodegroup via CreateNodegroup, DeleteNodegroup; EKS nodegroup.instanceTypes)');
  });

  it('a missing resource is not a field: the line stays as it was', () => {
    expect(driftLine({ field: 'cluster', desired: 'exists', observed: 'not found' })).toBe(
      'cluster: want exists, found not found',
    );
  });
});
