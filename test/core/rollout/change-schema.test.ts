/** `spec.change`: what a rollout may move across a fleet, each refusal naming its field. */
import { describe, expect, it } from 'vitest';
import { validateRolloutSpec } from '../../../lambdas/core/rollout/schema.js';
import { rolloutInput } from './support/rollout.js';

const withChange = (change: unknown) => validateRolloutSpec(rolloutInput({ change }));

describe('change: accepted', () => {
  it('keeps versions, pools and tags as written', () => {
    const change = {
      kubernetesVersion: '1.33',
      addons: [
        { name: 'vpc-cni', version: 'v1.19.0-eksbuild.1' },
        { name: 'coredns', version: 'latest' },
      ],
      nodeGroups: [
        {
          name: 'default',
          instanceTypes: ['m5.large'],
          nodeCount: 4,
          minSize: 2,
          maxSize: 6,
          scaling: 'managed',
        },
      ],
      tags: { 'cost-center': '42' },
    };
    const r = withChange(change);
    expect(r.ok && r.spec.change).toEqual(change);
  });
});

const BAD: ReadonlyArray<[why: string, change: unknown, field: string, rule: RegExp]> = [
  [
    'an unknown field lists what a change may hold',
    { kubernetesVersion: '1.33', paused: true },
    'spec.change.paused',
    /unknown field; a change may hold only kubernetesVersion, addons, nodeGroups, tags/,
  ],
  ['an empty change', {}, 'spec.change', /at least one of kubernetesVersion, addons, nodeGroups, tags/],
  [
    'a version EKS does not have',
    { kubernetesVersion: '1.99' },
    'spec.change.kubernetesVersion',
    /not an EKS version CloudOrch knows/,
  ],
  [
    'a version written as a number',
    { kubernetesVersion: 1.3 },
    'spec.change.kubernetesVersion',
    /must be a string/,
  ],
  [
    'an add-on without version',
    { addons: [{ name: 'vpc-cni' }] },
    'spec.change.addons[0].version',
    /required/,
  ],
  [
    'an add-on version of the wrong form',
    { addons: [{ name: 'vpc-cni', version: '1.19' }] },
    'spec.change.addons[0].version',
    /"default", "latest" or an exact/,
  ],
  [
    'an add-on field a change does not set',
    { addons: [{ name: 'vpc-cni', version: 'latest', configurationValues: {} }] },
    'spec.change.addons[0].configurationValues',
    /an add-on change may hold only name, version/,
  ],
  [
    'an add-on named twice',
    {
      addons: [
        { name: 'vpc-cni', version: 'latest' },
        { name: 'vpc-cni', version: 'default' },
      ],
    },
    'spec.change.addons[1].name',
    /listed twice/,
  ],
  ['an empty add-on list', { addons: [] }, 'spec.change.addons', /at least one add-on/],
  [
    'a pool change that sets nothing',
    { nodeGroups: [{ name: 'default' }] },
    'spec.change.nodeGroups[0]',
    /at least one of instanceTypes, nodeCount, minSize, maxSize, scaling/,
  ],
  [
    'a pool named twice',
    {
      nodeGroups: [
        { name: 'a', nodeCount: 1 },
        { name: 'a', nodeCount: 2 },
      ],
    },
    'spec.change.nodeGroups[1].name',
    /listed twice/,
  ],
  [
    'a pool field a change does not set',
    { nodeGroups: [{ name: 'a', labels: { x: 'y' } }] },
    'spec.change.nodeGroups[0].labels',
    /a node group change may hold only name, instanceTypes, nodeCount, minSize, maxSize, scaling/,
  ],
  [
    'the flat field name instead of the pool one',
    { nodeGroups: [{ name: 'default', instanceType: 'm5.large' }] },
    'spec.change.nodeGroups[0].instanceType',
    /unknown field/,
  ],
  [
    'an instance type not allowed',
    { nodeGroups: [{ name: 'a', instanceTypes: ['x1.huge'] }] },
    'spec.change.nodeGroups[0].instanceTypes[0]',
    /not in the allowed instance types/,
  ],
  [
    'a negative node count',
    { nodeGroups: [{ name: 'a', nodeCount: -1 }] },
    'spec.change.nodeGroups[0].nodeCount',
    /at least 0/,
  ],
  [
    'minSize above maxSize',
    { nodeGroups: [{ name: 'a', minSize: 5, maxSize: 2 }] },
    'spec.change.nodeGroups[0].minSize',
    /must not exceed maxSize/,
  ],
  [
    'a reserved tag prefix',
    { tags: { 'aws:owner': 'x' } },
    'spec.change.tags["aws:owner"]',
    /reserved prefix/,
  ],
  ['an empty tag map', { tags: {} }, 'spec.change.tags', /at least one tag/],
  ['a tag value that is not a string', { tags: { team: 1 } }, 'spec.change.tags.team', /strings/],
  [
    'the change of a whole spec',
    { provider: 'aws', region: 'us-east-1', kubernetesVersion: '1.33' },
    'spec.change.provider',
    /a change may hold only/,
  ],
];

describe('change: refusals', () => {
  it.each(BAD)('%s', (_why, change, field, rule) => {
    const r = withChange(change);
    const issues = r.ok ? [] : r.issues;
    expect(issues.find((i) => i.field === field)?.message, JSON.stringify(issues)).toMatch(rule);
  });
});
