/** The sweep's pure parts: whether a record needs a run, and the fleet gauges it emits. */
import { describe, expect, it } from 'vitest';
import { fleetGauges } from '../../../lambdas/handlers/triggers/sweep.js';
import { decideFromRecord } from '../../../lambdas/handlers/triggers/sweep-decide.js';
import type { ClusterRecord } from '../../../lambdas/store/types.js';
import { spec } from '../../pipeline/support.js';

const now = new Date('2026-11-29T12:00:00Z');
const record = (over: Partial<ClusterRecord> = {}): ClusterRecord => ({
  id: 'team/x',
  spec: spec('x'),
  specHash: 'h',
  generation: 2,
  version: 2,
  createdAt: now.toISOString(),
  ...over,
});

describe('sweep decisions from the record', () => {
  it('asks about live-looking leases, takes over dead ones, restarts stale and deleting records', () => {
    // A lease that has not expired is checked against its execution by the caller (it may have died).
    expect(
      decideFromRecord(record({ lease: { owner: 'e', expiresAt: now.getTime() + 1000 } }), now),
    ).toBeUndefined();
    expect(
      decideFromRecord(record({ lease: { owner: 'e', expiresAt: now.getTime() - 1 } }), now),
    ).toMatchObject({ start: true, why: 'dead execution (lease expired)' });
    expect(decideFromRecord(record(), now)).toMatchObject({ start: true, why: 'status is stale' });
    expect(decideFromRecord(record({ deletionRequestedAt: now.toISOString() }), now)).toMatchObject({
      start: true,
    });
  });

  it('holds a failing deletion off until its retry time, but not a deletion asked for after the failure', () => {
    const failedAt = new Date(now.getTime() - 60_000).toISOString();
    const failures = {
      generation: 2,
      count: 3,
      lastAt: failedAt,
      retryAt: new Date(now.getTime() + 60_000).toISOString(),
    };
    const earlier = new Date(now.getTime() - 120_000).toISOString();
    const deleting = (at: string) => record({ failures, deletionRequestedAt: at });
    expect(decideFromRecord(deleting(earlier), now)).toMatchObject({
      start: false,
      why: 'backing off after failures',
    });
    expect(decideFromRecord(deleting(earlier), new Date(now.getTime() + 60_001))).toMatchObject({
      start: true,
    });
    // Deleting a cluster that keeps failing must not wait out a backoff earned before the request.
    expect(decideFromRecord(deleting(now.toISOString()), now)).toMatchObject({
      start: true,
      why: 'deletion pending',
    });
  });

  it('takes over a lease that expires further ahead than any lease CloudOrch writes', () => {
    const forged = record({ lease: { owner: 'ghost', expiresAt: Date.parse('2100-01-01T00:00:00Z') } });
    expect(decideFromRecord(forged, now)).toMatchObject({ start: true });
  });
});

describe('sweep fleet gauges', () => {
  it('count clusters by Ready reason and age the oldest open drift per cluster', () => {
    const cond = (type: string, status: 'True' | 'False', reason: string, minutesAgo: number) => ({
      type: type as 'Ready',
      status,
      reason: reason as 'Reconciled',
      message: '',
      observedGeneration: 2,
      lastTransitionTime: new Date(now.getTime() - minutesAgo * 60_000).toISOString(),
    });
    const status = (...conditions: ReturnType<typeof cond>[]) =>
      ({
        conditions,
        observedGeneration: 2,
        ready: false,
        synced: false,
        updatedAt: now.toISOString(),
      }) as NonNullable<ClusterRecord['status']>;
    const g = fleetGauges(
      [
        record({
          status: status(cond('Ready', 'True', 'Reconciled', 60), cond('Drifted', 'False', 'NoDrift', 60)),
        }),
        record({
          status: status(
            cond('Ready', 'False', 'Progressing', 2),
            cond('Drifted', 'True', 'DriftDetected', 45),
          ),
        }),
        record({
          status: status(
            cond('Ready', 'False', 'Progressing', 1),
            cond('Drifted', 'True', 'DriftDetected', 3),
          ),
        }),
        record(),
      ],
      now,
    );
    expect(g.byCondition).toEqual({ Reconciled: 1, Progressing: 2, NoStatus: 1 });
    expect(g.maxDriftAgeSeconds).toBe(45 * 60);
  });
});
