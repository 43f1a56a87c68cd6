/** The sweep's observation tiers: which look a record gets, the names a check reads, what it judges. */
import { describe, expect, it } from 'vitest';
import { InternalError } from '../../lambdas/core/errors.js';
import {
  checkView,
  driftShownWithin,
  knownNodegroups,
  periodsPerFull,
  stableHash,
  tierOf,
} from '../../lambdas/core/observe-tier.js';
import { plan } from '../../lambdas/core/plan/plan.js';
import type { ClusterStatus, ObservedPool } from '../../lambdas/core/status.js';
import { converged, DEFAULTS, desired, spec } from './support/fixtures.js';

const PERIOD = 300;
const FULL = 3600;
const T0 = Date.parse('2026-12-01T00:00:00Z');
const at = (period: number) => new Date(T0 + period * PERIOD * 1000);

const pool = (name: string, nodegroup?: string, over: Partial<ObservedPool> = {}): ObservedPool => ({
  name,
  ...(nodegroup ? { nodegroup } : {}),
  status: nodegroup ? 'ACTIVE' : 'Missing',
  ...over,
});

function status(over: Partial<ClusterStatus> = {}, drifted?: string): ClusterStatus {
  const cond = (type: string, s: 'True' | 'False', message = '') => ({
    type: type as 'Ready',
    status: s,
    reason: 'Reconciled' as const,
    message,
    observedGeneration: 2,
    lastTransitionTime: new Date(T0).toISOString(),
  });
  return {
    conditions: [cond('Ready', 'True'), ...(drifted ? [cond('Drifted', 'True', drifted)] : [])],
    observedGeneration: 2,
    ready: true,
    synced: true,
    observed: { health: 'Healthy', pools: [pool('default', 'ng-a')] },
    updatedAt: new Date(T0).toISOString(),
    ...over,
  };
}

const record = (id: string, s?: ClusterStatus) => ({ id, generation: 2, ...(s ? { status: s } : {}) });
const ready = (id: string) => record(id, status());

describe('tierOf', () => {
  it('is full whenever the status cannot guide a check', () => {
    const now = at(1);
    const tier = (s: ClusterStatus | undefined, generation = 2) =>
      tierOf({ ...record('team/x', s), generation }, now, PERIOD, FULL);
    const base = status();
    expect(tier(undefined)).toBe('full');
    expect(tier(status({ observed: { health: 'Healthy' } }))).toBe('full'); // from before pools
    expect(tier(status({ observed: { health: 'Healthy', pools: [] } }))).toBe('full');
    expect(tier(status({ observed: { health: 'Healthy', pools: [pool('a', 'ng-a'), pool('b')] } }))).toBe(
      'full',
    );
    expect(tier({ ...base, ready: false })).toBe('full');
    expect(tier(base, 3)).toBe('full'); // the spec changed since
  });

  it('over any k = fullPeriod / period consecutive periods, every record gets exactly one full look', () => {
    const k = periodsPerFull(PERIOD, FULL);
    expect(k).toBe(12);
    const ids = Array.from({ length: 500 }, (_, i) => `team-${i % 7}/cluster-${i}`);
    const perPeriod = Array.from({ length: k }, () => 0);
    for (const start of [0, 5, 1_000_003]) {
      for (const id of ids) {
        const fulls = Array.from({ length: k }, (_, p) => tierOf(ready(id), at(start + p), PERIOD, FULL));
        expect(fulls.filter((t) => t === 'full')).toHaveLength(1);
        if (start === 0) perPeriod[fulls.indexOf('full')]! += 1;
      }
    }
    // Spread: each period takes its share of the full looks (500 / 12 ~ 42), none takes them all.
    for (const n of perPeriod) expect(n).toBeGreaterThan(20);
    // Stable: the same record, period and settings give the same answer in any process.
    expect(stableHash('team/x')).toBe(stableHash('team/x'));
    expect(stableHash('team/x')).not.toBe(stableHash('team/y'));
  });

  it('a full period at or below the sweep period (or no valid period) makes every look full', () => {
    for (const [p, f] of [
      [300, 300],
      [300, 100],
      [0, 3600],
      [300, Number.NaN],
    ] as const) {
      expect(periodsPerFull(p, f)).toBe(1);
      expect(tierOf(ready('team/x'), at(7), p, f)).toBe('full');
    }
    expect(periodsPerFull(300, 3500)).toBe(12); // rounded
  });
});

describe('knownNodegroups', () => {
  it("names every pool's group, the groups being replaced, orphans and foreign groups, once each", () => {
    const s = status({
      observed: {
        health: 'Healthy',
        pools: [pool('a', 'ng-a', { otherNodegroups: ['ng-a-old'] }), pool('b', 'ng-b')],
        orphan: ['ng-gone-pool'],
        foreign: ['by-hand', 'ng-b'],
      },
    });
    expect(knownNodegroups(s)).toEqual(['ng-a', 'ng-a-old', 'ng-b', 'ng-gone-pool', 'by-hand']);
    expect(knownNodegroups(undefined)).toBeUndefined();
  });
});

describe('what a check judges', () => {
  it('drops add-ons and access, and turns the readiness gate off', () => {
    const full = spec({
      addons: [{ name: 'kube-proxy' }],
      access: { entries: [] },
      upgrade: { readiness: 'block' },
    });
    const v = checkView(full);
    expect(v).not.toHaveProperty('addons');
    expect(v).not.toHaveProperty('access');
    expect(v.upgrade).toEqual({ readiness: 'ignore' });
    expect(v.nodeGroups).toEqual(full.nodeGroups);
    // A version step the check finds is work (a run applies the gate with insights read).
    const { insights: _unread, ...o } = converged(v);
    const stepped = plan({ ...desired(), spec: { ...v, kubernetesVersion: '1.32' } }, o, DEFAULTS);
    expect(stepped.find((op) => op.kind !== 'Impossible')?.kind).toBe('UpdateClusterVersion');
  });

  it('each difference a check finds must be among the ones status shows, which may include what it did not read', () => {
    const ng = {
      field: 'nodeGroups (node group by-hand)',
      desired: 'absent',
      observed: 'created outside CloudOrch',
    };
    const access = { field: 'access.entries', desired: '[]', observed: 'role/x' };
    const text = (ds: (typeof ng)[]) =>
      ds.map((d) => `${d.field}: want ${d.desired}, found ${d.observed}`).join('; ');
    const both = status({}, text([ng, access]));
    expect(driftShownWithin(both, [ng])).toBe(true);
    expect(driftShownWithin(both, [])).toBe(true);
    const scaled = { field: 'nodeGroups[default].nodeCount', desired: '3', observed: '5' };
    expect(driftShownWithin(both, [ng, scaled])).toBe(false);
    expect(driftShownWithin(status(), [ng])).toBe(false);
  });

  it('a deletion is never planned from node groups read by name: "none left" is what it cannot tell', () => {
    const deleting = desired({ deletionPolicy: 'Delete' }, { deletionRequested: true });
    const listed = { ...converged(deleting.spec), nodegroups: [] };
    expect(plan(deleting, listed, DEFAULTS).map((op) => op.kind)).toEqual(['DeleteCluster']);
    const named = { ...listed, nodegroupsListed: false as const };
    expect(() => plan(deleting, named, DEFAULTS)).toThrow(InternalError);
  });
});
