import { describe, expect, it } from 'vitest';
import { Health } from '../../lambdas/core/health.js';
import { OWNER_TAG, ownershipTags, RELEASED_TAG } from '../../lambdas/core/ownership.js';
import { detectDrift, FIELD_TABLE } from '../../lambdas/core/plan/fields.js';
import { desiredNodegroup } from '../../lambdas/core/plan/nodegroup.js';
import { describeOperation, firstAction, plan } from '../../lambdas/core/plan/plan.js';
import { POOL_FIELD_TABLE } from '../../lambdas/core/plan/pool-fields.js';
import { isMutating, type Operation } from '../../lambdas/core/plan/types.js';
import { FLAT_POOL_FIELDS, poolSchema } from '../../lambdas/core/spec/pools.js';
import { specSchema } from '../../lambdas/core/spec/schema.js';
import {
  cluster,
  converged,
  DEFAULTS,
  desired,
  ID,
  nodegroupFor,
  observation,
  spec,
} from './support/fixtures.js';

const kinds = (ops: Operation[]) => ops.map((o) => o.kind);
const s131 = spec();

interface Case {
  why: string;
  d: ReturnType<typeof desired>;
  o: ReturnType<typeof observation>;
  expect: (ops: Operation[]) => void;
}

const CASES: Case[] = [
  {
    why: 'nothing exists: create the cluster with ownership tags and a token, then its node group',
    d: desired(),
    o: observation(null),
    expect: (ops) => {
      expect(kinds(ops)).toEqual(['CreateCluster', 'CreateNodegroup']);
      const create = ops[0]!;
      if (create.kind !== 'CreateCluster') throw new Error('unreachable');
      expect(create.tags).toMatchObject({ team: 'a', [OWNER_TAG]: ID });
      expect(create.clientRequestToken).toMatch(/^co-[0-9a-f]{40}$/);
      expect(create.roleArn).toBe(DEFAULTS.clusterRoleArn);
    },
  },
  {
    why: 'a converged cluster needs nothing (idempotency)',
    d: desired(),
    o: converged(s131),
    expect: (ops) => expect(ops).toEqual([]),
  },
  {
    why: 'a scale-up is one scaling call with all three numbers',
    d: desired({ nodeCount: 5 }),
    o: converged(s131),
    expect: (ops) => {
      expect(kinds(ops)).toEqual(['UpdateNodegroupConfig']);
      expect(ops[0]).toMatchObject({ scaling: { minSize: 5, maxSize: 5, desiredSize: 5 } });
    },
  },
  {
    why: 'under external scaling the autoscaler owns desiredSize: only min/max are sent',
    d: desired({ scaling: 'external', minSize: 1, maxSize: 10, nodeCount: 3 }),
    o: converged(s131),
    expect: (ops) => {
      expect(kinds(ops)).toEqual(['UpdateNodegroupConfig']);
      expect(ops[0]).toMatchObject({ scaling: { minSize: 1, maxSize: 10 } });
      expect(ops[0]).not.toHaveProperty('scaling.desiredSize');
    },
  },
  {
    why: 'under external scaling a desired size the autoscaler chose is never fought over',
    d: desired({ scaling: 'external', minSize: 1, maxSize: 10, nodeCount: 3 }),
    o: observation(cluster(), [nodegroupFor(s131, { scaling: { minSize: 1, maxSize: 10, desiredSize: 8 } })]),
    expect: (ops) => expect(ops).toEqual([]),
  },
  {
    why: 'an instance type change replaces the node group: create new, then delete old (no capacity gap)',
    d: desired({ instanceType: 'm6i.large' }),
    o: converged(s131),
    expect: (ops) => {
      expect(kinds(ops)).toEqual(['CreateNodegroup', 'DeleteNodegroup']);
      const [create, del] = ops as [Operation, Operation];
      if (create.kind !== 'CreateNodegroup' || del.kind !== 'DeleteNodegroup') throw new Error('unreachable');
      expect(create.nodegroupName).not.toBe(del.nodegroupName);
      expect(del.nodegroupName).toBe(desiredNodegroup(s131.nodeGroups[0]!, s131, DEFAULTS).name);
    },
  },
  {
    why: 'turning on spot also replaces the node group (capacityType is immutable)',
    d: desired({ spotEnabled: true }),
    o: converged(s131),
    expect: (ops) => {
      expect(kinds(ops)).toEqual(['CreateNodegroup', 'DeleteNodegroup']);
      expect(ops[0]).toMatchObject({ capacityType: 'SPOT' });
    },
  },
  {
    why: '1.29 -> 1.31 goes CP 1.30, NG 1.30, CP 1.31, NG 1.31',
    d: desired({ kubernetesVersion: '1.31' }),
    o: observation(cluster({ version: '1.29' }), [nodegroupFor(s131, { version: '1.29' })]),
    expect: (ops) => {
      expect(ops.map(describeOperation)).toEqual([
        'upgrade control plane 1.29 -> 1.30',
        `upgrade node group ${desiredNodegroup(s131.nodeGroups[0]!, s131, DEFAULTS).name} (pool default) 1.29 -> 1.30`,
        'upgrade control plane 1.30 -> 1.31',
        `upgrade node group ${desiredNodegroup(s131.nodeGroups[0]!, s131, DEFAULTS).name} (pool default) 1.30 -> 1.31`,
      ]);
    },
  },
  {
    why: 'a node group behind the control plane catches up before the next control plane step',
    d: desired({ kubernetesVersion: '1.31' }),
    o: observation(cluster({ version: '1.30' }), [nodegroupFor(s131, { version: '1.29' })]),
    expect: (ops) =>
      expect(ops[0]).toMatchObject({
        kind: 'UpdateNodegroupVersion',
        fromVersion: '1.29',
        toVersion: '1.30',
      }),
  },
  {
    why: 'a downgrade is impossible and says so; nothing is called for it',
    d: desired({ kubernetesVersion: '1.30' }),
    o: converged(s131),
    expect: (ops) => {
      // Both the control plane and its node group would need a downgrade; each is reported.
      expect(kinds(ops)).toEqual(['Impossible', 'Impossible']);
      expect(ops[0]).toMatchObject({
        field: 'kubernetesVersion',
        reason: expect.stringMatching(/cannot downgrade the control plane/),
      });
      expect(ops[1]).toMatchObject({
        field: 'kubernetesVersion',
        reason: expect.stringMatching(/cannot downgrade node group/),
      });
    },
  },
  {
    why: 'tags added and removed: set the new value, then remove the stale key; ownership tags stay',
    d: desired({ tags: { team: 'b', env: 'dev' } }),
    o: observation(
      cluster({
        tags: { team: 'a', stale: 'x', 'aws:cloudformation:stack-name': 's', ...ownershipTags(ID) },
      }),
      [nodegroupFor(spec({ tags: { team: 'b', env: 'dev' } }))],
    ),
    expect: (ops) => {
      expect(kinds(ops)).toEqual(['TagResource', 'UntagResource']);
      expect(ops[0]).toMatchObject({ tags: { team: 'b', env: 'dev' } });
      expect(ops[1]).toMatchObject({ tagKeys: ['stale'] });
    },
  },
  {
    why: 'while an update is in flight the plan is wait, not another call',
    d: desired({ nodeCount: 9 }),
    o: observation(
      cluster({
        update: {
          id: 'u-1',
          type: 'VersionUpdate',
          status: 'InProgress',
          health: Health.Progressing,
          errorCodes: [],
        },
      }),
      [nodegroupFor(s131)],
    ),
    expect: (ops) =>
      expect(ops).toEqual([
        { kind: 'Wait', resource: 'demo', reason: 'update u-1 (VersionUpdate) in progress' },
      ]),
  },
  {
    why: 'a cluster still CREATING means wait',
    d: desired(),
    o: observation(cluster({ status: 'CREATING', health: Health.Progressing }), []),
    expect: (ops) => expect(kinds(ops)).toEqual(['Wait']),
  },
  {
    why: 'paused gives no mutating operations',
    d: desired({ paused: true, nodeCount: 7 }),
    o: converged(s131),
    expect: (ops) => expect(ops.filter(isMutating)).toEqual([]),
  },
  {
    why: 'an existing cluster CloudOrch does not own is never touched without adopt',
    d: desired({ nodeCount: 7 }),
    o: observation(cluster({ tags: { team: 'a' } }), [nodegroupFor(s131)]),
    expect: (ops) => {
      expect(kinds(ops)).toEqual(['Impossible']);
      expect(ops[0]).toMatchObject({ field: 'adopt' });
    },
  },
  {
    why: 'with adopt: true the first step claims ownership, then converges',
    d: desired({ adopt: true, nodeCount: 7 }),
    o: observation(cluster({ tags: { team: 'a' } }), [nodegroupFor(s131)]),
    expect: (ops) => {
      expect(ops[0]).toMatchObject({ kind: 'TagResource', tags: ownershipTags(ID) });
      expect(kinds(ops)).toContain('UpdateNodegroupConfig');
    },
  },
  {
    why: 'a cluster owned by another record is not taken even with adopt',
    d: desired({ adopt: true }),
    o: observation(cluster({ tags: ownershipTags('other/record') }), []),
    expect: (ops) => expect(kinds(ops)).toEqual(['Impossible']),
  },
  {
    why: 'deletion removes node groups first, then the cluster',
    d: desired({ deletionPolicy: 'Delete' }, { deletionRequested: true }),
    o: converged(s131),
    expect: (ops) => expect(kinds(ops)).toEqual(['DeleteNodegroup', 'DeleteCluster']),
  },
  {
    why: 'deletion with Retain only marks the cluster released (IAM forbids removing the owner tag)',
    d: desired({ deletionPolicy: 'Retain' }, { deletionRequested: true }),
    o: converged(s131),
    expect: (ops) =>
      expect(ops).toEqual([expect.objectContaining({ kind: 'TagResource', tags: { [RELEASED_TAG]: ID } })]),
  },
  {
    why: 'deletion with Retain of a cluster already marked released needs nothing more',
    d: desired({ deletionPolicy: 'Retain' }, { deletionRequested: true }),
    o: observation(cluster({ tags: { ...ownershipTags(ID), [RELEASED_TAG]: ID } }), []),
    expect: (ops) => expect(ops).toEqual([]),
  },
  {
    why: 'deletion of an unowned cluster is refused',
    d: desired({ deletionPolicy: 'Delete' }, { deletionRequested: true }),
    o: observation(cluster({ tags: {} }), []),
    expect: (ops) => expect(kinds(ops)).toEqual(['Impossible']),
  },
  {
    why: 'deletion never touches an unowned cluster, even with adopt: true (the claim never happened)',
    d: desired({ deletionPolicy: 'Delete', adopt: true }, { deletionRequested: true }),
    o: observation(cluster({ tags: {} }), []),
    expect: (ops) =>
      expect(ops).toEqual([expect.objectContaining({ kind: 'Impossible', ownership: 'NotOwned' })]),
  },
  {
    why: 'deletion of our cluster without its managed-by tag waits for the tag instead of orphaning it',
    d: desired({ deletionPolicy: 'Delete' }, { deletionRequested: true }),
    o: observation(cluster({ tags: { [OWNER_TAG]: ID } }), []),
    expect: (ops) =>
      expect(ops).toEqual([expect.objectContaining({ kind: 'Impossible', field: 'deletion' })]),
  },
  {
    why: 'a released cluster is not taken without adopt',
    d: desired(),
    o: observation(cluster({ tags: { ...ownershipTags('old/record'), [RELEASED_TAG]: 'old/record' } }), []),
    expect: (ops) =>
      expect(ops).toEqual([expect.objectContaining({ kind: 'Impossible', ownership: 'NotOwned' })]),
  },
  {
    why: 'a released cluster is claimed with adopt: the ownership tags first',
    d: desired({ adopt: true }),
    o: observation(cluster({ tags: { ...ownershipTags('old/record'), [RELEASED_TAG]: 'old/record' } }), []),
    expect: (ops) => expect(ops[0]).toMatchObject({ kind: 'TagResource', tags: ownershipTags(ID) }),
  },
  {
    why: 'a cluster that was ours and lost its owner tag is OwnershipLost, not silently re-claimed',
    d: desired({}, { ownedArn: cluster().arn }),
    o: observation(cluster({ tags: { team: 'platform' } }), []),
    expect: (ops) =>
      expect(ops).toEqual([expect.objectContaining({ kind: 'Impossible', ownership: 'OwnershipLost' })]),
  },
  {
    why: 'a target another record holds is never created by this one',
    d: desired({}, { claimedBy: 'other/record' }),
    o: observation(null),
    expect: (ops) =>
      expect(ops).toEqual([expect.objectContaining({ kind: 'Impossible', ownership: 'TargetClaimed' })]),
  },
  {
    why: 'a target another record holds is never touched, not even created',
    d: desired({}, { claimedBy: 'other/record' }),
    o: converged(s131),
    expect: (ops) =>
      expect(ops).toEqual([expect.objectContaining({ kind: 'Impossible', ownership: 'TargetClaimed' })]),
  },
  {
    why: 'deletion waits for a node group that is still deleting',
    d: desired({ deletionPolicy: 'Delete' }, { deletionRequested: true }),
    o: observation(cluster(), [nodegroupFor(s131, { status: 'DELETING', health: Health.Deleting })]),
    expect: (ops) => expect(kinds(ops)).toEqual(['Wait']),
  },
  {
    why: 'deletion of a cluster already gone needs nothing',
    d: desired({ deletionPolicy: 'Delete' }, { deletionRequested: true }),
    o: observation(null),
    expect: (ops) => expect(ops).toEqual([]),
  },
  {
    why: 'a create without a role or subnets is impossible and names what is missing',
    d: desired(),
    o: observation(null),
    expect: () => {
      const ops = plan(desired(), observation(null), {});
      expect(ops.map((o) => (o.kind === 'Impossible' ? o.field : o.kind))).toEqual([
        'clusterRoleArn',
        'network.subnetIds',
      ]);
    },
  },
  {
    why: 'a failed node group is reported with a remediation, not recreated in a loop',
    d: desired(),
    o: observation(cluster(), [nodegroupFor(s131, { status: 'CREATE_FAILED', health: Health.Failed })]),
    expect: (ops) => {
      expect(kinds(ops)).toEqual(['Impossible']);
      expect(ops[0]).toMatchObject({ remediation: expect.stringMatching(/health issues/) });
    },
  },
];

describe('planner: table-driven cases', () => {
  it.each(CASES.map((c) => [c.why, c] as const))('%s', (_why, c) => {
    c.expect(plan(c.d, c.o, DEFAULTS));
  });

  it('a create after a successful create of the same target (it vanished) gets a new token', () => {
    const again = firstAction(
      plan(desired({}, { applied: { 'CreateCluster:demo': 1 } }), observation(null), DEFAULTS),
    );
    const first = firstAction(plan(desired(), observation(null), DEFAULTS));
    expect(
      again &&
        'clientRequestToken' in again &&
        first &&
        'clientRequestToken' in first &&
        again.clientRequestToken !== first.clientRequestToken,
    ).toBe(true);
  });

  it('tokens are deterministic per generation and operation', () => {
    const a = firstAction(plan(desired(), observation(null), DEFAULTS));
    const b = firstAction(plan(desired(), observation(null), DEFAULTS));
    const c = firstAction(plan(desired({}, { generation: 2 }), observation(null), DEFAULTS));
    expect(a).toEqual(b);
    expect(
      a &&
        'clientRequestToken' in a &&
        c &&
        'clientRequestToken' in c &&
        a.clientRequestToken !== c.clientRequestToken,
    ).toBe(true);
  });
});

describe('planner: field table completeness', () => {
  it('lists every spec field exactly once (the flat node fields are the pool default)', () => {
    const fields = Object.keys(specSchema.fields).filter(
      (f) => !(FLAT_POOL_FIELDS as readonly string[]).includes(f),
    );
    expect(Object.keys(FIELD_TABLE).sort()).toEqual(fields.sort());
    expect(Object.keys(POOL_FIELD_TABLE).sort()).toEqual(Object.keys(poolSchema.fields).sort());
  });

  it('every in-place or replace field names the operations that converge it', () => {
    const rules = [...Object.entries(FIELD_TABLE), ...Object.entries(POOL_FIELD_TABLE)];
    for (const [field, rule] of rules) {
      const c: string = rule.convergence;
      if (c === 'in-place' || c === 'replace-nodegroup') {
        expect(rule.via.length, field).toBeGreaterThan(0);
        expect('drift' in rule, field).toBe(true);
      }
    }
  });

  // For each convergeable field, a change of that field alone must produce drift and a plan that
  // uses one of the field's operations: the diff cannot silently ignore a field.
  const pool = (over: Record<string, unknown>) => ({
    nodeGroups: [{ name: 'default', instanceTypes: ['t3.large'], nodeCount: 3, ...over }],
  });
  const changes: Record<string, Parameters<typeof desired>[0]> = {
    kubernetesVersion: { kubernetesVersion: '1.32' },
    tags: { tags: { team: 'a', extra: 'y' } },
    nodeGroups: {
      nodeGroups: [...pool({}).nodeGroups, { name: 'b', instanceTypes: ['m5.large'], nodeCount: 1 }],
    },
    addons: { addons: [{ name: 'vpc-cni' }] },
    access: {
      access: {
        entries: [
          {
            principalArn: 'arn:aws:iam::111122223333:role/admin',
            policies: [{ name: 'AmazonEKSViewPolicy' }],
          },
        ],
      },
    },
  };
  const poolChanges: Record<string, Record<string, unknown>> = {
    instanceTypes: { instanceTypes: ['c6i.large'] },
    capacityType: { capacityType: 'SPOT' },
    nodeCount: { nodeCount: 4 },
    minSize: { minSize: 1 },
    maxSize: { maxSize: 9 },
    labels: { labels: { role: 'x' } },
    taints: { taints: [{ key: 'dedicated', value: 'x', effect: 'NO_SCHEDULE' }] },
    amiType: { amiType: 'BOTTLEROCKET_x86_64' },
    diskSize: { diskSize: 50 },
    nodeRoleArn: { nodeRoleArn: 'arn:aws:iam::111122223333:role/other-node' },
    subnetIds: { subnetIds: ['subnet-0000000c', 'subnet-0000000d'] },
    updateConfig: { updateConfig: { maxUnavailablePercentage: 20 } },
  };
  const cases = [
    ...Object.entries(changes).map(
      ([f, c]) => [f, c, FIELD_TABLE[f as keyof typeof FIELD_TABLE].via] as const,
    ),
    ...Object.entries(poolChanges).map(
      ([f, c]) =>
        [`nodeGroups[].${f}`, pool(c), POOL_FIELD_TABLE[f as keyof typeof POOL_FIELD_TABLE].via] as const,
    ),
  ];
  it.each(cases)('changing %s alone is detected and planned', (_field, change, via) => {
    const d = desired(change);
    const o = converged(s131);
    expect(detectDrift(d.spec, o, DEFAULTS).length, 'drift').toBeGreaterThan(0);
    expect(plan(d, o, DEFAULTS).some((op) => (via as readonly string[]).includes(op.kind))).toBe(true);
  });

  it('covers every convergeable field with a change case', () => {
    const convergeable = (table: Record<string, { convergence: string }>) =>
      Object.entries(table)
        .filter(([, r]) => r.convergence === 'in-place' || r.convergence === 'replace-nodegroup')
        .map(([f]) => f)
        .sort();
    expect(convergeable(FIELD_TABLE)).toEqual(Object.keys(changes).sort());
    expect(convergeable(POOL_FIELD_TABLE)).toEqual(Object.keys(poolChanges).sort());
  });

  it('impossible fields are reported as drift and as impossible, never silently', () => {
    const d = desired({ clusterRoleArn: 'arn:aws:iam::111122223333:role/another' });
    expect(detectDrift(d.spec, converged(s131), DEFAULTS).map((x) => x.field)).toContain('clusterRoleArn');
    expect(plan(d, converged(s131), DEFAULTS)).toContainEqual(
      expect.objectContaining({ kind: 'Impossible', field: 'clusterRoleArn' }),
    );
  });
});
