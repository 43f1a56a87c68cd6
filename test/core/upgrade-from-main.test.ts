/**
 * Upgrading CloudOrch replaces nothing: records written by the code before node pools (flat fields)
 * and the EKS state that code converged them to (test/fixtures/upgrade-from-main, produced by main at
 * fa132cf) plan to no operation and show no drift. Read through the real store parser and the real
 * provider mapping of the EKS responses.
 */
import type { Cluster, Nodegroup } from '@aws-sdk/client-eks';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import type { Observation } from '../../lambdas/core/observation.js';
import { detectDrift } from '../../lambdas/core/plan/fields.js';
import { desiredNodegroup } from '../../lambdas/core/plan/nodegroup.js';
import { plan } from '../../lambdas/core/plan/plan.js';
import { validateSpec } from '../../lambdas/core/spec/validate.js';
import { toObservedCluster, toObservedNodegroup } from '../../lambdas/provider/to-observation.js';
import { toRecord } from '../../lambdas/store/record.js';
import fixtures from '../fixtures/upgrade-from-main/records.json' with { type: 'json' };

interface Fixture {
  readonly record: { readonly raw: Record<string, unknown> };
  readonly eks: {
    readonly cluster: Record<string, unknown>;
    readonly nodegroupDescriptions: readonly Record<string, unknown>[];
  };
}

const ids = Object.keys(fixtures).filter((k) => k.includes('/'));
const fixture = (id: string) => (fixtures as unknown as Record<string, Fixture>)[id]!;
const defaults = fixtures.deploymentDefaults;

/** The SDK hands dates over as Date objects; the fixture keeps them as ISO strings. */
const withDates = <T>(o: Record<string, unknown>): T =>
  Object.fromEntries(
    Object.entries(o).map(([k, v]) => [k, /At$/.test(k) && typeof v === 'string' ? new Date(v) : v]),
  ) as T;

function observed(id: string): Observation {
  const { eks } = fixture(id);
  return {
    cluster: toObservedCluster(withDates<Cluster>(eks.cluster)),
    nodegroups: eks.nodegroupDescriptions.map((ng) => toObservedNodegroup(withDates<Nodegroup>(ng))),
    observedAt: fixtures.producedAt,
  };
}

function desired(id: string) {
  // The raw DynamoDB item, unmarshalled as the store reads it.
  const record = toRecord(unmarshall(fixture(id).record.raw as never));
  const v = validateSpec(record.spec);
  if (!v.ok) throw new Error(`${id}: ${JSON.stringify(v.issues)}`);
  return { id, spec: v.spec, generation: record.generation, deletionRequested: false };
}

describe('upgrading from main before node pools', () => {
  it('has fixtures for the three flat-field shapes', () => {
    expect(ids.sort()).toEqual(['team/legacy-basic', 'team/legacy-network', 'team/legacy-spot-external']);
  });

  it.each(ids)('%s: the flat fields are the pool "default", whose node group keeps its name', (id) => {
    const d = desired(id);
    expect(d.spec.nodeGroups.map((p) => p.name)).toEqual(['default']);
    const name = desiredNodegroup(d.spec.nodeGroups[0]!, d.spec, defaults).name;
    expect(fixture(id).eks.nodegroupDescriptions.map((ng) => ng.nodegroupName)).toEqual([name]);
  });

  it.each(ids)('%s: plans no operation and shows no drift', (id) => {
    const o = observed(id);
    expect(plan(desired(id), o, defaults)).toEqual([]);
    expect(detectDrift(desired(id).spec, o, defaults)).toEqual([]);
  });
});
