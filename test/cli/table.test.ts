/** `get`'s cells, from a record as the store returns it: written now (pools) or by older code (flat). */
import { describe, expect, it } from 'vitest';
import type { ObservedPool } from '../../lambdas/core/status.js';
import type { ClusterRecord } from '../../lambdas/store/types.js';
import { renderTable } from '../../local/cli/output/table.js';

const now = new Date('2026-01-01T00:00:00.000Z');
const base = { provider: 'aws', region: 'us-east-1', clusterName: 'web', kubernetesVersion: '1.34' };
/** The spec as code before node pools stored it: the flat fields. */
const FLAT = { ...base, nodeCount: 2, instanceType: 't3.medium' };
const POOLS = {
  ...base,
  nodeGroups: [
    { name: 'system', instanceTypes: ['t3.medium'], nodeCount: 2 },
    { name: 'general', instanceTypes: ['m6i.large'], nodeCount: 3 },
    { name: 'spot', instanceTypes: ['c6i.large', 'c5.large'], capacityType: 'SPOT', nodeCount: 4 },
  ],
};

const record = (spec: object, observed: Record<string, unknown> | undefined): ClusterRecord =>
  ({
    id: 'default/web',
    spec,
    specHash: 'x',
    generation: 3,
    version: 7,
    createdAt: now.toISOString(),
    ...(observed
      ? { status: { conditions: [], observedGeneration: 2, ready: false, synced: false, observed } }
      : {}),
  }) as unknown as ClusterRecord;

const pool = (name: string, over: Partial<ObservedPool> = {}): ObservedPool => ({
  name,
  nodegroup: `cloudorch-${name}-ng`,
  status: 'ACTIVE',
  nodeCount: 2,
  ...over,
});

/** The cell under `column` of the table's one row. */
const cell = (r: ClusterRecord, column: string, wide = false) => {
  const [head, row] = renderTable([r], [], now, { wide });
  const at = head?.indexOf(column) ?? -1;
  return row?.slice(at).split(/\s{3,}/)[0];
};

describe('get', () => {
  it('NODES is the total over every node group, POOLS the number of pools', () => {
    const observed = {
      health: 'Healthy',
      nodeCount: 9,
      poolCount: 3,
      pools: [pool('system'), pool('general', { nodeCount: 3 }), pool('spot', { nodeCount: 4 })],
    };
    const r = record(POOLS, observed);
    const [head] = renderTable([r], [], now, {});
    expect(head?.split(/\s+/)).toEqual([
      'NAME',
      'REGION',
      'VERSION',
      'NODES',
      'POOLS',
      'READY',
      'SYNCED',
      'DRIFT',
      'COST/MO',
      'AGE',
    ]);
    expect(cell(r, 'NODES')).toBe('9');
    expect(cell(r, 'POOLS')).toBe('3');
  });

  it('a record written by older code (flat spec, status without pools) still shows: one pool', () => {
    const old = record(FLAT, {
      health: 'Healthy',
      nodeCount: 2,
      nodegroup: 'cloudorch-t3-medium-od-1a2b3c4d',
      instanceType: 't3.medium',
      capacityType: 'ON_DEMAND',
    });
    expect(cell(old, 'NODES')).toBe('2');
    expect(cell(old, 'POOLS')).toBe('1');
    expect(cell(old, 'NODEGROUPS', true)).toBe('-');
    expect(cell(record(FLAT, undefined), 'POOLS')).toBe('1');
    expect(cell(record(FLAT, undefined), 'NODES')).toBe('-');
  });

  it('an invalid spec with nothing observed has no pool count', () => {
    expect(cell(record({ ...FLAT, nodeCount: -1 }, undefined), 'POOLS')).toBe('-');
  });
});

describe('get -o wide', () => {
  it("NODEGROUPS names each pool's current node group in spec order, and a pool without one", () => {
    const observed = {
      health: 'Healthy',
      nodeCount: 5,
      poolCount: 3,
      pools: [pool('system'), { name: 'general', status: 'Missing' }, pool('spot')],
    };
    expect(cell(record(POOLS, observed), 'NODEGROUPS', true)).toBe(
      'cloudorch-system-ng,general:Missing,cloudorch-spot-ng',
    );
    expect(cell(record(POOLS, undefined), 'NODEGROUPS', true)).toBe('-');
  });
});
