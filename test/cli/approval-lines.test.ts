/** What `cloudorch describe` says about a pending approval and a denial, and what approve/deny say when nothing waits. */
import { describe, expect, it } from 'vitest';
import type { ClusterRecord } from '../../lambdas/store/types.js';
import { notWaiting } from '../../local/cli/commands/approve.js';
import { approvalLines } from '../../local/cli/commands/describe.js';

const NOW = new Date('2026-12-01T10:00:00Z');
const base = {
  id: 'team/prod',
  spec: {},
  specHash: 'h',
  generation: 3,
  version: 3,
  createdAt: '2026-11-01T00:00:00Z',
} as unknown as ClusterRecord;

describe('approval in describe', () => {
  it('a pending wait: since when, its generation and timeout, each operation, both commands', () => {
    const r = {
      ...base,
      approval: {
        token: 't',
        generation: 3,
        approvals: [
          { rule: 'production-deletion-approval', operation: 'delete cluster prod', reason: 'production' },
        ],
        requestedAt: '2026-12-01T09:55:00Z',
        expiresAt: '2026-12-02T09:55:00Z',
      },
    };
    expect(approvalLines(r, NOW)).toEqual([
      'Approval:      awaited for 5m (generation 3; times out at 2026-12-02T09:55:00Z)',
      '  - delete cluster prod (production-deletion-approval): production',
      '  cloudorch approve team/prod   or   cloudorch deny team/prod --reason ...',
    ]);
  });

  it('a denial shows for its own generation only', () => {
    const denied = {
      generation: 3,
      keys: [],
      reason: 'ApprovalDenied' as const,
      message: 'Approval denied: no',
      at: '2026-12-01T09:00:00Z',
    };
    expect(approvalLines({ ...base, denied }, NOW)).toEqual([
      'Denied:        ApprovalDenied 60m ago: Approval denied: no (a spec change asks again)',
    ]);
    expect(approvalLines({ ...base, denied: { ...denied, generation: 2 } }, NOW)).toEqual([]);
  });

  it('with nothing pending, approve and deny say what the cluster is doing', () => {
    expect(notWaiting(base)).toBe('no status yet (not reconciled so far)');
    const leased = { ...base, lease: { owner: 'exec', expiresAt: 0, executionArn: 'arn:x' } };
    expect(notWaiting(leased)).toBe('no status yet (not reconciled so far); an execution holds it (arn:x)');
  });
});
