import { describe, expect, it } from 'vitest';
import {
  ConditionType,
  deriveFlags,
  failure,
  getCondition,
  Reason,
  setCondition,
  success,
} from '../../lambdas/core/conditions.js';
import { applyOutcome, type ClusterStatus, type Outcome } from '../../lambdas/core/status.js';

const t0 = new Date('2026-11-29T10:00:00Z');
const t1 = new Date('2026-11-29T10:05:00Z');
const t2 = new Date('2026-11-29T10:10:00Z');

describe('conditions', () => {
  it('keeps lastTransitionTime while the status stays the same, even when the reason changes', () => {
    const a = setCondition(
      [],
      {
        type: 'Ready',
        status: 'False',
        reason: Reason.Progressing,
        message: 'creating',
        observedGeneration: 1,
      },
      t0,
    );
    const b = setCondition(
      a,
      { type: 'Ready', status: 'False', reason: Reason.Waiting, message: 'waiting', observedGeneration: 1 },
      t1,
    );
    expect(getCondition(b, 'Ready')).toMatchObject({
      reason: Reason.Waiting,
      lastTransitionTime: t0.toISOString(),
    });
  });

  it('moves lastTransitionTime when the status flips', () => {
    const a = setCondition([], success('Ready', Reason.Reconciled, 'ok', 1), t0);
    const b = setCondition(a, failure('Ready', Reason.PermanentError, 'boom', 'fix it', 1), t1);
    expect(getCondition(b, 'Ready')?.lastTransitionTime).toBe(t1.toISOString());
  });

  it('refuses to build a failure without a remediation hint', () => {
    expect(() => failure('Ready', Reason.PermanentError, 'boom', '  ', 1)).toThrow(/remediation/);
  });

  it('derives ready and synced from the conditions only', () => {
    expect(deriveFlags([])).toEqual({ ready: false, synced: false });
    const c = setCondition(
      setCondition([], success('Ready', Reason.Reconciled, '', 1), t0),
      failure('Synced', Reason.SpecInvalid, 'x', 'y', 1),
      t0,
    );
    expect(deriveFlags(c)).toEqual({ ready: true, synced: false });
  });
});

const ctx = (now: Date, generation = 1) => ({ generation, now });

const FAILURES: ReadonlyArray<Outcome> = [
  {
    kind: 'PolicyDenied',
    violations: [{ rule: 'region', message: 'region not allowed', severity: 'error' }],
  },
  { kind: 'PolicyEngineDegraded', message: 'bundle missing' },
  { kind: 'SpecInvalid', message: 'spec.nodeCount: must be at least 0' },
  { kind: 'Failed', errorKind: 'Transient', message: 'ThrottlingException', remediation: 'wait' },
  {
    kind: 'Failed',
    errorKind: 'Permanent',
    message: 'AccessDeniedException',
    remediation: 'grant eks:CreateCluster',
  },
  { kind: 'Impossible', message: 'downgrade', remediation: 'set 1.31' },
  { kind: 'Impossible', message: 'not owned', remediation: 'set adopt', ownership: 'NotOwned' },
  { kind: 'DeletionStuck', message: 'node group DELETE_FAILED' },
];

describe('applyOutcome', () => {
  it('a converged cluster is ready and synced', () => {
    const s = applyOutcome(undefined, { kind: 'Converged' }, ctx(t0));
    expect(s).toMatchObject({ ready: true, synced: true, observedGeneration: 1 });
    expect(getCondition(s.conditions, ConditionType.PolicyCompliant)?.status).toBe('True');
    expect(s.remediation).toBeUndefined();
  });

  it.each(FAILURES)('a failure after a success turns ready false and carries a hint: %o', (outcome) => {
    const ok = applyOutcome(undefined, { kind: 'Converged' }, ctx(t0));
    const s = applyOutcome(ok, outcome, ctx(t1));
    expect(s.ready).toBe(false);
    const ready = getCondition(s.conditions, ConditionType.Ready);
    expect(ready?.status).toBe('False');
    expect(ready?.lastTransitionTime).toBe(t1.toISOString());
    expect(ready?.remediation).toBeTruthy();
    expect(s.remediation).toBe(ready?.remediation);
  });

  it('a policy denial lists the violations and sets PolicyCompliant false', () => {
    const s = applyOutcome(undefined, FAILURES[0]!, ctx(t0));
    expect(s.violations).toHaveLength(1);
    expect(getCondition(s.conditions, ConditionType.PolicyCompliant)).toMatchObject({
      status: 'False',
      reason: Reason.PolicyViolation,
    });
    expect(getCondition(s.conditions, ConditionType.Ready)?.message).toContain('region: region not allowed');
  });

  it('recovery clears the remediation and the violations', () => {
    const denied = applyOutcome(undefined, FAILURES[0]!, ctx(t0));
    const ok = applyOutcome(denied, { kind: 'Converged' }, ctx(t1));
    expect(ok).toMatchObject({ ready: true, violations: [] });
    expect(ok.remediation).toBeUndefined();
  });

  it('differences right after a spec change are pending work, not drift', () => {
    const ok = applyOutcome(undefined, { kind: 'Converged' }, { ...ctx(t0), drift: [] });
    const s = applyOutcome(
      ok,
      { kind: 'Progressing', operation: 'scale' },
      { ...ctx(t1, 2), drift: [{ field: 'nodeCount', desired: '5', observed: '3' }] },
    );
    expect(getCondition(s.conditions, ConditionType.Drifted)?.status).toBe('False');
  });

  it('a difference found after the same generation was in sync is drift', () => {
    const ok = applyOutcome(undefined, { kind: 'Converged' }, { ...ctx(t0), drift: [] });
    const drift = [{ field: 'nodeCount', desired: '3', observed: '7' }];
    const s = applyOutcome(ok, { kind: 'Progressing', operation: 'scale' }, { ...ctx(t1), drift });
    expect(getCondition(s.conditions, ConditionType.Drifted)).toMatchObject({
      status: 'True',
      reason: Reason.DriftDetected,
    });
    expect(s.lastDrift).toEqual(drift);
    // Still drifted while the correction runs, and cleared once it is fixed.
    const s2 = applyOutcome(s, { kind: 'Waiting', reason: 'update in progress' }, { ...ctx(t2), drift });
    expect(getCondition(s2.conditions, ConditionType.Drifted)?.status).toBe('True');
    const s3 = applyOutcome(s2, { kind: 'Converged' }, { ...ctx(t2), drift: [] });
    expect(getCondition(s3.conditions, ConditionType.Drifted)?.status).toBe('False');
  });

  it('carries observed facts, cost and plan when given', () => {
    const s: ClusterStatus = applyOutcome(
      undefined,
      { kind: 'Progressing', operation: 'create' },
      {
        ...ctx(t0),
        observed: { health: 'Progressing', version: '1.31' },
        estimatedMonthlyCost: 133.74,
        plan: ['create cluster'],
      },
    );
    expect(s).toMatchObject({
      estimatedMonthlyCost: 133.74,
      lastPlan: ['create cluster'],
      observed: { version: '1.31' },
      ready: false,
    });
  });
});

describe('Drifted never claims "matches" for what was not observed', () => {
  it('an invalid spec turns a previous NoDrift into Unknown', () => {
    const now = new Date('2026-11-30T00:00:00Z');
    const prev = applyOutcome(undefined, { kind: 'Converged' }, { generation: 1, now, drift: [] });
    expect(prev.conditions.find((c) => c.type === 'Drifted')?.reason).toBe('NoDrift');
    const next = applyOutcome(
      prev,
      { kind: 'SpecInvalid', message: 'bad' },
      { generation: 2, now, drift: [] },
    );
    expect(next.conditions.find((c) => c.type === 'Drifted')).toMatchObject({
      status: 'Unknown',
      reason: 'SpecInvalid',
    });
  });
});

describe('status: what could not be observed', () => {
  it('an observation that failed leaves no pools, sizes or versions of the last good answer', () => {
    const good = applyOutcome(
      undefined,
      { kind: 'Converged' },
      {
        generation: 1,
        now: t0,
        observed: {
          health: 'Healthy',
          version: '1.34',
          nodeCount: 3,
          poolCount: 1,
          pools: [],
        } as never,
      },
    );
    expect(good.observed).toMatchObject({ version: '1.34', nodeCount: 3 });
    const failed = applyOutcome(
      good,
      { kind: 'ObserveFailed', message: 'DescribeNodegroup: 503', remediation: 'retry' },
      { generation: 1, now: t1 },
    );
    expect(failed.observed).toEqual({ health: 'Unknown' });
  });
});

describe('status: a paused record', () => {
  const observed = { health: 'Healthy' } as never;
  const drift = [{ field: 'nodeGroups[general]', desired: 'cloudorch-general-x', observed: 'none' }];
  it('turns Ready False and reports drift once the cluster differs, though nothing is corrected', () => {
    const converged = applyOutcome(
      undefined,
      { kind: 'Converged' },
      { generation: 1, now: t0, observed, drift: [] },
    );
    const paused = applyOutcome(
      converged,
      { kind: 'Paused' },
      { generation: 1, now: t1, observed, drift: [] },
    );
    expect(paused.ready).toBe(true);
    const differs = applyOutcome(paused, { kind: 'Paused' }, { generation: 1, now: t2, observed, drift });
    expect(differs.ready).toBe(false);
    expect(getCondition(differs.conditions, 'Ready')).toMatchObject({
      reason: Reason.Paused,
      message: expect.stringMatching(/paused, and the cluster differs.*nodeGroups\[general\]/),
    });
    expect(getCondition(differs.conditions, 'Drifted')).toMatchObject({
      status: 'True',
      reason: Reason.DriftDetected,
    });
  });
});

describe('status: the last policy decision', () => {
  it('a run the policies allowed clears an earlier denial, though its plan is only impossible', () => {
    const violation = {
      rule: 'foreign-nodegroup-deletion',
      message: 'the plan deletes node group x',
      severity: 'error' as const,
    };
    const denied = applyOutcome(
      undefined,
      { kind: 'PolicyDenied', violations: [violation] },
      { generation: 1, now: t0 },
    );
    expect(getCondition(denied.conditions, 'PolicyCompliant')?.status).toBe('False');
    const impossible = applyOutcome(
      denied,
      { kind: 'Impossible', message: 'name taken', remediation: 'delete it' },
      { generation: 2, now: t1, policy: { allow: true, violations: [] } },
    );
    expect(getCondition(impossible.conditions, 'PolicyCompliant')).toMatchObject({
      status: 'True',
      reason: Reason.PolicyAllowed,
    });
    expect(impossible.violations).toEqual([]);
  });
});
