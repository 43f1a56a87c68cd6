/** describe's Pools section and `sim drift`'s choice of node group, from statuses and observations. */
import { describe, expect, it } from 'vitest';
import { Health } from '../../lambdas/core/health.js';
import type { ObservedNodegroup } from '../../lambdas/core/observation.js';
import { MANAGED_BY_TAG, OWNER_TAG, POOL_TAG } from '../../lambdas/core/ownership.js';
import { validateSpec } from '../../lambdas/core/spec/validate.js';
import type { ObservedSummary } from '../../lambdas/core/status.js';
import { pickNodegroup } from '../../local/cli/commands/sim.js';
import { poolsSection } from '../../local/cli/pools.js';

const OBSERVED: ObservedSummary = {
  health: Health.Healthy,
  version: '1.34',
  nodeCount: 8,
  poolCount: 2,
  pools: [
    {
      name: 'system',
      nodegroup: 'cloudorch-system-t3-medium-od-1a2b3c4d',
      status: 'ACTIVE',
      version: '1.34',
      nodeCount: 2,
      minSize: 2,
      maxSize: 3,
      instanceTypes: ['t3.medium'],
      capacityType: 'ON_DEMAND',
      labels: { 'node-role': 'system' },
      taints: [{ key: 'CriticalAddonsOnly', value: 'true', effect: 'NO_SCHEDULE' }],
    },
    { name: 'spot', status: 'Missing', otherNodegroups: ['cloudorch-spot-c5-large-spot-9f8e7d6c'] },
  ],
  foreign: ['made-by-hand'],
  orphan: ['cloudorch-old-m5-large-od-0a0b0c0d'],
};

describe('describe: pools', () => {
  it('shows each pool: node group, status, version, sizes, instance types, capacity, labels, taints', () => {
    const lines = poolsSection(OBSERVED, undefined);
    expect(lines.slice(0, 3)).toEqual([
      '  system: node group cloudorch-system-t3-medium-od-1a2b3c4d (ACTIVE, version 1.34)',
      '      nodes 2 (min 2, max 3), t3.medium ON_DEMAND',
      '      labels node-role=system; taints CriticalAddonsOnly=true:NO_SCHEDULE',
    ]);
    expect(lines[3]).toBe('  spot: no node group (Missing); also cloudorch-spot-c5-large-spot-9f8e7d6c');
    expect(lines.join('\n')).toContain('no longer listed (deleted once the pools are ACTIVE): cloudorch-old');
    expect(lines.join('\n')).toContain(
      'created outside CloudOrch (policy decides on deletion): made-by-hand',
    );
  });

  it('a status written before pools existed shows the spec’s pools, the flat form as `default`', () => {
    const flat = validateSpec({
      provider: 'aws',
      region: 'us-east-1',
      clusterName: 'web',
      kubernetesVersion: '1.34',
      nodeCount: 2,
      instanceType: 't3.medium',
    });
    if (!flat.ok) throw new Error('the flat spec is valid');
    const lines = poolsSection({ health: Health.Healthy, nodeCount: 2 }, flat.spec.nodeGroups);
    expect(lines[0]).toBe(
      '  default: not observed yet; the spec asks for 2 (min -, max -, scaling managed), t3.medium ON_DEMAND',
    );
    expect(lines[1]).toBe('      labels <none>; taints <none>');
  });

  it('an invalid spec with nothing observed says so', () => {
    expect(poolsSection(undefined, undefined)).toEqual(['  none (the spec is invalid)']);
  });
});

const group = (name: string, pool: string | undefined, status = 'ACTIVE'): ObservedNodegroup => ({
  name,
  arn: `arn:aws:eks:us-east-1:111122223333:nodegroup/c/${name}/x`,
  version: '1.34',
  status,
  health: Health.Healthy,
  instanceTypes: ['t3.medium'],
  capacityType: 'ON_DEMAND',
  scaling: { minSize: 1, maxSize: 3, desiredSize: 2 },
  nodeRole: 'arn:aws:iam::111122223333:role/node',
  subnets: [],
  tags:
    pool === undefined
      ? {}
      : { [MANAGED_BY_TAG]: 'cloudorch', [OWNER_TAG]: 'team-a/web', ...(pool ? { [POOL_TAG]: pool } : {}) },
  labels: {},
  taints: [],
});

describe('sim drift: which node group --nodes changes', () => {
  const groups = [
    group('cloudorch-t3-medium-od-1a2b3c', ''), // made before pools: no pool tag, so the pool `default`
    group('cloudorch-general-old', 'general', 'DELETING'),
    group('cloudorch-general-new', 'general'),
    group('by-hand', undefined),
  ];

  it('finds the group by pool (an ACTIVE one while a replacement is in flight) or by name', () => {
    expect(pickNodegroup(groups, { pool: 'general' })).toMatchObject({ name: 'cloudorch-general-new' });
    expect(pickNodegroup(groups, { pool: 'default' })).toMatchObject({
      name: 'cloudorch-t3-medium-od-1a2b3c',
    });
    expect(pickNodegroup(groups, { nodegroup: 'by-hand' })).toMatchObject({ name: 'by-hand' });
    expect(pickNodegroup([group('only', 'default')], {})).toMatchObject({ name: 'only' });
  });

  it('refuses to guess, naming the groups and their pools', () => {
    expect(pickNodegroup(groups, {})).toBe(
      'it has several node groups: name one with --pool or --nodegroup (cloudorch-t3-medium-od-1a2b3c (pool default), cloudorch-general-old (pool general), cloudorch-general-new (pool general), by-hand (created outside CloudOrch))',
    );
    expect(pickNodegroup(groups, { pool: 'spot' })).toMatch(/^no node group serves pool spot; it has /);
    expect(pickNodegroup(groups, { pool: 'general', nodegroup: 'x' })).toBe(
      'give --pool or --nodegroup, not both',
    );
    expect(pickNodegroup([], {})).toBe('it has no node group');
  });
});
