/**
 * The CloudRollout spec: one change (change-schema.ts) rolled across the clusters a selector or a
 * list picks, in ordered stages, with a failure policy. Validation names every field it refuses;
 * the output has defaults applied and durations in seconds.
 */
import { labelKeyProblem, labelValueProblem } from '../labels.js';
import { isDnsLabel, isRecordId } from '../record-id.js';
import {
  array,
  map,
  maxLength,
  minLength,
  oneOf,
  optional,
  type Parsed,
  parsedBy,
  record,
  refine,
  rule,
  string,
  withDefault,
  withInputDefault,
} from '../spec/build.js';
import { reservedKeyMessage, reservedKeyPaths, type SpecIssue } from '../spec/issue.js';
import type { Input, KitIssue, Output } from '../spec/kit.js';
import { changeSchema } from './change-schema.js';
import { durationSchema, failurePolicyOrDefaults } from './failure-policy.js';
import { issueAt, strict, toIssues } from './issues.js';
import { SELECTOR_OPERATORS } from './selector.js';

export const MAX_STAGES = 20;

/** A share of clusters, or of a stage's clusters: 1-100 percent. */
export interface Percent {
  readonly percent: number;
}

function percentOf(input: unknown): Parsed<Percent> {
  const m = typeof input === 'string' ? /^(\d{1,3})%$/.exec(input) : null;
  const n = Number(m?.[1]);
  if (!m || n < 1 || n > 100) return { problem: 'must be a percentage from "1%" to "100%"' };
  return { value: { percent: n } };
}

const shareSchema = parsedBy(percentOf);

const maxConcurrencySchema = parsedBy<number | Percent>((input) => {
  if (typeof input === 'number')
    return Number.isInteger(input) && input >= 1
      ? { value: input }
      : { problem: 'must be a whole number of at least 1, or a percentage like "50%"' };
  const p = percentOf(input);
  return 'value' in p ? p : { problem: 'must be a whole number of at least 1, or a percentage like "50%"' };
});

const labelMapSchema = record(string('label values must be strings'), 'matchLabels must be a map of labels');

const requirementSchema = strict(
  {
    key: string('key must be a string'),
    operator: oneOf(SELECTOR_OPERATORS, `operator must be one of ${SELECTOR_OPERATORS.join(', ')}`),
    values: optional(array(string('values must be strings'), 'values must be a list')),
  },
  'a match expression',
);

/** Kubernetes' rules (metav1 ValidateLabelSelector), and at least one term. */
export const selectorSchema = strict(
  {
    matchLabels: optional(labelMapSchema),
    matchExpressions: optional(array(requirementSchema, 'matchExpressions must be a list')),
  },
  'a selector',
  rule((s, add) => {
    for (const [key, value] of Object.entries(s.matchLabels ?? {})) {
      const problem = labelKeyProblem(key) ?? labelValueProblem(value);
      if (problem) add(['matchLabels', key], `label ${problem}`);
    }
    for (const [i, r] of (s.matchExpressions ?? []).entries()) {
      const at = ['matchExpressions', i];
      const keyProblem = labelKeyProblem(r.key);
      if (keyProblem) add([...at, 'key'], `label ${keyProblem}`);
      const listed = (r.values ?? []).length > 0;
      if ((r.operator === 'In' || r.operator === 'NotIn') && !listed)
        add([...at, 'values'], `operator ${r.operator} needs at least one value`);
      if ((r.operator === 'Exists' || r.operator === 'DoesNotExist') && listed)
        add([...at, 'values'], `operator ${r.operator} takes no values`);
      for (const [j, v] of (r.values ?? []).entries()) {
        const problem = labelValueProblem(v);
        if (problem) add([...at, 'values', j], `label ${problem}`);
      }
    }
    if (Object.keys(s.matchLabels ?? {}).length === 0 && (s.matchExpressions ?? []).length === 0)
      add(
        [],
        'a selector needs at least one matchLabels entry or match expression (an empty one would select every cluster)',
      );
  }),
);

const clustersSchema = array(
  string(
    'cluster ids must be strings',
    refine(isRecordId, 'must be a record id <namespace>/<name>, both DNS labels'),
  ),
  'clusters must be a list of record ids',
  minLength(1, 'clusters must list at least one record id'),
  rule((ids, add) => {
    const seen = new Set<unknown>();
    for (const [i, id] of ids.entries()) {
      if (seen.has(id)) add([i], `${id} is listed twice`);
      seen.add(id);
    }
  }),
);

const stageSchema = map(
  strict(
    {
      name: string(
        'name must be a string',
        refine(
          isDnsLabel,
          'name must be a DNS label (lowercase letters, digits and hyphens, at most 63 characters)',
        ),
      ),
      selector: optional(selectorSchema),
      clusters: optional(clustersSchema),
      share: optional(shareSchema),
      maxConcurrency: withInputDefault(maxConcurrencySchema, 1),
      soak: withInputDefault(durationSchema(0), '0s'),
      approval: withDefault(
        oneOf(['before', 'after', 'none'], 'approval must be "before", "after" or "none"'),
        () => 'none' as const,
      ),
    },
    'a stage',
    rule((s, add) => {
      const set = (['selector', 'clusters', 'share'] as const).filter((f) => s[f] !== undefined);
      if (set.length > 1)
        add(
          [set[1] ?? ''],
          `stage ${s.name}: use at most one of selector, clusters and share (found ${set.join(', ')})`,
        );
    }),
  ),
  ({ soak, ...rest }) => ({ ...rest, soakSeconds: soak }),
);

const rolloutFields = {
  selector: optional(selectorSchema),
  clusters: optional(clustersSchema),
  change: changeSchema,
  stages: array(
    stageSchema,
    'stages must be a list of stages',
    minLength(1, 'stages must list at least one stage'),
    maxLength(MAX_STAGES, `at most ${MAX_STAGES} stages`),
  ),
  failurePolicy: failurePolicyOrDefaults,
};

export const rolloutSpecSchema = strict(
  rolloutFields,
  'a rollout spec',
  rule((s, add) => checkRollout(s, add)),
);

type Checked = Output<typeof rolloutSpecSchema>;

/** The rules across fields: one cluster set, unique stage names, the catch-all stage last. */
function checkRollout(s: Checked, add: (path: readonly PropertyKey[], message: string) => void): void {
  if ((s.selector === undefined) === (s.clusters === undefined))
    add(
      s.selector ? ['clusters'] : [],
      'a rollout names its clusters with exactly one of selector and clusters',
    );
  const listed = s.clusters ? new Set(s.clusters) : undefined;
  for (const [i, stage] of s.stages.entries()) {
    const earlier = s.stages.findIndex((o) => o.name === stage.name);
    if (earlier < i) add(['stages', i, 'name'], `stage name ${stage.name} is used by stages[${earlier}] too`);
    const catchAll = !stage.selector && !stage.clusters && !stage.share;
    if (catchAll && i < s.stages.length - 1)
      add(
        ['stages', i],
        `stage ${stage.name} has no selector, clusters or share, so it takes every remaining cluster: only the last stage may`,
      );
    for (const [j, id] of (stage.clusters ?? []).entries())
      if (listed && !listed.has(id))
        add(['stages', i, 'clusters', j], `${id} is not among the rollout's clusters`);
  }
}

/** A validated rollout spec, defaults applied, durations in seconds. */
export type RolloutSpec = Output<typeof rolloutSpecSchema>;
/** What a user may write. */
export type RolloutSpecInput = Input<typeof rolloutSpecSchema>;
export type RolloutStage = RolloutSpec['stages'][number];

export type RolloutSpecResult = { ok: true; spec: RolloutSpec } | { ok: false; issues: SpecIssue[] };

export function validateRolloutSpec(input: unknown): RolloutSpecResult {
  // Before the checks read it: a map drops a `__proto__` key, and what they would then say (an
  // empty selector, a missing field) is about a document the user did not write.
  const reserved = reservedKeyPaths(input).map((path) =>
    issueAt(path, 'reserved_key', reservedKeyMessage(path.at(-1) ?? '')),
  );
  if (reserved.length > 0) return { ok: false, issues: reserved };
  const issues: KitIssue[] = [];
  const spec = rolloutSpecSchema.run(input, [], issues);
  return issues.length === 0 ? { ok: true, spec } : { ok: false, issues: toIssues(issues, input) };
}
