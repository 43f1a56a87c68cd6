/**
 * The CloudCluster spec: the single source for runtime validation at every entry point, the CRD's
 * openAPIV3Schema (through {@link specJsonSchema}), the CLI's error messages and the policy input.
 */
import * as z from 'zod/mini';
import { catalog } from '../catalog.js';
import { InternalError } from '../errors.js';
import '../zod-locale.js';
import { accessSchema, checkAccess } from './access.js';
import { addonSchema, checkAddons } from './addons.js';
import { UPGRADE_READINESS } from './facts.js';
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
} from './pools.js';
import { LIMITS } from './rules.js';

/** Length as EKS counts it: Unicode characters (code points), so `𝒜` is one, not two UTF-16 units. */
const codePoints = (s: string): number => [...s].length;
const TAG_CHARACTERS = 'letters, digits, spaces and _ . : / = + - @';

const tagsSchema = z
  .record(z.string(), z.string({ error: 'tag values must be strings' }), { error: 'tags must be a map' })
  .check(
    z.superRefine((tags, ctx) => {
      const keys = Object.keys(tags);
      if (keys.length > LIMITS.tags.maxCount) {
        ctx.addIssue({
          code: 'custom',
          message: `at most ${LIMITS.tags.maxCount} tags are allowed (EKS limit)`,
        });
      }
      for (const key of keys) {
        const value = tags[key] ?? '';
        const keyLength = codePoints(key);
        // JSON quoting shows invisible and control characters; a long key is already in the field.
        const shown = JSON.stringify(keyLength > 40 ? `${[...key].slice(0, 40).join('')}…` : key);
        if (keyLength < 1 || keyLength > LIMITS.tags.maxKeyLength) {
          ctx.addIssue({
            code: 'custom',
            path: [key],
            message: `tag key ${shown} has ${keyLength} characters; tag keys must be 1-${LIMITS.tags.maxKeyLength} characters (EKS limit)`,
          });
        }
        if (!LIMITS.tags.pattern.test(key)) {
          ctx.addIssue({
            code: 'custom',
            path: [key],
            message: `tag key ${shown} may contain only ${TAG_CHARACTERS} (EKS rule)`,
          });
        }
        const valueLength = codePoints(value);
        if (valueLength > LIMITS.tags.maxValueLength) {
          ctx.addIssue({
            code: 'custom',
            path: [key],
            message: `the value of tag ${shown} has ${valueLength} characters; tag values must be at most ${LIMITS.tags.maxValueLength} characters (EKS limit)`,
          });
        }
        if (!LIMITS.tags.pattern.test(value)) {
          ctx.addIssue({
            code: 'custom',
            path: [key],
            message: `the value of tag ${shown} may contain only ${TAG_CHARACTERS} (EKS rule)`,
          });
        }
        const reserved = LIMITS.reservedTagPrefixes.find((p) => key.toLowerCase().startsWith(p));
        if (reserved) {
          ctx.addIssue({
            code: 'custom',
            path: [key],
            message: `tag key ${shown} must not start with the reserved prefix "${reserved}"`,
          });
        }
      }
    }),
  );

const networkSchema = z.strictObject(
  {
    subnetIds: z
      .array(
        z.string().check(z.regex(LIMITS.subnets.pattern, { error: 'subnet ids look like subnet-0123abcd' })),
        {
          error: 'subnetIds must be a list of subnet ids',
        },
      )
      .check(
        z.minLength(LIMITS.subnets.min, {
          error: `at least ${LIMITS.subnets.min} subnets in different AZs are required by EKS`,
        }),
        z.maxLength(LIMITS.subnets.max, { error: `at most ${LIMITS.subnets.max} subnets are allowed` }),
      ),
    securityGroupIds: z.optional(
      z
        .array(
          z
            .string()
            .check(
              z.regex(LIMITS.securityGroups.pattern, { error: 'security group ids look like sg-0123abcd' }),
            ),
        )
        .check(
          z.maxLength(LIMITS.securityGroups.max, {
            error: `at most ${LIMITS.securityGroups.max} security groups (EKS limit)`,
          }),
        ),
    ),
  },
  { error: 'network must be an object with subnetIds and optional securityGroupIds' },
);

const specObject = z.strictObject(
  {
    provider: z.literal('aws', {
      error: 'provider must be "aws" (the only provider CloudOrch implements)',
    }),
    // Absent: the stack's own account (records from before accounts are unchanged). Another account
    // is reached by assuming CloudOrch's role there (see provider/clients.ts).
    accountId: z.optional(
      z
        .string({ error: 'accountId must be a string of 12 digits (quote it in YAML)' })
        .check(z.regex(LIMITS.accountId, { error: 'accountId must be a 12-digit AWS account id' })),
    ),
    region: z.enum(catalog.regions as [string, ...string[]], {
      error: (iss) =>
        `region ${JSON.stringify(iss.input)} is not in the allowed regions (${catalog.regions.join(', ')})`,
    }),
    clusterName: z.string({ error: 'clusterName must be a string' }).check(
      z.minLength(1, { error: 'clusterName must not be empty' }),
      z.maxLength(LIMITS.clusterName.maxLength, {
        error: `clusterName must be at most ${LIMITS.clusterName.maxLength} characters`,
      }),
      z.regex(LIMITS.clusterName.pattern, {
        error:
          'clusterName must start with a letter or digit and contain only letters, digits, hyphens and underscores',
      }),
    ),
    kubernetesVersion: z
      .string({ error: 'kubernetesVersion must be a string like "1.31" (quote it in YAML)' })
      .check(
        z.regex(/^\d+\.\d+$/, { error: 'kubernetesVersion must be major.minor, like "1.31"' }),
        z.refine((v) => v in catalog.kubernetesVersions, {
          error: (iss) =>
            `kubernetesVersion ${JSON.stringify(iss.input)} is not an EKS version CloudOrch knows (${Object.keys(catalog.kubernetesVersions).join(', ')})`,
        }),
      ),
    // The flat node fields: one pool named `default` (see pools.ts). No defaults here, so that a
    // spec using nodeGroups can be told to drop them; normalisation applies them.
    nodeCount: z.optional(nodeCountSchema('nodeCount', 0)),
    minSize: z.optional(nodeCountSchema('minSize', 0)),
    maxSize: z.optional(nodeCountSchema('maxSize', 1)),
    scaling: z.optional(scalingSchema),
    instanceType: z.optional(instanceTypeSchema('instanceType')),
    spotEnabled: z.optional(z.boolean({ error: 'spotEnabled must be true or false' })),
    nodeGroups: z.optional(
      z.array(poolSchema, { error: 'nodeGroups must be a list of node pools' }).check(
        z.minLength(1, {
          error:
            'nodeGroups must list at least one pool: a running cluster keeps one (delete the record to delete the cluster)',
        }),
        z.maxLength(LIMITS.pool.maxPools, {
          error: `at most ${LIMITS.pool.maxPools} pools per cluster (EKS's quota of ${LIMITS.pool.nodegroupQuota} managed node groups per cluster, less one for a replacement running beside its group)`,
        }),
      ),
    ),
    tags: z._default(tagsSchema, {}),
    network: z.optional(networkSchema),
    clusterRoleArn: z.optional(roleArnSchema('clusterRoleArn')),
    nodeRoleArn: z.optional(roleArnSchema('nodeRoleArn')),
    deletionPolicy: z._default(
      z.enum(['Delete', 'Retain'], { error: 'deletionPolicy must be "Delete" or "Retain"' }),
      'Retain',
    ),
    adopt: z._default(z.boolean({ error: 'adopt must be true or false' }), false),
    paused: z._default(z.boolean({ error: 'paused must be true or false' }), false),
    // Absent: CloudOrch manages no add-on; an empty list removes the ones it created (see addons.ts).
    addons: z.optional(
      z
        .array(addonSchema, { error: 'addons must be a list of add-ons' })
        .check(z.maxLength(LIMITS.addon.maxAddons, { error: `at most ${LIMITS.addon.maxAddons} add-ons` })),
    ),
    // Absent: access entries are not managed (clusters are still created without creator access).
    access: z.optional(accessSchema),
    upgrade: z.optional(
      z.strictObject(
        {
          readiness: z._default(
            z.enum(UPGRADE_READINESS, {
              error: 'readiness must be "block", "warn" or "ignore" (what an ERROR upgrade insight does)',
            }),
            'block',
          ),
        },
        { error: 'upgrade must be an object with readiness' },
      ),
    ),
  },
  { error: 'spec must be an object' },
);

export const specSchema = z.pipe(
  specObject.check(
    z.superRefine((s, ctx) => {
      const add = (path: PropertyKey[], message: string) => ctx.addIssue({ code: 'custom', path, message });
      checkAddons(s.addons ?? [], (path, message) => add(['addons', ...path], message));
      if (s.access) checkAccess(s.access, (path, message) => add(['access', ...path], message));
      const flat = FLAT_POOL_FIELDS.filter((f) => s[f] !== undefined);
      if (s.nodeGroups) {
        if (flat.length > 0)
          add(
            ['nodeGroups'],
            `use either nodeGroups or the flat node fields, not both: move ${flat.join(', ')} into a pool (the flat fields mean one pool named "default")`,
          );
        checkPools(s.nodeGroups, add);
        return;
      }
      // The flat form: nodeCount and instanceType are required, as the seed's spec had them.
      if (s.nodeCount === undefined) add(['nodeCount'], 'required');
      if (s.instanceType === undefined) add(['instanceType'], 'required');
      if (s.nodeCount !== undefined)
        checkSizes({ ...s, nodeCount: s.nodeCount, scaling: s.scaling ?? 'managed' }, [], add);
    }),
  ),
  z.transform(normalize),
);

type Parsed = z.output<typeof specObject>;

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
  // Refinement guarantees both in the flat form; a transform only runs on a valid spec.
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
export type CloudClusterSpec = z.output<typeof specSchema>;
/** What a user may write (defaults optional). */
export type CloudClusterSpecInput = z.input<typeof specSchema>;

/** The spec as JSON Schema (draft 2020-12), the source of the CRD's openAPIV3Schema. */
export function specJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(specSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}
