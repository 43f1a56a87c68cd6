/** Which status changes become Events: one per condition whose status or reason moved. */
import { describe, expect, it } from 'vitest';
import { formatStatus, statusFromObject } from '../../bridge/api-errors.js';
import { conditionTransitions } from '../../bridge/status-writeback.js';

const c = (type: string, status: string, reason: string, message = '') => ({ type, status, reason, message });

describe('condition transitions', () => {
  const cases: { why: string; before: unknown; after: unknown; want: [string, string, string][] }[] = [
    {
      why: 'a first status: every condition is new',
      before: undefined,
      after: [c('Ready', 'True', 'Reconciled'), c('Drifted', 'False', 'NoDrift')],
      want: [
        ['Normal', 'Reconciled', 'Ready unset -> True'],
        ['Normal', 'NoDrift', 'Drifted unset -> False'],
      ],
    },
    {
      why: 'a status flip is an event; Ready False is bad news',
      before: [c('Ready', 'True', 'Reconciled')],
      after: [c('Ready', 'False', 'TransientError', 'EKS throttled')],
      want: [['Warning', 'TransientError', 'Ready True -> False: EKS throttled']],
    },
    {
      why: 'a new reason with the same status is an event',
      before: [c('Synced', 'False', 'TransientError')],
      after: [c('Synced', 'False', 'PolicyViolation')],
      want: [['Warning', 'PolicyViolation', 'Synced False -> False']],
    },
    {
      why: 'Drifted True is the bad state',
      before: [c('Drifted', 'False', 'NoDrift')],
      after: [c('Drifted', 'True', 'DriftDetected')],
      want: [['Warning', 'DriftDetected', 'Drifted False -> True']],
    },
    {
      why: 'a new message alone (same status and reason) is not a transition',
      before: [c('Ready', 'False', 'Progressing', 'step 1')],
      after: [c('Ready', 'False', 'Progressing', 'step 2')],
      want: [],
    },
  ];
  it.each(cases)('$why', ({ before, after, want }) => {
    expect(conditionTransitions(before, after).map((e) => [e.type, e.reason, e.note])).toEqual(want);
  });
});

describe('a watch ERROR event', () => {
  it('is read as a Status, like any other API error', () => {
    const raw = {
      kind: 'Status',
      apiVersion: 'v1',
      code: 410,
      reason: 'Expired',
      message: 'too old resource version: 1 (42)',
    };
    expect(formatStatus(statusFromObject(raw) as NonNullable<ReturnType<typeof statusFromObject>>)).toBe(
      'status 410, reason Expired, message too old resource version: 1 (42)',
    );
    expect(statusFromObject({ kind: 'CloudCluster' })).toBeUndefined();
  });
});
