/**
 * The field table drives drift and the planner's immutable-field check: a spec field without a rule,
 * or a rule that reports nothing when its field differs, fails here.
 */
import { describe, expect, it } from 'vitest';
import {
  detectDrift,
  FIELD_TABLE,
  type FieldRule,
  fieldContext,
  ruleOfDrift,
  unconvergeableDifferences,
} from '../../lambdas/core/plan/fields.js';
import { firstAction, plan } from '../../lambdas/core/plan/plan.js';
import { applyKeyOf, tokenTarget } from '../../lambdas/core/plan/tokens.js';
import type { Desired, MutatingOperation } from '../../lambdas/core/plan/types.js';
import {
  cluster,
  converged,
  DEFAULTS,
  desired,
  nodegroupFor,
  observation,
  spec,
} from './support/fixtures.js';

const RULES = Object.entries(FIELD_TABLE) as [string, FieldRule][];
const s131 = spec();

/** The unconvergeable differences the table reports for a desired spec against a converged 1.31 cluster. */
function reported(d: Desired, o = converged(s131)) {
  if (!o.cluster) throw new Error('needs a cluster');
  return unconvergeableDifferences(fieldContext(d.spec, o.cluster, o.nodegroups, DEFAULTS));
}

describe('field table: one rule per spec field', () => {
  // That every schema field has a rule (and no more) is checked in planner.test.ts.
  it('every impossible field says how it is compared and how it is reported', () => {
    for (const [field, rule] of RULES) {
      if (rule.convergence !== 'impossible') continue;
      expect(rule.drift, field).toBeTypeOf('function');
      expect(rule.unconvergeable?.impossible, field).toBeTypeOf('function');
    }
  });
});

describe("field table: the planner's immutable-field check reads it", () => {
  // One change per field whose rule reports differences EKS cannot converge; the next test makes a
  // new such rule fail until it has a case here.
  const changes: Record<string, { change: Parameters<typeof desired>[0]; fields: string[] }> = {
    clusterRoleArn: {
      change: { clusterRoleArn: 'arn:aws:iam::111122223333:role/another' },
      fields: ['clusterRoleArn'],
    },
    network: {
      change: {
        network: { subnetIds: ['subnet-0000000c', 'subnet-0000000d'], securityGroupIds: ['sg-0000000a'] },
      },
      fields: ['network.subnetIds', 'network.securityGroupIds'],
    },
    // A downgrade of the control plane: an upgrade of the same field converges in place.
    kubernetesVersion: { change: { kubernetesVersion: '1.30' }, fields: ['kubernetesVersion'] },
  };

  it('has a case for every rule that reports unconvergeable differences', () => {
    const reporting = RULES.filter(([, r]) => r.unconvergeable).map(([f]) => f);
    expect(reporting.sort()).toEqual(Object.keys(changes).sort());
  });

  it.each(Object.entries(changes))(
    '%s: a difference yields the rule’s Impossible',
    (field, { change, fields }) => {
      const d = desired(change);
      const found = reported(d);
      expect(found.map((i) => i.field)).toEqual(fields);
      // Each report is the rule's own verdict on its own drift item, and the plan carries it.
      const rule = FIELD_TABLE[field as keyof typeof FIELD_TABLE] as FieldRule;
      const o = converged(s131);
      const ctx = fieldContext(d.spec, o.cluster!, o.nodegroups, DEFAULTS);
      const items = rule.drift?.(ctx) ?? [];
      expect(items.flatMap((item) => rule.unconvergeable?.impossible(item, ctx) ?? [])).toEqual(found);
      for (const i of found) expect(plan(d, o, DEFAULTS)).toContainEqual(i);
    },
  );

  it('reports nothing when the cluster matches the spec', () => {
    expect(reported(desired())).toEqual([]);
  });

  it('an upgrade is drift, not impossible', () => {
    const d = desired({ kubernetesVersion: '1.32' });
    expect(detectDrift(d.spec, converged(s131), DEFAULTS).map((x) => x.field)).toContain('kubernetesVersion');
    expect(reported(d)).toEqual([]);
  });

  it('reports in rank order (status shows the first remediation): role, subnets, security groups, version', () => {
    const d = desired({
      kubernetesVersion: '1.30',
      clusterRoleArn: 'arn:aws:iam::111122223333:role/another',
      network: { subnetIds: ['subnet-0000000c', 'subnet-0000000d'], securityGroupIds: ['sg-0000000a'] },
    });
    expect(reported(d).map((i) => i.field)).toEqual([
      'clusterRoleArn',
      'network.subnetIds',
      'network.securityGroupIds',
      'kubernetesVersion',
    ]);
  });

  it('reports even while EKS is busy, before the wait', () => {
    const d = desired({ clusterRoleArn: 'arn:aws:iam::111122223333:role/another' });
    const o = observation(cluster({ status: 'UPDATING', health: 'Progressing' as never }), [
      nodegroupFor(s131),
    ]);
    const ops = plan(d, o, DEFAULTS);
    expect(ops.map((op) => op.kind)).toEqual(['Impossible', 'Wait']);
  });
});

describe('field table: node groups are compared as the planner resolves them', () => {
  const o = converged(s131);
  const ng = o.nodegroups[0]!.name;
  const kinds = (d: Desired, defaults: typeof DEFAULTS) => plan(d, o, defaults).map((op) => op.kind);
  const how = (field: string) => {
    const rule = ruleOfDrift(field)?.rule;
    return rule && { convergence: rule.convergence, via: rule.via };
  };
  const replace = { convergence: 'replace-nodegroup', via: ['CreateNodegroup', 'DeleteNodegroup'] };

  it('a changed default node role is drift, as the planner replaces the group for it', () => {
    const defaults = { ...DEFAULTS, nodeRoleArn: 'arn:aws:iam::111122223333:role/eks-node-2' };
    const drift = detectDrift(s131, o, defaults).map((x) => x.field);
    expect(drift).toEqual(['nodeGroups[default]', `nodeGroups[default].nodeRoleArn (node group ${ng})`]);
    expect(how(drift[1]!)).toEqual(replace);
    expect(kinds(desired(), defaults)).toEqual(['CreateNodegroup', 'DeleteNodegroup']);
  });

  it('changed default subnets are drift of the node group, which converges by replacement', () => {
    const defaults = { ...DEFAULTS, subnetIds: ['subnet-0000000c', 'subnet-0000000d'] };
    const drift = detectDrift(s131, o, defaults).map((x) => x.field);
    expect(drift).toEqual(['nodeGroups[default]', `nodeGroups[default].subnetIds (node group ${ng})`]);
    expect(how(drift[1]!)).toEqual(replace);
    expect(kinds(desired(), defaults)).toEqual(['CreateNodegroup', 'DeleteNodegroup']);
  });

  it("changed spec subnets: the cluster's cannot move, the node group's are replaced", () => {
    const d = desired({ network: { subnetIds: ['subnet-0000000c', 'subnet-0000000d'] } });
    const drift = detectDrift(d.spec, o, DEFAULTS).map((x) => x.field);
    expect(drift).toEqual([
      'nodeGroups[default]',
      'network.subnetIds',
      `nodeGroups[default].subnetIds (node group ${ng})`,
    ]);
    expect(how('network.subnetIds')).toEqual({ convergence: 'impossible', via: [] });
    expect(how(drift[2]!)).toEqual(replace);
    expect(kinds(d, DEFAULTS)).toEqual(['Impossible', 'CreateNodegroup', 'DeleteNodegroup']);
  });

  it('an old group left beside the desired one is drift until it is deleted', () => {
    const old = nodegroupFor(spec({ instanceType: 'c6i.large' }));
    const both = observation(o.cluster, [...o.nodegroups, old]);
    expect(detectDrift(s131, both, DEFAULTS)).toEqual([
      { field: 'nodeGroups[default]', desired: ng, observed: `${ng}, ${old.name}` },
    ]);
    expect(plan(desired(), both, DEFAULTS).map((op) => op.kind)).toEqual(['DeleteNodegroup']);
  });
});

describe('field table: ruleOfDrift', () => {
  it.each([
    ['nodeGroups[workers].nodeCount', 'nodeGroups[].nodeCount'],
    ['network.subnetIds', 'network'],
    ['nodeGroups[workers].kubernetesVersion', 'kubernetesVersion'],
    ['nodeGroups[workers].tags', 'tags'],
    ['nodeGroups[workers].subnetIds (node group g)', 'nodeGroups[].subnetIds'],
    ['nodeGroups[workers]', 'nodeGroups'],
    ['nodeGroups (node group g)', 'nodeGroups'],
  ])('%s belongs to %s', (item, field) => {
    expect(ruleOfDrift(item)?.field).toBe(field);
  });

  it('a missing cluster is a resource, not a field', () => {
    expect(ruleOfDrift('cluster')).toBeUndefined();
    expect(ruleOfDrift('nodeGroups[workers].bogus')).toBeUndefined();
    expect(ruleOfDrift('constructor')).toBeUndefined();
  });
});

describe('tokens: the planner reads applies where WriteStatus counts them', () => {
  const tokenBearing = (d: Desired, o: ReturnType<typeof observation>) => {
    const op = firstAction(plan(d, o, DEFAULTS));
    if (!op || !('clientRequestToken' in op)) throw new Error(`no token-bearing step: ${op?.kind}`);
    return op;
  };
  const s130 = spec({ kubernetesVersion: '1.30' });
  const cases: [string, Desired, ReturnType<typeof observation>][] = [
    ['CreateCluster', desired(), observation(null)],
    ['CreateNodegroup', desired(), observation(cluster())],
    ['UpdateClusterVersion', desired(), converged(s130)],
    ['UpdateNodegroupVersion', desired(), observation(cluster(), [nodegroupFor(s131, { version: '1.30' })])],
    ['UpdateNodegroupConfig', desired({ nodeCount: 5 }), converged(s131)],
  ];

  it.each(cases)('%s: one more counted apply gives a new token', (kind, d, o) => {
    const op: MutatingOperation = tokenBearing(d, o);
    expect(op.kind).toBe(kind);
    expect(applyKeyOf(op)).toBe(`${op.kind}:${tokenTarget(op)}`);
    const again = tokenBearing({ ...d, applied: { [applyKeyOf(op)]: 1 } }, o);
    expect(again).toEqual({ ...op, clientRequestToken: expect.any(String) });
    expect('clientRequestToken' in again && again.clientRequestToken).not.toBe(op.clientRequestToken);
  });

  it('the target is the node group when there is one, else the cluster', () => {
    expect(tokenTarget({ clusterName: 'c' })).toBe('c');
    expect(tokenTarget({ clusterName: 'c', nodegroupName: 'g' })).toBe('g');
  });
});
