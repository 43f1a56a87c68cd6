/** The CloudRollout's pure parts: its admission decision and the status computed from its record. */
import { describe, expect, it } from 'vitest';
import type { AdmissionRequest } from '../../bridge/admission.js';
import { admitRollout } from '../../bridge/rollout-admission.js';
import {
  countsOf,
  isActive,
  rolloutCrStatus,
  stageColumn,
  syncedCondition,
} from '../../bridge/rollout-status.js';
import { aborted, completed, initialStatus, withCluster } from '../../lambdas/core/rollout/transitions.js';
import type { RolloutRecord } from '../../lambdas/store/rollouts.js';
import { cloudRollout, validRolloutSpec } from './support.js';

const at = new Date('2026-11-30T00:00:00Z');
const STAGES = [
  { name: 'canary', clusters: ['a/one'], maxConcurrency: 1, soakSeconds: 0, approval: 'none' as const },
  {
    name: 'rest',
    clusters: ['a/two', 'a/three'],
    maxConcurrency: 2,
    soakSeconds: 0,
    approval: 'none' as const,
  },
];
const record = (over: Partial<RolloutRecord> = {}): RolloutRecord => ({
  id: 'a/wave',
  spec: {},
  generation: 1,
  version: 1,
  attempt: 0,
  createdAt: at.toISOString(),
  updatedAt: at.toISOString(),
  ...over,
});
const review = (
  operation: AdmissionRequest['operation'],
  spec: unknown,
  oldSpec?: unknown,
): AdmissionRequest => ({
  uid: 'u1',
  operation,
  object: cloudRollout('a', 'wave', spec),
  ...(oldSpec === undefined ? {} : { oldObject: cloudRollout('a', 'wave', oldSpec) }),
});

describe('CloudRollout admission', () => {
  it('allows a valid spec and denies a malformed one, naming every refused field', () => {
    expect(admitRollout(review('CREATE', validRolloutSpec())).allowed).toBe(true);
    const bad = admitRollout(
      review('CREATE', validRolloutSpec({ stages: [], failurePolicy: { maxFailures: -1 } })),
    );
    expect(bad.allowed).toBe(false);
    expect(bad.status?.message).toContain('spec.stages: stages must list at least one stage');
    expect(bad.status?.message).toContain('spec.failurePolicy.maxFailures');
  });

  it('denies a name the rollout record id cannot hold (Kubernetes allows dots; a record id does not)', () => {
    const dotted = { ...review('CREATE', validRolloutSpec()), name: 'wave.v2' };
    const r = admitRollout(dotted);
    expect(r.allowed).toBe(false);
    expect(r.status?.message).toContain('metadata.name: must be a DNS label');
  });

  it('allows what cannot make a spec worse: deletes and edits that leave the spec alone', () => {
    const bad = { stages: [] };
    expect(admitRollout(review('DELETE', bad)).allowed).toBe(true);
    expect(admitRollout(review('UPDATE', bad, bad)).allowed).toBe(true);
    expect(admitRollout(review('UPDATE', bad, validRolloutSpec())).allowed).toBe(false);
  });
});

describe('CloudRollout status from the record', () => {
  it('is active from planning until Completed or Aborted: only then may the spec change', () => {
    const planned = initialStatus(1, STAGES, at);
    expect(isActive(record())).toBe(false); // not planned yet
    expect(isActive(record({ status: planned }))).toBe(true);
    expect(isActive(record({ status: { ...planned, phase: 'Halted' } }))).toBe(true);
    expect(isActive(record({ status: completed(planned, at) }))).toBe(false);
    expect(isActive(record({ status: aborted(planned, at) }))).toBe(false);
  });

  it('counts clusters by state and names the first stage not done', () => {
    let s = initialStatus(1, STAGES, at);
    expect(stageColumn(s)).toBe('1/2 canary');
    s = withCluster(s, 'canary', 'a/one', { state: 'succeeded' });
    s = { ...s, stages: s.stages.map((x, i) => (i === 0 ? { ...x, state: 'succeeded' } : x)) };
    expect(stageColumn(s)).toBe('2/2 rest');
    expect(countsOf(s.stages.flatMap((x) => x.clusters))).toEqual({
      total: 3,
      pending: 2,
      inProgress: 0,
      succeeded: 1,
      failed: 0,
      skipped: 0,
    });
    expect(stageColumn({ ...s, stages: s.stages.map((x) => ({ ...x, state: 'succeeded' })) })).toBe('2/2');
  });

  it('before an execution planned the generation, says so and invents no phase', () => {
    const cond = syncedCondition(
      undefined,
      { status: 'True', reason: 'Mirrored', message: 'm', observedGeneration: 3 },
      at,
    );
    const out = rolloutCrStatus(record({ generation: 2 }), cond, 3);
    expect(out).toEqual({
      generation: 2,
      summary: 'waiting for an execution to plan generation 2',
      conditions: [cond],
      observedGeneration: 3,
    });
  });

  it('keeps the condition’s lastTransitionTime until its status flips', () => {
    const first = syncedCondition(
      undefined,
      { status: 'True', reason: 'Mirrored', message: 'm', observedGeneration: 1 },
      at,
    );
    const later = new Date('2026-12-01T00:00:00Z');
    const same = syncedCondition(
      [first],
      { status: 'True', reason: 'Mirrored', message: 'n', observedGeneration: 2 },
      later,
    );
    expect(same.lastTransitionTime).toBe(at.toISOString());
    const flipped = syncedCondition(
      [same],
      { status: 'False', reason: 'RolloutRunning', message: 'x', observedGeneration: 3 },
      later,
    );
    expect(flipped.lastTransitionTime).toBe(later.toISOString());
  });
});
