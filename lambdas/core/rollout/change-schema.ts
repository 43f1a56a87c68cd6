/**
 * `spec.change` of a CloudRollout: the part of a CloudCluster spec one rollout may move across a
 * fleet. Versions and sizes, not structure: a change updates pools and add-ons a cluster has (by
 * name) and merges tags; it creates and removes nothing. Each field is checked here as the cluster
 * spec checks it; the merged spec is checked again per cluster (change.ts, previewChange).
 */
import '../zod-locale.js';
import * as z from 'zod/mini';
import { catalog } from '../catalog.js';
import { ADDON_VERSION_KEYWORDS, addonSchema } from '../spec/addons.js';
import { instanceTypeSchema, nodeCountSchema, poolSchema, scalingSchema } from '../spec/pools.js';
import { LIMITS } from '../spec/rules.js';
import { report, strict } from './issues.js';

/** What a change may hold, in the order messages list them. */
export const CHANGE_FIELDS = ['kubernetesVersion', 'addons', 'nodeGroups', 'tags'] as const;
/** The pool fields a change may set (pools.ts names them; the flat form's default pool has them too). */
export const POOL_CHANGE_FIELDS = ['instanceTypes', 'nodeCount', 'minSize', 'maxSize', 'scaling'] as const;

const kubernetesVersionSchema = z.string({ error: 'kubernetesVersion must be a string like "1.31"' }).check(
  z.regex(/^\d+\.\d+$/, { error: 'kubernetesVersion must be major.minor, like "1.31" (quote it in YAML)' }),
  z.refine((v) => Object.hasOwn(catalog.kubernetesVersions, v), {
    error: (iss) =>
      `kubernetesVersion ${JSON.stringify(iss.input)} is not an EKS version CloudOrch knows (${Object.keys(catalog.kubernetesVersions).join(', ')})`,
  }),
);

const addonVersionSchema = z.string({ error: 'version must be a string' }).check(
  z.refine(
    (v) => (ADDON_VERSION_KEYWORDS as readonly string[]).includes(v) || LIMITS.addon.versionPattern.test(v),
    {
      error: (iss) =>
        `version ${JSON.stringify(iss.input)} must be "default", "latest" or an exact EKS add-on version like "v1.19.0-eksbuild.1"`,
    },
  ),
);

const addonChangeSchema = strict(
  { name: addonSchema.shape.name, version: addonVersionSchema },
  'an add-on change',
);

const poolChangeSchema = strict(
  {
    name: poolSchema.shape.name,
    instanceTypes: z.optional(
      z.array(instanceTypeSchema('instance type'), { error: 'instanceTypes must be a list' }).check(
        z.minLength(1, { error: 'instanceTypes must list at least one instance type' }),
        z.maxLength(LIMITS.pool.maxInstanceTypes, {
          error: `at most ${LIMITS.pool.maxInstanceTypes} instance types per pool`,
        }),
      ),
    ),
    nodeCount: z.optional(nodeCountSchema('nodeCount', 0)),
    minSize: z.optional(nodeCountSchema('minSize', 0)),
    maxSize: z.optional(nodeCountSchema('maxSize', 1)),
    scaling: z.optional(scalingSchema),
  },
  'a node group change',
).check(
  z.superRefine((p, ctx) => {
    const add = report(ctx, p);
    if (POOL_CHANGE_FIELDS.every((f) => p[f] === undefined))
      add([], `node group ${p.name}: a change sets at least one of ${POOL_CHANGE_FIELDS.join(', ')}`);
    if (p.minSize !== undefined && p.maxSize !== undefined && p.minSize > p.maxSize)
      add(['minSize'], `minSize (${p.minSize}) must not exceed maxSize (${p.maxSize})`);
  }),
);

const codePoints = (s: string): number => [...s].length;

/** A tag's own rules (EKS's, as the cluster spec has them); the count is the merged spec's to check. */
function tagProblem(key: string, value: string): string | undefined {
  const shown = JSON.stringify(key);
  const { maxKeyLength, maxValueLength, pattern } = LIMITS.tags;
  if (codePoints(key) < 1 || codePoints(key) > maxKeyLength)
    return `tag keys must be 1-${maxKeyLength} characters (EKS limit)`;
  if (!pattern.test(key) || !pattern.test(value))
    return `tag ${shown} may contain only letters, digits, spaces and _ . : / = + - @ (EKS rule)`;
  if (codePoints(value) > maxValueLength)
    return `the value of tag ${shown} must be at most ${maxValueLength} characters (EKS limit)`;
  const reserved = LIMITS.reservedTagPrefixes.find((p) => key.toLowerCase().startsWith(p));
  return reserved ? `tag key ${shown} must not start with the reserved prefix "${reserved}"` : undefined;
}

const tagsChangeSchema = z
  .record(z.string(), z.string({ error: 'tag values must be strings' }), { error: 'tags must be a map' })
  .check(
    z.refine((tags) => Object.keys(tags).length > 0, {
      error: 'tags must set at least one tag (or leave it out)',
    }),
    z.superRefine((tags, ctx) => {
      for (const [key, value] of Object.entries(tags)) {
        const problem = tagProblem(key, value);
        if (problem) report(ctx, tags)([key], problem);
      }
    }),
  );

/** Names listed twice in a list merged by name. */
function duplicateNames(items: readonly { readonly name: string }[]): number[] {
  return items.flatMap((item, i) => (items.findIndex((o) => o.name === item.name) < i ? [i] : []));
}

export const changeSchema = strict(
  {
    kubernetesVersion: z.optional(kubernetesVersionSchema),
    addons: z.optional(
      z
        .array(addonChangeSchema, { error: 'addons must be a list of {name, version}' })
        .check(z.minLength(1, { error: 'addons must list at least one add-on (or leave it out)' })),
    ),
    nodeGroups: z.optional(
      z
        .array(poolChangeSchema, { error: 'nodeGroups must be a list of node group changes' })
        .check(z.minLength(1, { error: 'nodeGroups must list at least one node group (or leave it out)' })),
    ),
    tags: z.optional(tagsChangeSchema),
  },
  'a change',
).check(
  z.superRefine((c, ctx) => {
    const add = report(ctx, c);
    if (CHANGE_FIELDS.every((f) => c[f] === undefined))
      add([], `a change sets at least one of ${CHANGE_FIELDS.join(', ')}`);
    for (const list of ['addons', 'nodeGroups'] as const)
      for (const i of duplicateNames(c[list] ?? []))
        add([list, i, 'name'], `${c[list]?.[i]?.name} is listed twice; a change names each once`);
  }),
);

/** A validated change: what `applyChange` merges into a cluster spec. */
export type ClusterChange = z.output<typeof changeSchema>;
export type PoolChange = NonNullable<ClusterChange['nodeGroups']>[number];
export type AddonChange = NonNullable<ClusterChange['addons']>[number];
