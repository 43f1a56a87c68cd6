/**
 * `spec.change` of a CloudRollout: the part of a CloudCluster spec one rollout may move across a
 * fleet. Versions and sizes, not structure: a change updates pools and add-ons a cluster has (by
 * name) and merges tags; it creates and removes nothing. Each field is checked here as the cluster
 * spec checks it; the merged spec is checked again per cluster (change.ts, previewChange).
 */
import { addonNameSchema, addonVersionSchema } from '../spec/addons.js';
import { array, minLength, optional, record, refine, rule, string } from '../spec/build.js';
import type { Output } from '../spec/kit.js';
import { instanceTypesSchema, nodeCountSchema, poolNameSchema, scalingSchema } from '../spec/pools.js';
import { LIMITS } from '../spec/rules.js';
import { kubernetesVersionSchema } from '../spec/schema.js';
import { strict } from './issues.js';

/** What a change may hold, in the order messages list them. */
export const CHANGE_FIELDS = ['kubernetesVersion', 'addons', 'nodeGroups', 'tags'] as const;
/** The pool fields a change may set (pools.ts names them; the flat form's default pool has them too). */
export const POOL_CHANGE_FIELDS = ['instanceTypes', 'nodeCount', 'minSize', 'maxSize', 'scaling'] as const;

const addonChangeSchema = strict({ name: addonNameSchema, version: addonVersionSchema }, 'an add-on change');

const poolChangeSchema = strict(
  {
    name: poolNameSchema,
    instanceTypes: optional(instanceTypesSchema('instanceTypes must be a list')),
    nodeCount: optional(nodeCountSchema('nodeCount', 0)),
    minSize: optional(nodeCountSchema('minSize', 0)),
    maxSize: optional(nodeCountSchema('maxSize', 1)),
    scaling: optional(scalingSchema),
  },
  'a node group change',
  rule((p, add) => {
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

const tagsChangeSchema = record(
  string('tag values must be strings'),
  'tags must be a map',
  refine((tags) => Object.keys(tags).length > 0, 'tags must set at least one tag (or leave it out)'),
  rule((tags, add) => {
    for (const [key, value] of Object.entries(tags)) {
      const problem = tagProblem(key, value);
      if (problem) add([key], problem);
    }
  }),
);

/** Names listed twice in a list merged by name. */
function duplicateNames(items: readonly { readonly name: string }[]): number[] {
  const seen = new Set<string>();
  return items.flatMap((item, i) => {
    const twice = seen.has(item.name);
    seen.add(item.name);
    return twice ? [i] : [];
  });
}

export const changeSchema = strict(
  {
    kubernetesVersion: optional(
      kubernetesVersionSchema(
        'kubernetesVersion must be a string like "1.31"',
        'kubernetesVersion must be major.minor, like "1.31" (quote it in YAML)',
      ),
    ),
    addons: optional(
      array(
        addonChangeSchema,
        'addons must be a list of {name, version}',
        minLength(1, 'addons must list at least one add-on (or leave it out)'),
      ),
    ),
    nodeGroups: optional(
      array(
        poolChangeSchema,
        'nodeGroups must be a list of node group changes',
        minLength(1, 'nodeGroups must list at least one node group (or leave it out)'),
      ),
    ),
    tags: optional(tagsChangeSchema),
  },
  'a change',
  rule((c, add) => {
    if (CHANGE_FIELDS.every((f) => c[f] === undefined))
      add([], `a change sets at least one of ${CHANGE_FIELDS.join(', ')}`);
    for (const list of ['addons', 'nodeGroups'] as const)
      for (const i of duplicateNames(c[list] ?? []))
        add([list, i, 'name'], `${c[list]?.[i]?.name} is listed twice; a change names each once`);
  }),
);

/** A validated change: what `applyChange` merges into a cluster spec. */
export type ClusterChange = Output<typeof changeSchema>;
export type PoolChange = NonNullable<ClusterChange['nodeGroups']>[number];
export type AddonChange = NonNullable<ClusterChange['addons']>[number];
