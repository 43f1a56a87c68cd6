/**
 * The CloudCluster spec: the single source for runtime validation at every entry point, the CRD's
 * openAPIV3Schema (through {@link specJsonSchema}), the CLI's error messages and the policy input.
 */
import { catalog } from '../catalog.js';
import { InternalError } from '../errors.js';
import { accessSchema, checkAccess } from './access.js';
import { addonSchema, checkAddons } from './addons.js';
import {
  array,
  boolean,
  literal,
  maxLength,
  minLength,
  type ObjectOutput,
  object,
  oneOf,
  optional,
  record,
  refine,
  regex,
  rule,
  string,
  withDefault,
} from './build.js';
import { UPGRADE_READINESS } from './facts.js';
import { expected, type Input, type Json, jsonSchemaDocument, type KitIssue, type Output } from './kit.js';
import {
  checkPools,
  checkSizes,
  FLAT_POOL_FIELDS,
  instanceTypeSchema,
  type NodePool,
  nodeCountSchema,
  poolFromFlat,
  poolSchema,
  roleArnSchema,
  scalingSchema,
  subnetIdSchema,
} from './pools.js';
import { LIMITS } from './rules.js';

/** Length as EKS counts it: Unicode characters (code points), so `𝒜` is one, not two UTF-16 units. */
const codePoints = (s: string): number => [...s].length;
const TAG_CHARACTERS = 'letters, digits, spaces and _ . : / = + - @';

const tagsSchema = record(
  string('tag values must be strings'),
  'tags must be a map',
  rule((tags, add) => {
    const keys = Object.keys(tags);
    if (keys.length > LIMITS.tags.maxCount)
      add([], `at most ${LIMITS.tags.maxCount} tags are allowed (EKS limit)`);
    for (const key of keys) {
      const value = tags[key] ?? '';
      const keyLength = codePoints(key);
      // JSON quoting shows invisible and control characters; a long key is already in the field.
      const shown = JSON.stringify(keyLength > 40 ? `${[...key].slice(0, 40).join('')}…` : key);
      if (keyLength < 1 || keyLength > LIMITS.tags.maxKeyLength)
        add(
          [key],
          `tag key ${shown} has ${keyLength} characters; tag keys must be 1-${LIMITS.tags.maxKeyLength} characters (EKS limit)`,
        );
      if (!LIMITS.tags.pattern.test(key))
        add([key], `tag key ${shown} may contain only ${TAG_CHARACTERS} (EKS rule)`);
      const valueLength = codePoints(value);
      if (valueLength > LIMITS.tags.maxValueLength)
        add(
          [key],
          `the value of tag ${shown} has ${valueLength} characters; tag values must be at most ${LIMITS.tags.maxValueLength} characters (EKS limit)`,
        );
      if (!LIMITS.tags.pattern.test(value))
        add([key], `the value of tag ${shown} may contain only ${TAG_CHARACTERS} (EKS rule)`);
      const reserved = LIMITS.reservedTagPrefixes.find((p) => key.toLowerCase().startsWith(p));
      if (reserved) add([key], `tag key ${shown} must not start with the reserved prefix "${reserved}"`);
    }
  }),
);

const networkSchema = object(
  {
    subnetIds: array(
      subnetIdSchema,
      'subnetIds must be a list of subnet ids',
      minLength(
        LIMITS.subnets.min,
        `at least ${LIMITS.subnets.min} subnets in different AZs are required by EKS`,
      ),
      maxLength(LIMITS.subnets.max, `at most ${LIMITS.subnets.max} subnets are allowed`),
    ),
    securityGroupIds: optional(
      array(
        string(undefined, regex(LIMITS.securityGroups.pattern, 'security group ids look like sg-0123abcd')),
        // A schema library's default, kept: the field has no message of its own for a non-list.
        (input) => expected('array', input),
        maxLength(
          LIMITS.securityGroups.max,
          `at most ${LIMITS.securityGroups.max} security groups (EKS limit)`,
        ),
      ),
    ),
  },
  'network must be an object with subnetIds and optional securityGroupIds',
);

/** The cluster's Kubernetes version; a rollout's change may set it. */
export const kubernetesVersionSchema = (notString: string, notMinor: string) =>
  string(
    notString,
    regex(/^\d+\.\d+$/, notMinor),
    refine(
      (v) => Object.hasOwn(catalog.kubernetesVersions, v),
      (v) =>
        `kubernetesVersion ${JSON.stringify(v)} is not an EKS version CloudOrch knows (${Object.keys(catalog.kubernetesVersions).join(', ')})`,
    ),
  );

const specFields = {
  provider: literal('aws', 'provider must be "aws" (the only provider CloudOrch implements)'),
  // Absent: the stack's own account (records from before accounts are unchanged). Another account
  // is reached by assuming CloudOrch's role there (see provider/clients.ts).
  accountId: optional(
    string(
      'accountId must be a string of 12 digits (quote it in YAML)',
      regex(LIMITS.accountId, 'accountId must be a 12-digit AWS account id'),
    ),
  ),
  region: oneOf(
    catalog.regions as readonly string[],
    (input) =>
      `region ${JSON.stringify(input)} is not in the allowed regions (${catalog.regions.join(', ')})`,
  ),
  clusterName: string(
    'clusterName must be a string',
    minLength(1, 'clusterName must not be empty'),
    maxLength(
      LIMITS.clusterName.maxLength,
      `clusterName must be at most ${LIMITS.clusterName.maxLength} characters`,
    ),
    regex(
      LIMITS.clusterName.pattern,
      'clusterName must start with a letter or digit and contain only letters, digits, hyphens and underscores',
    ),
  ),
  kubernetesVersion: kubernetesVersionSchema(
    'kubernetesVersion must be a string like "1.31" (quote it in YAML)',
    'kubernetesVersion must be major.minor, like "1.31"',
  ),
  // The flat node fields: one pool named `default` (see pools.ts). No defaults here, so that a
  // spec using nodeGroups can be told to drop them; normalisation applies them.
  nodeCount: optional(nodeCountSchema('nodeCount', 0)),
  minSize: optional(nodeCountSchema('minSize', 0)),
  maxSize: optional(nodeCountSchema('maxSize', 1)),
  scaling: optional(scalingSchema),
  instanceType: optional(instanceTypeSchema('instanceType')),
  spotEnabled: optional(boolean('spotEnabled must be true or false')),
  nodeGroups: optional(
    array(
      poolSchema,
      'nodeGroups must be a list of node pools',
      minLength(
        1,
        'nodeGroups must list at least one pool: a running cluster keeps one (delete the record to delete the cluster)',
      ),
      maxLength(
        LIMITS.pool.maxPools,
        `at most ${LIMITS.pool.maxPools} pools per cluster (EKS's quota of ${LIMITS.pool.nodegroupQuota} managed node groups per cluster, less one for a replacement running beside its group)`,
      ),
    ),
  ),
  tags: withDefault(tagsSchema, () => ({})),
  network: optional(networkSchema),
  clusterRoleArn: optional(roleArnSchema('clusterRoleArn')),
  nodeRoleArn: optional(roleArnSchema('nodeRoleArn')),
  deletionPolicy: withDefault(
    oneOf(['Delete', 'Retain'], 'deletionPolicy must be "Delete" or "Retain"'),
    () => 'Retain' as const,
  ),
  adopt: withDefault(boolean('adopt must be true or false'), () => false),
  paused: withDefault(boolean('paused must be true or false'), () => false),
  // Absent: CloudOrch manages no add-on; an empty list removes the ones it created (see addons.ts).
  addons: optional(
    array(
      addonSchema,
      'addons must be a list of add-ons',
      maxLength(LIMITS.addon.maxAddons, `at most ${LIMITS.addon.maxAddons} add-ons`),
    ),
  ),
  // Absent: access entries are not managed (clusters are still created without creator access).
  access: optional(accessSchema),
  upgrade: optional(
    object(
      {
        readiness: withDefault(
          oneOf(
            UPGRADE_READINESS,
            'readiness must be "block", "warn" or "ignore" (what an ERROR upgrade insight does)',
          ),
          () => 'block' as const,
        ),
      },
      'upgrade must be an object with readiness',
    ),
  ),
};

/** The spec's rules across fields: add-ons, access, and the one form of node pools it uses. */
const crossFieldRules = rule<ObjectOutput<typeof specFields>>((s, add) => {
  checkAddons(s.addons ?? [], (path, message) => add(['addons', ...path], message));
  if (s.access) checkAccess(s.access, (path, message) => add(['access', ...path], message));
  const flat = FLAT_POOL_FIELDS.filter((f) => s[f] !== undefined);
  if (s.nodeGroups) {
    if (flat.length > 0)
      add(
        ['nodeGroups'],
        `use either nodeGroups or the flat node fields, not both: move ${flat.join(', ')} into a pool (the flat fields mean one pool named "default")`,
      );
    checkPools(s.nodeGroups, (path, message) => add(path, message));
    return;
  }
  // The flat form: nodeCount and instanceType are required, as the seed's spec had them.
  if (s.nodeCount === undefined) add(['nodeCount'], 'required');
  if (s.instanceType === undefined) add(['instanceType'], 'required');
  if (s.nodeCount !== undefined)
    checkSizes({ ...s, nodeCount: s.nodeCount, scaling: s.scaling ?? 'managed' }, [], (path, message) =>
      add(path, message),
    );
});

const specObject = object(specFields, 'spec must be an object', crossFieldRules);

type Parsed = Output<typeof specObject>;

/** The one internal form: the flat fields become the pool `default`, and only pools remain. */
function normalize(s: Parsed): Omit<Parsed, (typeof FLAT_POOL_FIELDS)[number] | 'nodeGroups'> & {
  readonly nodeGroups: readonly NodePool[];
} {
  const {
    nodeCount,
    minSize,
    maxSize,
    scaling,
    instanceType,
    spotEnabled,
    nodeRoleArn,
    nodeGroups,
    ...rest
  } = s;
  if (nodeGroups) return { ...rest, nodeGroups };
  // The rules guarantee both in the flat form; normalisation only runs on a valid spec.
  if (nodeCount === undefined || instanceType === undefined)
    throw new InternalError('flat spec without nodeCount or instanceType passed validation');
  return {
    ...rest,
    nodeGroups: [
      poolFromFlat({ nodeCount, instanceType, spotEnabled, minSize, maxSize, scaling, nodeRoleArn }),
    ],
  };
}

/** A validated spec with defaults applied. */
export type CloudClusterSpec = ReturnType<typeof normalize>;
/** What a user may write (defaults optional). */
export type CloudClusterSpecInput = Input<typeof specObject>;

export type SpecParse = { success: true; data: CloudClusterSpec } | { success: false; issues: KitIssue[] };

/** The spec: its fields, and a check of an input that reports every issue or the normalised spec. */
export const specSchema = {
  fields: specFields,
  safeParse(input: unknown): SpecParse {
    const issues: KitIssue[] = [];
    const parsed = specObject.run(input, [], issues);
    return issues.length > 0 ? { success: false, issues } : { success: true, data: normalize(parsed) };
  },
  /** For specs known to be valid (fixtures, the bench): an invalid one is a bug there. */
  parse(input: unknown): CloudClusterSpec {
    const r = specSchema.safeParse(input);
    if (r.success) return r.data;
    throw new InternalError(
      `invalid spec: ${r.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  },
};

/** The spec as JSON Schema (draft 2020-12), the source of the CRD's openAPIV3Schema. */
export const specJsonSchema = (): Json => jsonSchemaDocument(specObject);
