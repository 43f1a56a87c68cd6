/**
 * Node pools: `spec.nodeGroups`, and the seed's flat node fields read as one pool named `default`.
 * A spec uses one form or the other; both are normalised here, at validation, so the planner, the
 * policies and the cost estimate only ever see pools.
 */
import { architectureOf, architectureOfAmi, catalog, isGpuInstanceType } from '../catalog.js';
import { labelKeyProblem, labelValueProblem } from '../labels.js';
import {
  array,
  int,
  maximum,
  maxLength,
  minimum,
  minLength,
  number,
  object,
  oneOf,
  optional,
  readonly,
  record,
  refine,
  regex,
  rule,
  string,
  withDefault,
} from './build.js';
import { DEFAULT_POOL } from './facts.js';
import type { Output } from './kit.js';
import { LIMITS } from './rules.js';

export { DEFAULT_POOL };

/** The flat node fields of the seed's spec; a spec that lists `nodeGroups` may not use any of them. */
export const FLAT_POOL_FIELDS = [
  'nodeCount',
  'instanceType',
  'spotEnabled',
  'minSize',
  'maxSize',
  'scaling',
  'nodeRoleArn',
] as const;

export const nodeCountSchema = (field: string, min: number) =>
  number(
    `${field} must be a number`,
    ...int(`${field} must be a whole number`),
    minimum(min, `${field} must be at least ${min}`),
    maximum(
      LIMITS.maxNodes,
      `${field} must be at most ${LIMITS.maxNodes} (EKS quota: nodes per managed node group)`,
    ),
  );

export const roleArnSchema = (field: string) =>
  string(
    `${field} must be a string`,
    regex(LIMITS.roleArn, `${field} must be an IAM role ARN (arn:aws:iam::<12-digit account>:role/<name>)`),
  );

export const scalingSchema = oneOf(
  ['managed', 'external'],
  'scaling must be "managed" (CloudOrch sets the size) or "external" (an autoscaler owns it)',
);

export const instanceTypeSchema = (field: string) =>
  oneOf(
    catalog.instanceTypes as readonly string[],
    (input) => `${field} ${JSON.stringify(input)} is not in the allowed instance types`,
  );

const labelsSchema = record(
  string('label values must be strings (quote them in YAML)'),
  'labels must be a map of Kubernetes labels',
  rule((labels, add) => {
    const keys = Object.keys(labels);
    if (keys.length > LIMITS.pool.maxLabels) add([], `at most ${LIMITS.pool.maxLabels} labels per pool`);
    for (const key of keys) {
      const problem = labelKeyProblem(key);
      if (problem) add([key], `label ${problem}`);
      const reserved = LIMITS.pool.reservedLabelPrefixes.find((p) => key.includes(p));
      if (reserved)
        add(
          [key],
          `label key ${JSON.stringify(key)} contains the reserved prefix ${reserved} (EKS refuses it: nodes may not set such labels on themselves)`,
        );
      const value = labels[key] ?? '';
      // EKS node group labels (the model's labelValue) are 1-63 characters: no empty value.
      const valueProblem = value === '' ? 'value must not be empty (EKS rule)' : labelValueProblem(value);
      if (valueProblem) add([key], `label ${valueProblem}`);
    }
  }),
);

/** A label rule (key or value) on a taint's part, said as a taint's. */
const taintPart = (problemOf: (s: string) => string | undefined) =>
  rule<string>((v, add) => {
    const problem = problemOf(v);
    if (problem) add([], `taint ${problem}`);
  });

const taintSchema = readonly(
  object(
    {
      key: string('a taint key must be a string', taintPart(labelKeyProblem)),
      value: optional(string('a taint value must be a string', taintPart(labelValueProblem))),
      effect: oneOf(LIMITS.pool.taintEffects, `effect must be one of ${LIMITS.pool.taintEffects.join(', ')}`),
    },
    'a taint is an object with key, optional value and effect',
  ),
);

const percentOrCount = (field: string, last: string) =>
  optional(
    number(
      `${field} must be a number`,
      ...int(`${field} must be a whole number`),
      minimum(1, `${field} must be at least 1`),
      maximum(100, `${field} must be at most 100${last}`),
    ),
  );

const updateConfigSchema = object(
  {
    maxUnavailable: percentOrCount('maxUnavailable', ' (EKS limit)'),
    maxUnavailablePercentage: percentOrCount('maxUnavailablePercentage', ''),
  },
  'updateConfig must be an object with maxUnavailable or maxUnavailablePercentage',
  refine(
    (u) => (u.maxUnavailable === undefined) !== (u.maxUnavailablePercentage === undefined),
    'updateConfig takes exactly one of maxUnavailable and maxUnavailablePercentage',
  ),
);

/** A pool's name; a rollout's change names pools by it. */
export const poolNameSchema = string(
  'name must be a string',
  minLength(1, 'name must not be empty'),
  maxLength(
    LIMITS.pool.nameMaxLength,
    `name must be at most ${LIMITS.pool.nameMaxLength} characters (the node group name CloudOrch derives from it must fit EKS's 63)`,
  ),
  regex(
    LIMITS.pool.namePattern,
    'name must start with a letter or digit and contain only letters, digits, hyphens and underscores',
  ),
);

/** A pool's instance types; a rollout's change may set them. */
export const instanceTypesSchema = (notList: string) =>
  array(
    instanceTypeSchema('instance type'),
    notList,
    minLength(1, 'instanceTypes must list at least one instance type'),
    maxLength(
      LIMITS.pool.maxInstanceTypes,
      `at most ${LIMITS.pool.maxInstanceTypes} instance types per pool`,
    ),
  );

export const subnetIdSchema = string(
  undefined,
  regex(LIMITS.subnets.pattern, 'subnet ids look like subnet-0123abcd'),
);

export const poolSchema = object(
  {
    name: poolNameSchema,
    instanceTypes: instanceTypesSchema('instanceTypes must be a list of instance types'),
    capacityType: withDefault(
      oneOf(['ON_DEMAND', 'SPOT'], 'capacityType must be "ON_DEMAND" or "SPOT"'),
      () => 'ON_DEMAND' as const,
    ),
    nodeCount: nodeCountSchema('nodeCount', 0),
    minSize: optional(nodeCountSchema('minSize', 0)),
    maxSize: optional(nodeCountSchema('maxSize', 1)),
    scaling: withDefault(scalingSchema, () => 'managed' as const),
    labels: withDefault(labelsSchema, () => ({})),
    taints: withDefault(
      array(
        taintSchema,
        'taints must be a list of {key, value, effect}',
        maxLength(LIMITS.pool.maxTaints, `at most ${LIMITS.pool.maxTaints} taints per pool (EKS limit)`),
      ),
      () => [],
    ),
    amiType: optional(
      oneOf(LIMITS.pool.amiTypes, `amiType must be one of ${LIMITS.pool.amiTypes.join(', ')}`),
    ),
    diskSize: optional(
      number(
        'diskSize must be a number of GiB',
        ...int('diskSize must be a whole number of GiB'),
        minimum(LIMITS.pool.diskSize.min, `diskSize must be at least ${LIMITS.pool.diskSize.min} GiB`),
        maximum(
          LIMITS.pool.diskSize.max,
          `diskSize must be at most ${LIMITS.pool.diskSize.max} GiB (EBS limit)`,
        ),
      ),
    ),
    nodeRoleArn: optional(roleArnSchema('nodeRoleArn')),
    subnetIds: optional(
      array(
        subnetIdSchema,
        'subnetIds must be a list of subnet ids',
        minLength(1, 'subnetIds must list at least one subnet'),
        maxLength(LIMITS.subnets.max, `at most ${LIMITS.subnets.max} subnets are allowed`),
      ),
    ),
    updateConfig: optional(updateConfigSchema),
  },
  'a node pool must be an object with name, instanceTypes and nodeCount',
);

/** One pool, defaults applied: what the planner, the policies and the cost estimate read. */
export type NodePool = Output<typeof poolSchema>;
export type Taint = NodePool['taints'][number];

interface Sizes {
  readonly nodeCount: number;
  readonly minSize?: number | undefined;
  readonly maxSize?: number | undefined;
  readonly scaling: 'managed' | 'external';
}

type AddIssue = (path: PropertyKey[], message: string) => void;

/** The size rules of one pool (or of the flat fields, at `at`): bounds, and what each scaling mode needs. */
export function checkSizes(s: Sizes, at: PropertyKey[], add: AddIssue): void {
  if (s.minSize !== undefined && s.maxSize !== undefined && s.minSize > s.maxSize)
    add([...at, 'minSize'], `minSize (${s.minSize}) must not exceed maxSize (${s.maxSize})`);
  if (s.scaling === 'managed') {
    if (s.minSize !== undefined && s.nodeCount < s.minSize)
      add([...at, 'nodeCount'], `nodeCount (${s.nodeCount}) must be at least minSize (${s.minSize})`);
    if (s.maxSize !== undefined && s.nodeCount > s.maxSize)
      add([...at, 'nodeCount'], `nodeCount (${s.nodeCount}) must not exceed maxSize (${s.maxSize})`);
    return;
  }
  if (s.minSize === undefined) add([...at, 'minSize'], 'minSize is required when scaling is "external"');
  if (s.maxSize === undefined) add([...at, 'maxSize'], 'maxSize is required when scaling is "external"');
}

/** The rules that span a pool's fields: sizes, spot for several instance types, disruption budget. */
function checkPool(p: NodePool, at: PropertyKey[], add: AddIssue): void {
  checkSizes(p, at, add);
  if (p.instanceTypes.length > 1 && p.capacityType !== 'SPOT')
    add(
      [...at, 'instanceTypes'],
      'several instance types are allowed only with capacityType SPOT (an on-demand pool has one)',
    );
  const arches = new Set(p.instanceTypes.map(architectureOf));
  if (arches.size > 1)
    add(
      [...at, 'instanceTypes'],
      `instance types of one pool must share a CPU architecture (a node group has one AMI): ${p.instanceTypes.map((t) => `${t} is ${architectureOf(t)}`).join(', ')}`,
    );
  const gpu = new Set(p.instanceTypes.map(isGpuInstanceType));
  if (gpu.size > 1)
    add(
      [...at, 'instanceTypes'],
      'GPU and non-GPU instance types cannot share a pool: a node group has one AMI, and only the NVIDIA one drives the GPUs',
    );
  const arch = architectureOf(p.instanceTypes[0] ?? '');
  if (p.amiType && arches.size === 1 && architectureOfAmi(p.amiType) !== arch)
    add(
      [...at, 'amiType'],
      `amiType ${p.amiType} runs on ${architectureOfAmi(p.amiType)}, the pool's instance types are ${arch}`,
    );
  const dupType = p.instanceTypes.find((t, i) => p.instanceTypes.indexOf(t) !== i);
  if (dupType) add([...at, 'instanceTypes'], `instance type ${dupType} is listed twice`);
  const seen = new Set<string>();
  for (const [i, t] of p.taints.entries()) {
    const id = `${t.key}:${t.effect}`;
    if (seen.has(id))
      add([...at, 'taints', i], `taint ${id} is listed twice (key and effect identify a taint)`);
    seen.add(id);
  }
  const max = p.maxSize ?? Math.max(p.nodeCount, 1);
  const unavailable = p.updateConfig?.maxUnavailable;
  if (unavailable !== undefined && unavailable > max)
    add(
      [...at, 'updateConfig', 'maxUnavailable'],
      `maxUnavailable (${unavailable}) must not exceed the pool's maxSize (${max})`,
    );
}

/** Every pool's own rules, and names unique in the cluster. */
export function checkPools(pools: readonly NodePool[], add: AddIssue): void {
  const names = new Set<string>();
  for (const [i, p] of pools.entries()) {
    checkPool(p, ['nodeGroups', i], add);
    if (names.has(p.name))
      add(['nodeGroups', i, 'name'], `pool name ${JSON.stringify(p.name)} is used twice; names are unique`);
    names.add(p.name);
  }
}

/** The flat fields as they reach normalisation (validated, no defaults applied yet). */
export interface FlatNodeFields {
  readonly nodeCount: number;
  readonly instanceType: string;
  readonly spotEnabled?: boolean | undefined;
  readonly minSize?: number | undefined;
  readonly maxSize?: number | undefined;
  readonly scaling?: 'managed' | 'external' | undefined;
  readonly nodeRoleArn?: string | undefined;
}

/** The flat fields as the one pool they mean. Optional members stay absent, as the seed left them. */
export function poolFromFlat(f: FlatNodeFields): NodePool {
  return {
    name: DEFAULT_POOL,
    instanceTypes: [f.instanceType],
    capacityType: f.spotEnabled ? 'SPOT' : 'ON_DEMAND',
    nodeCount: f.nodeCount,
    ...(f.minSize !== undefined ? { minSize: f.minSize } : {}),
    ...(f.maxSize !== undefined ? { maxSize: f.maxSize } : {}),
    scaling: f.scaling ?? 'managed',
    labels: {},
    taints: [],
    ...(f.nodeRoleArn !== undefined ? { nodeRoleArn: f.nodeRoleArn } : {}),
  };
}
