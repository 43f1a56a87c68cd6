/**
 * The CloudCluster spec: the single source for runtime validation at every entry point, the CRD's
 * openAPIV3Schema (through {@link specJsonSchema}), the CLI's error messages and the policy input.
 */
import { z } from 'zod';
import { catalog } from '../catalog.js';
import { LIMITS } from './rules.js';

const nodes = (field: string, min: number) =>
  z
    .number({ error: `${field} must be a number` })
    .int({ error: `${field} must be a whole number` })
    .min(min, { error: `${field} must be at least ${min}` })
    .max(LIMITS.maxNodes, {
      error: `${field} must be at most ${LIMITS.maxNodes} (EKS quota: nodes per managed node group)`,
    });

const roleArn = (field: string) =>
  z.string({ error: `${field} must be a string` }).regex(LIMITS.roleArn, {
    error: `${field} must be an IAM role ARN (arn:aws:iam::<12-digit account>:role/<name>)`,
  });

/** Length as EKS counts it: Unicode characters (code points), so `𝒜` is one, not two UTF-16 units. */
const codePoints = (s: string): number => [...s].length;
const TAG_CHARACTERS = 'letters, digits, spaces and _ . : / = + - @';

const tagsSchema = z
  .record(z.string(), z.string({ error: 'tag values must be strings' }), { error: 'tags must be a map' })
  .superRefine((tags, ctx) => {
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
  });

const networkSchema = z.strictObject(
  {
    subnetIds: z
      .array(z.string().regex(LIMITS.subnets.pattern, { error: 'subnet ids look like subnet-0123abcd' }), {
        error: 'subnetIds must be a list of subnet ids',
      })
      .min(LIMITS.subnets.min, {
        error: `at least ${LIMITS.subnets.min} subnets in different AZs are required by EKS`,
      })
      .max(LIMITS.subnets.max, { error: `at most ${LIMITS.subnets.max} subnets are allowed` }),
    securityGroupIds: z
      .array(
        z
          .string()
          .regex(LIMITS.securityGroups.pattern, { error: 'security group ids look like sg-0123abcd' }),
      )
      .max(LIMITS.securityGroups.max, {
        error: `at most ${LIMITS.securityGroups.max} security groups (EKS limit)`,
      })
      .optional(),
  },
  { error: 'network must be an object with subnetIds and optional securityGroupIds' },
);

export const specSchema = z
  .strictObject(
    {
      provider: z.literal('aws', {
        error: 'provider must be "aws" (the only provider CloudOrch implements)',
      }),
      region: z.enum(catalog.regions as [string, ...string[]], {
        error: (iss) =>
          `region ${JSON.stringify(iss.input)} is not in the allowed regions (${catalog.regions.join(', ')})`,
      }),
      clusterName: z
        .string({ error: 'clusterName must be a string' })
        .min(1, { error: 'clusterName must not be empty' })
        .max(LIMITS.clusterName.maxLength, {
          error: `clusterName must be at most ${LIMITS.clusterName.maxLength} characters`,
        })
        .regex(LIMITS.clusterName.pattern, {
          error:
            'clusterName must start with a letter or digit and contain only letters, digits, hyphens and underscores',
        }),
      kubernetesVersion: z
        .string({ error: 'kubernetesVersion must be a string like "1.31" (quote it in YAML)' })
        .regex(/^\d+\.\d+$/, { error: 'kubernetesVersion must be major.minor, like "1.31"' })
        .refine((v) => v in catalog.kubernetesVersions, {
          error: (iss) =>
            `kubernetesVersion ${JSON.stringify(iss.input)} is not an EKS version CloudOrch knows (${Object.keys(catalog.kubernetesVersions).join(', ')})`,
        }),
      nodeCount: nodes('nodeCount', 0),
      minSize: nodes('minSize', 0).optional(),
      maxSize: nodes('maxSize', 1).optional(),
      scaling: z
        .enum(['managed', 'external'], {
          error: 'scaling must be "managed" (CloudOrch sets the size) or "external" (an autoscaler owns it)',
        })
        .default('managed'),
      instanceType: z.enum(catalog.instanceTypes as [string, ...string[]], {
        error: (iss) => `instanceType ${JSON.stringify(iss.input)} is not in the allowed instance types`,
      }),
      spotEnabled: z.boolean({ error: 'spotEnabled must be true or false' }).default(false),
      tags: tagsSchema.default({}),
      network: networkSchema.optional(),
      clusterRoleArn: roleArn('clusterRoleArn').optional(),
      nodeRoleArn: roleArn('nodeRoleArn').optional(),
      deletionPolicy: z
        .enum(['Delete', 'Retain'], { error: 'deletionPolicy must be "Delete" or "Retain"' })
        .default('Retain'),
      adopt: z.boolean({ error: 'adopt must be true or false' }).default(false),
      paused: z.boolean({ error: 'paused must be true or false' }).default(false),
    },
    { error: 'spec must be an object' },
  )
  .superRefine((s, ctx) => {
    if (s.minSize !== undefined && s.maxSize !== undefined && s.minSize > s.maxSize) {
      ctx.addIssue({
        code: 'custom',
        path: ['minSize'],
        message: `minSize (${s.minSize}) must not exceed maxSize (${s.maxSize})`,
      });
    }
    if (s.scaling === 'managed') {
      if (s.minSize !== undefined && s.nodeCount < s.minSize) {
        ctx.addIssue({
          code: 'custom',
          path: ['nodeCount'],
          message: `nodeCount (${s.nodeCount}) must be at least minSize (${s.minSize})`,
        });
      }
      if (s.maxSize !== undefined && s.nodeCount > s.maxSize) {
        ctx.addIssue({
          code: 'custom',
          path: ['nodeCount'],
          message: `nodeCount (${s.nodeCount}) must not exceed maxSize (${s.maxSize})`,
        });
      }
    } else {
      if (s.minSize === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['minSize'],
          message: 'minSize is required when scaling is "external"',
        });
      }
      if (s.maxSize === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['maxSize'],
          message: 'maxSize is required when scaling is "external"',
        });
      }
    }
  });

/** A validated spec with defaults applied. */
export type CloudClusterSpec = z.output<typeof specSchema>;
/** What a user may write (defaults optional). */
export type CloudClusterSpecInput = z.input<typeof specSchema>;

/** The spec as JSON Schema (draft 2020-12), the source of the CRD's openAPIV3Schema. */
export function specJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(specSchema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}
