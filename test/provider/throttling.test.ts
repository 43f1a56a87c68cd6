/**
 * Half of all EKS calls throttled: the planner and the provider still take a cluster through create,
 * a two-minor upgrade with a resize, and deletion, with no call failing its retry budget. The
 * simulator's counts prove the documented bounds:
 *  - per operation, requests <= maxAttempts x successful calls (every logical call ended in success);
 *  - every mutating operation the loop applied reached EKS exactly once (one success per apply);
 *  - read calls per observation stay within observeCallBound.
 */

import { beforeAll, describe, expect, it } from 'vitest';
import { EKS_READ_CALLS } from '../../lambdas/config.js';
import { observeCallBound } from '../../lambdas/provider/eks-provider.js';
import { EKS_RETRY_BUDGET } from '../../lambdas/provider/retry.js';
import type { CallCounts } from '../../local/eks-sim/admin.js';
import { DEFAULT_DURATIONS } from '../../local/eks-sim/model.js';
import { useSimulator } from '../eks-sim/support.js';
import { converge, DEFAULTS, desiredOf } from './support/reconcile.js';
import { providerFor, REGION } from './support/servers.js';

const SPEC = {
  provider: 'aws',
  region: REGION,
  clusterName: 'throttled',
  kubernetesVersion: '1.30',
  nodeCount: 2,
  instanceType: 'm5.large',
  tags: { team: 'a' },
  deletionPolicy: 'Delete',
} as const;
/** Longer than any simulated transition: each wait lets EKS finish what it was doing. */
const WAIT_MS = DEFAULT_DURATIONS.clusterVersionUpdate;
/** Every read an observation can make. */
const READS: readonly string[] = EKS_READ_CALLS;

describe('50% throttling', () => {
  // Speed 1 and an explicit clock: transitions complete only when the loop waits, so the sequence of
  // requests (and of injected faults) is the same on every run.
  const h = useSimulator({ seed: 11, speed: 1 }, { reset: false });
  beforeAll(async () => {
    await h.admin.setFaults({
      '*': { throttleFraction: 0.5 },
      DescribeCluster: { throttleFraction: 0.5, throttleCode: 'TooManyRequestsException' },
    });
  });

  it('converges through create, upgrade and delete within the retry budget and the call bounds', async () => {
    const provider = providerFor(h.sim.url);
    const wait = { onWait: () => h.admin.advance(WAIT_MS) };
    const created = await converge(provider, desiredOf('team-a/throttled', SPEC), DEFAULTS, wait);
    expect(created.observation.cluster).toMatchObject({ status: 'ACTIVE', version: '1.30' });
    const upgraded = await converge(
      provider,
      desiredOf('team-a/throttled', { ...SPEC, kubernetesVersion: '1.32', nodeCount: 3 }, 2),
      DEFAULTS,
      wait,
    );
    expect(upgraded.observation.cluster?.version).toBe('1.32');
    expect(upgraded.observation.nodegroups.map((ng) => [ng.version, ng.scaling.desiredSize])).toEqual([
      ['1.32', 3],
    ]);
    expect(upgraded.applied.map((op) => op.kind)).toEqual([
      'UpdateClusterVersion',
      'UpdateNodegroupVersion',
      'UpdateClusterVersion',
      'UpdateNodegroupVersion',
      'UpdateNodegroupConfig',
    ]);
    const deleted = await converge(provider, desiredOf('team-a/throttled', SPEC, 3, true), DEFAULTS, wait);
    expect(deleted.observation.cluster).toBeNull();
    provider.clients.destroy();

    const calls: CallCounts = await h.admin.calls();
    const total = (k: keyof CallCounts[string]) => Object.values(calls).reduce((n, c) => n + c[k], 0);
    // The faults really fired, and every throttled request was retried to a success.
    expect(total('throttled')).toBeGreaterThan(total('succeeded') / 3);
    expect(total('serverErrors')).toBe(0);
    for (const [op, c] of Object.entries(calls)) {
      expect(c.requests, op).toBeLessThanOrEqual(EKS_RETRY_BUDGET.maxAttempts * (c.succeeded + c.rejected));
    }
    // One EKS call per applied operation, however many throttled attempts it took.
    const applied = [...created.applied, ...upgraded.applied, ...deleted.applied];
    // Every operation kind is named after its EKS call.
    const kinds = [...new Set(applied.map((op) => op.kind))];
    expect(kinds.length).toBeGreaterThanOrEqual(6);
    for (const kind of kinds) {
      expect(calls[kind]?.succeeded, kind).toBe(applied.filter((a) => a.kind === kind).length);
    }
    // Reads: one DescribeCluster per observation, the rest within the per-observation bound.
    const observations = created.observations + upgraded.observations + deleted.observations;
    // (a cluster already deleted answers DescribeCluster with a 404, counted as rejected)
    expect((calls.DescribeCluster?.succeeded ?? 0) + (calls.DescribeCluster?.rejected ?? 0)).toBe(
      observations,
    );
    const reads = READS.reduce((n, op) => n + (calls[op]?.succeeded ?? 0) + (calls[op]?.rejected ?? 0), 0);
    // No add-ons or access in the spec; insights are read while the upgrade is pending.
    expect(reads).toBeLessThanOrEqual(observations * observeCallBound(1, 1, { insights: true }));
    console.info(
      `throttling: ${observations} observations, ${applied.length} operations, ${total('requests')} requests, ` +
        `${total('throttled')} throttled, ${total('succeeded')} succeeded, ${reads} logical reads`,
    );
  });
});
