import { describe, expect, it } from 'vitest';
import { catalog } from '../../lambdas/core/catalog.js';
import { specJsonSchema } from '../../lambdas/core/spec/schema.js';
import { validateSpec } from '../../lambdas/core/spec/validate.js';
import { baseSpecInput } from './support/fixtures.js';

const manyTags = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));

/** Each bad spec: why it is bad, the change, the field the error must name, and words of the rule. */
const flatless = { nodeCount: undefined, instanceType: undefined };
const pool = (over: Record<string, unknown> = {}) => ({
  name: 'workers',
  instanceTypes: ['m5.large'],
  nodeCount: 2,
  ...over,
});
const pools = (...ps: Record<string, unknown>[]) => ({ ...flatless, nodeGroups: ps });

/** Node pools: each bad one names the pool's field by its index. */
const POOL_BAD: ReadonlyArray<[why: string, change: Record<string, unknown>, field: string, rule: RegExp]> = [
  [
    'both forms',
    { nodeGroups: [pool()] },
    'spec.nodeGroups',
    /either nodeGroups or the flat node fields.*nodeCount, instanceType/,
  ],
  ['no pool at all', pools(), 'spec.nodeGroups', /at least one pool/],
  ['neither form', flatless, 'spec.nodeCount', /^spec\.nodeCount: required$/],
  [
    'label with a prefix EKS reserves',
    pools(pool({ labels: { 'node-role.kubernetes.io/worker': 'true' } })),
    'spec.nodeGroups.0.labels.node-role.kubernetes.io/worker',
    /reserved prefix kubernetes\.io\//,
  ],
  [
    'GPU and non-GPU types in one pool',
    pools(pool({ capacityType: 'SPOT', instanceTypes: ['m5.large', 'g4dn.xlarge'] })),
    'spec.nodeGroups.0.instanceTypes',
    /GPU and non-GPU instance types cannot share a pool/,
  ],
  [
    'more than 29 pools',
    pools(...Array.from({ length: 30 }, (_, i) => pool({ name: `p${i}` }))),
    'spec.nodeGroups',
    /at most 29 pools/,
  ],
  [
    'x86 and Graviton in one pool',
    pools(pool({ capacityType: 'SPOT', instanceTypes: ['m5.large', 'm6g.large'] })),
    'spec.nodeGroups.0.instanceTypes',
    /share a CPU architecture.*m6g.large is arm64/,
  ],
  [
    'ARM AMI on x86 instances',
    pools(pool({ amiType: 'BOTTLEROCKET_ARM_64' })),
    'spec.nodeGroups.0.amiType',
    /runs on arm64, the pool's instance types are x86_64/,
  ],
  ['pool names twice', pools(pool(), pool()), 'spec.nodeGroups.1.name', /used twice/],
  [
    'pool name too long',
    pools(pool({ name: 'a'.repeat(25) })),
    'spec.nodeGroups.0.name',
    /at most 24 characters/,
  ],
  [
    'pool name with a dot',
    pools(pool({ name: 'a.b' })),
    'spec.nodeGroups.0.name',
    /letters, digits, hyphens/,
  ],
  [
    'pool without instance types',
    pools(pool({ instanceTypes: [] })),
    'spec.nodeGroups.0.instanceTypes',
    /at least one/,
  ],
  [
    'pool instance type not allowed',
    pools(pool({ instanceTypes: ['x1.huge'] })),
    'spec.nodeGroups.0.instanceTypes.0',
    /not in the allowed instance types/,
  ],
  [
    'several instance types on demand',
    pools(pool({ instanceTypes: ['m5.large', 'm6i.large'] })),
    'spec.nodeGroups.0.instanceTypes',
    /only with capacityType SPOT/,
  ],
  [
    'capacity type unknown',
    pools(pool({ capacityType: 'RESERVED' })),
    'spec.nodeGroups.0.capacityType',
    /"ON_DEMAND" or "SPOT"/,
  ],
  [
    'pool nodeCount above maxSize',
    pools(pool({ maxSize: 1 })),
    'spec.nodeGroups.0.nodeCount',
    /must not exceed maxSize/,
  ],
  [
    'pool external scaling without bounds',
    pools(pool({ scaling: 'external' })),
    'spec.nodeGroups.0.minSize',
    /required when scaling is "external"/,
  ],
  [
    'label key invalid',
    pools(pool({ labels: { 'bad key': 'x' } })),
    'spec.nodeGroups.0.labels.bad key',
    /label key name/,
  ],
  [
    'label value empty',
    pools(pool({ labels: { role: '' } })),
    'spec.nodeGroups.0.labels.role',
    /must not be empty/,
  ],
  [
    'taint effect unknown',
    pools(pool({ taints: [{ key: 'gpu', effect: 'NoSchedule' }] })),
    'spec.nodeGroups.0.taints.0.effect',
    /NO_SCHEDULE, NO_EXECUTE, PREFER_NO_SCHEDULE/,
  ],
  [
    'taint listed twice',
    pools(
      pool({
        taints: [
          { key: 'a', effect: 'NO_SCHEDULE' },
          { key: 'a', value: 'b', effect: 'NO_SCHEDULE' },
        ],
      }),
    ),
    'spec.nodeGroups.0.taints.1',
    /listed twice/,
  ],
  [
    'taint with an unknown field',
    pools(pool({ taints: [{ key: 'a', effect: 'NO_SCHEDULE', operator: 'Equal' }] })),
    'spec.nodeGroups.0.taints.0.operator',
    /unknown field/,
  ],
  [
    'updateConfig with both',
    pools(pool({ updateConfig: { maxUnavailable: 1, maxUnavailablePercentage: 10 } })),
    'spec.nodeGroups.0.updateConfig',
    /exactly one/,
  ],
  [
    'maxUnavailable above maxSize',
    pools(pool({ maxSize: 3, updateConfig: { maxUnavailable: 4 } })),
    'spec.nodeGroups.0.updateConfig.maxUnavailable',
    /must not exceed the pool's maxSize/,
  ],
  [
    'amiType unknown',
    pools(pool({ amiType: 'CUSTOM' })),
    'spec.nodeGroups.0.amiType',
    /amiType must be one of/,
  ],
  ['diskSize below the AMI', pools(pool({ diskSize: 19 })), 'spec.nodeGroups.0.diskSize', /at least 20 GiB/],
  [
    'pool unknown field',
    pools(pool({ instanceType: 'm5.large' })),
    'spec.nodeGroups.0.instanceType',
    /unknown field/,
  ],
];

const BAD: ReadonlyArray<[why: string, change: Record<string, unknown>, field: string, rule: RegExp]> = [
  ['spec is not an object', { __replace: 'nope' }, 'spec', /must be an object/],
  ['spec is an array', { __replace: [] }, 'spec', /must be an object/],
  ['provider missing', { provider: undefined }, 'spec.provider', /^spec\.provider: required$/],
  ['unknown provider', { provider: 'gcp' }, 'spec.provider', /must be "aws"/],
  ['provider in upper case', { provider: 'AWS' }, 'spec.provider', /must be "aws"/],
  ['region missing', { region: undefined }, 'spec.region', /^spec\.region: required$/],
  ['region not real', { region: 'xx-east-1' }, 'spec.region', /"xx-east-1" is not in the allowed regions/],
  ['region as a number', { region: 1 }, 'spec.region', /allowed regions/],
  ['clusterName missing', { clusterName: undefined }, 'spec.clusterName', /^spec\.clusterName: required$/],
  ['clusterName empty', { clusterName: '' }, 'spec.clusterName', /must not be empty/],
  [
    'clusterName starts with a hyphen',
    { clusterName: '-abc' },
    'spec.clusterName',
    /start with a letter or digit/,
  ],
  [
    'clusterName has a dot',
    { clusterName: 'a.b' },
    'spec.clusterName',
    /letters, digits, hyphens and underscores/,
  ],
  [
    'clusterName has a space',
    { clusterName: 'a b' },
    'spec.clusterName',
    /letters, digits, hyphens and underscores/,
  ],
  [
    'clusterName over 100 characters',
    { clusterName: 'a'.repeat(101) },
    'spec.clusterName',
    /at most 100 characters/,
  ],
  [
    'kubernetesVersion as a YAML float',
    { kubernetesVersion: 1.3 },
    'spec.kubernetesVersion',
    /must be a string like "1.31"/,
  ],
  [
    'kubernetesVersion with a patch',
    { kubernetesVersion: '1.31.2' },
    'spec.kubernetesVersion',
    /major\.minor/,
  ],
  [
    'kubernetesVersion with a v prefix',
    { kubernetesVersion: 'v1.31' },
    'spec.kubernetesVersion',
    /major\.minor/,
  ],
  [
    'kubernetesVersion not offered by EKS',
    { kubernetesVersion: '1.12' },
    'spec.kubernetesVersion',
    /not an EKS version/,
  ],
  ['kubernetesVersion empty', { kubernetesVersion: '' }, 'spec.kubernetesVersion', /major\.minor/],
  ['nodeCount missing', { nodeCount: undefined }, 'spec.nodeCount', /^spec\.nodeCount: required$/],
  ['nodeCount negative', { nodeCount: -1 }, 'spec.nodeCount', /at least 0/],
  ['nodeCount fractional', { nodeCount: 2.5 }, 'spec.nodeCount', /whole number/],
  ['nodeCount huge', { nodeCount: 10_000 }, 'spec.nodeCount', /at most 450/],
  ['nodeCount as a string', { nodeCount: '3' }, 'spec.nodeCount', /must be a number/],
  ['minSize negative', { minSize: -2 }, 'spec.minSize', /at least 0/],
  ['maxSize zero', { maxSize: 0, nodeCount: 0 }, 'spec.maxSize', /at least 1/],
  ['maxSize over the quota', { maxSize: 451 }, 'spec.maxSize', /at most 450/],
  [
    'minSize greater than maxSize',
    { minSize: 5, maxSize: 4, nodeCount: 4 },
    'spec.minSize',
    /must not exceed maxSize/,
  ],
  ['nodeCount below minSize', { minSize: 4, nodeCount: 3 }, 'spec.nodeCount', /at least minSize/],
  ['nodeCount above maxSize', { maxSize: 2, nodeCount: 3 }, 'spec.nodeCount', /must not exceed maxSize/],
  [
    'external scaling without bounds',
    { scaling: 'external' },
    'spec.minSize',
    /required when scaling is "external"/,
  ],
  [
    'external scaling without maxSize',
    { scaling: 'external', minSize: 1 },
    'spec.maxSize',
    /required when scaling is "external"/,
  ],
  ['unknown scaling mode', { scaling: 'auto' }, 'spec.scaling', /"managed".*"external"/],
  [
    'instanceType unknown',
    { instanceType: 't2.nano' },
    'spec.instanceType',
    /"t2.nano" is not in the allowed instance types/,
  ],
  [
    'instanceType missing',
    { instanceType: undefined },
    'spec.instanceType',
    /^spec\.instanceType: required$/,
  ],
  [
    'kubernetesVersion missing',
    { kubernetesVersion: undefined },
    'spec.kubernetesVersion',
    /^spec\.kubernetesVersion: required$/,
  ],
  [
    'region null (a value, not left out)',
    { region: null },
    'spec.region',
    /null is not in the allowed regions/,
  ],
  ['spotEnabled as a string', { spotEnabled: 'yes' }, 'spec.spotEnabled', /true or false/],
  ['tags as a list', { tags: ['team'] }, 'spec.tags', /must be a map/],
  ['tag value not a string', { tags: { team: 1 } }, 'spec.tags.team', /must be strings/],
  ['more than 50 tags', { tags: manyTags }, 'spec.tags', /at most 50 tags/],
  [
    'tag key over 128 characters',
    { tags: { ['k'.repeat(129)]: 'v' } },
    `spec.tags.${'k'.repeat(129)}`,
    /1-128 characters/,
  ],
  [
    'tag value over 256 characters',
    { tags: { team: 'v'.repeat(257) } },
    'spec.tags.team',
    /at most 256 characters/,
  ],
  [
    'tag key reserved by AWS',
    { tags: { 'aws:owner': 'x' } },
    'spec.tags.aws:owner',
    /reserved prefix "aws:"/,
  ],
  [
    'tag key forging ownership',
    { tags: { 'cloudorch.io/owner': 'x' } },
    'spec.tags.cloudorch.io/owner',
    /reserved prefix "cloudorch.io\/"/,
  ],
  [
    'tag key with a disallowed character',
    { tags: { 'team#1': 'a' } },
    'spec.tags.team#1',
    /"team#1" may contain only letters, digits, spaces and _ \. : \/ = \+ - @/,
  ],
  ['tag key with a quote', { tags: { 'a"b': 'a' } }, 'spec.tags.a"b', /tag key "a\\"b" may contain only/],
  [
    'tag value with a semicolon',
    { tags: { team: 'a;b' } },
    'spec.tags.team',
    /value of tag "team" may contain only/,
  ],
  [
    'tag value with an emoji',
    { tags: { team: 'pay🚀' } },
    'spec.tags.team',
    /value of tag "team" may contain only/,
  ],
  [
    'tag key with a tab, shown quoted',
    { tags: { 'a\tb': 'x' } },
    'spec.tags["a\\tb"]',
    /tag key "a\\tb" may contain only/,
  ],
  [
    'tag value with a newline',
    { tags: { team: 'a\nb' } },
    'spec.tags.team',
    /value of tag "team" may contain only/,
  ],
  ['tag key empty', { tags: { '': 'x' } }, 'spec.tags[""]', /1-128 characters/],
  [
    'tag key of 129 astral letters',
    { tags: { ['𝒜'.repeat(129)]: 'v' } },
    `spec.tags.${'𝒜'.repeat(129)}`,
    /has 129 characters; tag keys must be 1-128 characters/,
  ],
  [
    'tag value of 257 astral letters',
    { tags: { team: '𝒜'.repeat(257) } },
    'spec.tags.team',
    /tag "team" has 257 characters; tag values must be at most 256/,
  ],
  [
    '__proto__ tag key (JSON)',
    { tags: JSON.parse('{"__proto__":"x","team":"a"}') },
    'spec.tags.__proto__',
    /"__proto__" is not allowed as a key/,
  ],
  [
    'constructor tag key',
    { tags: { constructor: 'x' } },
    'spec.tags.constructor',
    /"constructor" is not allowed as a key/,
  ],
  [
    'prototype in network',
    { network: { subnetIds: ['subnet-0123abcd', 'subnet-0123abce'], prototype: 1 } },
    'spec.network.prototype',
    /"prototype" is not allowed as a key/,
  ],
  [
    '__proto__ at the spec root',
    { __replace: JSON.parse('{"provider":"aws","__proto__":{"paused":true}}') },
    'spec.__proto__',
    /"__proto__" is not allowed as a key/,
  ],
  [
    'network with one subnet',
    { network: { subnetIds: ['subnet-0123abcd'] } },
    'spec.network.subnetIds',
    /at least 2 subnets/,
  ],
  [
    'network subnet id malformed',
    { network: { subnetIds: ['subnet-0123abcd', 'sn-1'] } },
    'spec.network.subnetIds.1',
    /subnet-0123abcd/,
  ],
  [
    'network with six security groups',
    {
      network: {
        subnetIds: ['subnet-0123abcd', 'subnet-0123abce'],
        securityGroupIds: Array.from({ length: 6 }, (_, i) => `sg-0123abc${i}`),
      },
    },
    'spec.network.securityGroupIds',
    /at most 5 security groups/,
  ],
  [
    'network with an unknown field',
    { network: { subnetIds: ['subnet-0123abcd', 'subnet-0123abce'], vpcId: 'vpc-1' } },
    'spec.network.vpcId',
    /unknown field/,
  ],
  ['clusterRoleArn not an ARN', { clusterRoleArn: 'eks-role' }, 'spec.clusterRoleArn', /IAM role ARN/],
  [
    'nodeRoleArn is a user ARN',
    { nodeRoleArn: 'arn:aws:iam::123456789012:user/bob' },
    'spec.nodeRoleArn',
    /IAM role ARN/,
  ],
  ['deletionPolicy lower case', { deletionPolicy: 'delete' }, 'spec.deletionPolicy', /"Delete" or "Retain"/],
  ['adopt as a string', { adopt: 'true' }, 'spec.adopt', /true or false/],
  ['paused as a number', { paused: 1 }, 'spec.paused', /true or false/],
  ['unknown top-level field', { nodeCnt: 3 }, 'spec.nodeCnt', /unknown field/],
  ['status smuggled into spec', { ready: true }, 'spec.ready', /unknown field/],
  ...POOL_BAD,
];

function withChange(change: Record<string, unknown>): unknown {
  if ('__replace' in change) return change.__replace;
  const s: Record<string, unknown> = { ...baseSpecInput };
  for (const [k, v] of Object.entries(change)) {
    if (v === undefined) delete s[k];
    else s[k] = v;
  }
  return s;
}

describe('spec validation', () => {
  it('has at least 40 bad-spec cases', () => {
    expect(BAD.length).toBeGreaterThanOrEqual(40);
  });

  it.each(BAD)('rejects: %s', (_why, change, field, rule) => {
    const r = validateSpec(withChange(change));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const issue = r.issues.find((i) => i.field === field);
    expect(issue, `issues were: ${JSON.stringify(r.issues)}`).toBeDefined();
    expect(issue?.message.startsWith(`${field}: `)).toBe(true);
    expect(issue?.message).toMatch(rule);
  });

  it('accepts a minimal spec and applies documented defaults', () => {
    const r = validateSpec(baseSpecInput);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.spec).toMatchObject({ deletionPolicy: 'Retain', adopt: false, paused: false });
    // The flat fields are one pool named default, and only the pool remains.
    expect(r.spec.nodeGroups).toEqual([
      {
        name: 'default',
        instanceTypes: [baseSpecInput.instanceType],
        capacityType: 'ON_DEMAND',
        nodeCount: baseSpecInput.nodeCount,
        scaling: 'managed',
        labels: {},
        taints: [],
      },
    ]);
    expect(r.spec).not.toHaveProperty('nodeCount');
  });

  it('normalises the flat form and the same pool written as nodeGroups to one spec', () => {
    const flat = validateSpec({
      ...baseSpecInput,
      spotEnabled: true,
      minSize: 1,
      maxSize: 6,
      scaling: 'external',
    });
    const { nodeCount, instanceType, ...common } = baseSpecInput;
    const listed = validateSpec({
      ...common,
      nodeGroups: [
        {
          name: 'default',
          instanceTypes: [instanceType],
          capacityType: 'SPOT',
          nodeCount,
          minSize: 1,
          maxSize: 6,
          scaling: 'external',
        },
      ],
    });
    expect(flat.ok && listed.ok && flat.spec).toEqual(listed.ok && listed.spec);
  });

  it('accepts pools with labels, taints, several spot instance types and a disruption budget', () => {
    const { nodeCount: _n, instanceType: _i, ...common } = baseSpecInput;
    const r = validateSpec({
      ...common,
      nodeGroups: [
        pool({
          name: 'system',
          labels: { 'workload.example.com/role': 'system' },
          taints: [{ key: 'CriticalAddonsOnly', effect: 'NO_SCHEDULE' }],
        }),
        pool({
          name: 'spot',
          instanceTypes: ['m5.large', 'm6i.large'],
          capacityType: 'SPOT',
          updateConfig: { maxUnavailablePercentage: 33 },
        }),
      ],
    });
    expect(r.ok ? r.spec.nodeGroups.map((p) => p.name) : r.issues).toEqual(['system', 'spot']);
  });

  it('accepts every allowed region and instance type from the shared data file', () => {
    for (const region of catalog.regions) expect(validateSpec({ ...baseSpecInput, region }).ok).toBe(true);
    for (const instanceType of catalog.instanceTypes)
      expect(validateSpec({ ...baseSpecInput, instanceType }).ok).toBe(true);
  });

  it('accepts tags at the EKS limits, counted in Unicode characters, with every allowed character', () => {
    const tags = {
      ['𝒜'.repeat(128)]: '𝒜'.repeat(256),
      ['k'.repeat(128)]: 'v'.repeat(256),
      'kubernetes.io/cluster/x': 'owned',
      'cost center': 'Zürich 42',
      'a_b.c:d/e=f+g-h@i': '',
      チーム: '決済',
      Owner: 'ops@example.com',
    };
    const r = validateSpec({ ...baseSpecInput, tags });
    expect(r.ok, JSON.stringify(!r.ok && r.issues)).toBe(true);
    if (r.ok) expect(r.spec.tags).toEqual(tags);
  });

  it('reports a reserved key once, not also as an unknown field', () => {
    const r = validateSpec(JSON.parse(`{"__proto__":{},${JSON.stringify(baseSpecInput).slice(1)}`));
    expect(!r.ok && r.issues.map((i) => i.message)).toEqual([
      'spec.__proto__: "__proto__" is not allowed as a key (JavaScript reserves it; it would be dropped or misread)',
    ]);
  });

  it('accepts external scaling with bounds and a node count outside them (the autoscaler owns it)', () => {
    expect(
      validateSpec({ ...baseSpecInput, scaling: 'external', minSize: 1, maxSize: 2, nodeCount: 5 }).ok,
    ).toBe(true);
  });

  it('words a rule the spec gives no message of its own in the English every check uses', () => {
    const r = validateSpec({ ...baseSpecInput, network: { subnetIds: [1, 'subnet-0123abcd'] } });
    expect(!r.ok && r.issues.map((i) => i.message)).toEqual([
      'spec.network.subnetIds.0: Invalid input: expected string, received number',
    ]);
  });

  it('reports every problem at once, not just the first', () => {
    const r = validateSpec({ ...baseSpecInput, region: 'mars-1', nodeCount: -1, instanceType: 'x' });
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.issues.map((i) => i.field).sort()).toEqual([
        'spec.instanceType',
        'spec.nodeCount',
        'spec.region',
      ]);
  });
});

describe('spec JSON Schema export', () => {
  const schema = specJsonSchema() as {
    type: string;
    properties: Record<string, { enum?: unknown[]; maximum?: number }>;
    required: string[];
    additionalProperties: boolean;
  };

  it('lists every field, requires the essentials and rejects unknown fields', () => {
    expect(Object.keys(schema.properties).sort()).toEqual(
      [
        'access',
        'accountId',
        'addons',
        'adopt',
        'clusterName',
        'clusterRoleArn',
        'deletionPolicy',
        'instanceType',
        'kubernetesVersion',
        'maxSize',
        'minSize',
        'network',
        'nodeCount',
        'nodeGroups',
        'nodeRoleArn',
        'paused',
        'provider',
        'region',
        'scaling',
        'spotEnabled',
        'tags',
        'upgrade',
      ].sort(),
    );
    // nodeCount and instanceType, or nodeGroups: one form or the other, which validation checks.
    expect(schema.required.sort()).toEqual(['clusterName', 'kubernetesVersion', 'provider', 'region']);
    expect(schema.additionalProperties).toBe(false);
  });

  it('carries the allowlists from the shared data file', () => {
    expect(schema.properties.region?.enum).toEqual([...catalog.regions]);
    expect(schema.properties.instanceType?.enum).toEqual([...catalog.instanceTypes]);
    expect(schema.properties.nodeCount?.maximum).toBe(450);
  });
});
