/** A rollout's change merged into stored spec documents, in the form the user wrote them. */
import { describe, expect, it } from 'vitest';
import {
  applyChange,
  ChangeNotApplicableError,
  changeSatisfied,
  previewChange,
} from '../../../lambdas/core/rollout/change.js';
import type { ClusterChange } from '../../../lambdas/core/rollout/change-schema.js';

/** The seed's flat form: one pool, `default`. */
const flat = {
  provider: 'aws',
  region: 'us-east-1',
  clusterName: 'demo',
  kubernetesVersion: '1.31',
  nodeCount: 3,
  instanceType: 't3.large',
  tags: { team: 'a' },
  addons: [
    { name: 'vpc-cni' },
    { name: 'coredns', version: 'v1.11.1-eksbuild.1', resolveConflicts: 'PRESERVE' },
  ],
};

const { nodeCount: _n, instanceType: _i, ...common } = flat;
/** The pools form, with two pools. */
const pooled = {
  ...common,
  nodeGroups: [
    { name: 'web', instanceTypes: ['m5.large'], nodeCount: 2, labels: { tier: 'web' } },
    { name: 'batch', instanceTypes: ['m5.xlarge'], nodeCount: 1, minSize: 0, maxSize: 4 },
  ],
};

function notApplicable(spec: Record<string, unknown>, change: ClusterChange): ChangeNotApplicableError {
  try {
    applyChange(spec, change);
  } catch (err) {
    if (err instanceof ChangeNotApplicableError) return err;
    throw err;
  }
  throw new Error('expected ChangeNotApplicableError');
}

describe('applyChange', () => {
  it('sets the version, keeps every other field, and leaves the input alone', () => {
    const before = structuredClone(flat);
    expect(applyChange(flat, { kubernetesVersion: '1.32' })).toEqual({ ...flat, kubernetesVersion: '1.32' });
    expect(flat).toEqual(before);
  });

  it('on a flat spec, pool default updates the flat fields (the spec keeps its form)', () => {
    const out = applyChange(flat, {
      nodeGroups: [{ name: 'default', instanceTypes: ['m5.large'], nodeCount: 5, maxSize: 8 }],
    });
    expect(out).toEqual({ ...flat, instanceType: 'm5.large', nodeCount: 5, maxSize: 8 });
    expect(out.nodeGroups).toBeUndefined();
  });

  it('on a flat spec, refuses a pool other than default, naming field and pool', () => {
    const err = notApplicable(flat, { nodeGroups: [{ name: 'web', nodeCount: 2 }] });
    expect([err.field, err.item, err.kind]).toEqual(['spec.nodeGroups', 'web', 'Permanent']);
    expect(err.message).toMatch(/no pool web: its spec writes one pool, default, with the flat fields/);
  });

  it('on a flat spec, refuses several instance types: the flat form holds one', () => {
    const err = notApplicable(flat, {
      nodeGroups: [{ name: 'default', instanceTypes: ['m5.large', 'm5a.large'] }],
    });
    expect([err.field, err.item]).toEqual(['spec.instanceType', 'default']);
  });

  it('on pools, merges by name and keeps the fields the change does not set', () => {
    const out = applyChange(pooled, { nodeGroups: [{ name: 'batch', maxSize: 10, scaling: 'external' }] });
    expect(out.nodeGroups).toEqual([
      pooled.nodeGroups[0],
      {
        name: 'batch',
        instanceTypes: ['m5.xlarge'],
        nodeCount: 1,
        minSize: 0,
        maxSize: 10,
        scaling: 'external',
      },
    ]);
  });

  it('on pools, refuses a pool the cluster lacks, naming it and the pools there are', () => {
    const err = notApplicable(pooled, { nodeGroups: [{ name: 'default', nodeCount: 2 }] });
    expect([err.field, err.item]).toEqual(['spec.nodeGroups', 'default']);
    expect(err.message).toBe('the cluster has no pool default (it has web, batch)');
  });

  it('sets add-on versions by name, keeping their other fields', () => {
    const out = applyChange(flat, { addons: [{ name: 'coredns', version: 'latest' }] });
    expect(out.addons).toEqual([flat.addons[0], { ...flat.addons[1], version: 'latest' }]);
  });

  it('refuses an add-on the cluster does not list: a rollout changes versions, it does not install', () => {
    const err = notApplicable(flat, { addons: [{ name: 'kube-proxy', version: 'latest' }] });
    expect([err.field, err.item]).toEqual(['spec.addons', 'kube-proxy']);
    const none = { ...flat, addons: undefined };
    expect(notApplicable(none, { addons: [{ name: 'vpc-cni', version: 'latest' }] }).item).toBe('vpc-cni');
  });

  it('merges tags, the change winning', () => {
    expect(applyChange(flat, { tags: { team: 'b', cost: '1' } }).tags).toEqual({ team: 'b', cost: '1' });
    expect(applyChange({ ...flat, tags: undefined }, { tags: { cost: '1' } }).tags).toEqual({ cost: '1' });
  });
});

describe('previewChange', () => {
  it('returns the merged document when the cluster spec accepts it', () => {
    expect(previewChange('prod/a', flat, { kubernetesVersion: '1.32' })).toEqual({
      ok: true,
      spec: { ...flat, kubernetesVersion: '1.32' },
    });
  });

  it("runs the cluster spec's rules on the merged document, each issue naming the cluster", () => {
    const r = previewChange('prod/a', pooled, { nodeGroups: [{ name: 'batch', nodeCount: 9 }] });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.issues.map((i) => i.message)).toEqual([
      'prod/a: spec.nodeGroups.1.nodeCount: nodeCount (9) must not exceed maxSize (4)',
    ]);
  });

  it('turns a change that does not apply into an issue naming cluster, field and pool', () => {
    const r = previewChange('prod/a', flat, { nodeGroups: [{ name: 'gpu', nodeCount: 1 }] });
    expect(!r.ok && r.issues).toEqual([
      expect.objectContaining({ field: 'spec.nodeGroups', rule: 'not_applicable' }),
    ]);
    expect(!r.ok && r.issues[0]?.message).toMatch(/^prod\/a: spec\.nodeGroups: the cluster has no pool gpu/);
  });
});

describe('changeSatisfied', () => {
  it.each<[string, Record<string, unknown>, ClusterChange, boolean]>([
    ['the version is there', flat, { kubernetesVersion: '1.31' }, true],
    ['the version differs', flat, { kubernetesVersion: '1.32' }, false],
    [
      'an add-on without version is at default',
      flat,
      { addons: [{ name: 'vpc-cni', version: 'default' }] },
      true,
    ],
    ['an add-on at another version', flat, { addons: [{ name: 'coredns', version: 'latest' }] }, false],
    [
      'an add-on the cluster lacks is not satisfied',
      flat,
      { addons: [{ name: 'kube-proxy', version: 'default' }] },
      false,
    ],
    [
      'flat pool default, same type and count',
      flat,
      { nodeGroups: [{ name: 'default', instanceTypes: ['t3.large'], nodeCount: 3 }] },
      true,
    ],
    [
      'flat pool default, scaling defaults to managed',
      flat,
      { nodeGroups: [{ name: 'default', scaling: 'managed' }] },
      true,
    ],
    ['flat pool default, another count', flat, { nodeGroups: [{ name: 'default', nodeCount: 4 }] }, false],
    ['a pool the flat spec lacks', flat, { nodeGroups: [{ name: 'web', nodeCount: 2 }] }, false],
    ['pools, same sizes', pooled, { nodeGroups: [{ name: 'batch', minSize: 0, maxSize: 4 }] }, true],
    [
      'pools, another instance type',
      pooled,
      { nodeGroups: [{ name: 'web', instanceTypes: ['m5.xlarge'] }] },
      false,
    ],
    ['tags all there', flat, { tags: { team: 'a' } }, true],
    ['a tag missing', flat, { tags: { cost: '1' } }, false],
    ['everything there', flat, { kubernetesVersion: '1.31', tags: { team: 'a' } }, true],
    ['one part missing', flat, { kubernetesVersion: '1.31', tags: { team: 'b' } }, false],
  ])('%s', (_why, spec, change, expected) => expect(changeSatisfied(spec, change)).toBe(expected));

  it('agrees with applyChange: after the merge, the change is satisfied', () => {
    const change: ClusterChange = {
      kubernetesVersion: '1.32',
      addons: [{ name: 'coredns', version: 'latest' }],
      nodeGroups: [{ name: 'default', instanceTypes: ['m5.large'], nodeCount: 4 }],
      tags: { cost: '1' },
    };
    expect(changeSatisfied(flat, change)).toBe(false);
    expect(changeSatisfied(applyChange(flat, change), change)).toBe(true);
  });
});
