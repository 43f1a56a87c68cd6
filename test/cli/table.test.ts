/** `get -o wide`'s cells, from a record as the store returns it. */
import { describe, expect, it } from 'vitest';
import type { ClusterRecord } from '../../lambdas/store/types.js';
import { renderTable } from '../../local/cli/output/table.js';

const now = new Date('2026-01-01T00:00:00.000Z');
const record = (observed: Record<string, unknown> | undefined): ClusterRecord =>
  ({
    id: 'default/web',
    spec: { region: 'us-east-1', clusterName: 'web', kubernetesVersion: '1.34', nodeCount: 2 },
    specHash: 'x',
    generation: 3,
    version: 7,
    createdAt: now.toISOString(),
    ...(observed
      ? { status: { conditions: [], observedGeneration: 2, ready: false, synced: false, observed } }
      : {}),
  }) as unknown as ClusterRecord;

const nodegroupCell = (r: ClusterRecord) => {
  const [head, row] = renderTable([r], [], now, { wide: true });
  const at = head?.indexOf('NODEGROUP') ?? -1;
  return row?.slice(at).split(/\s{3,}/)[0];
};

describe('get -o wide', () => {
  it('names the observed node group with its capacity type (the name the status records)', () => {
    expect(nodegroupCell(record({ health: 'Healthy', nodegroup: 'ng-3f2a9c', capacityType: 'SPOT' }))).toBe(
      'ng-3f2a9c (SPOT)',
    );
  });

  it('a status written before names were recorded shows the capacity type; none observed shows -', () => {
    expect(nodegroupCell(record({ health: 'Healthy', capacityType: 'ON_DEMAND' }))).toBe('ON_DEMAND');
    expect(nodegroupCell(record({ health: 'Healthy' }))).toBe('-');
    expect(nodegroupCell(record(undefined))).toBe('-');
  });
});
