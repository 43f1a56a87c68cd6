/**
 * The CloudRollout spec: one change (change-schema.ts) rolled across the clusters a selector or a
 * list picks, in ordered stages, with a failure policy. Validation names every field it refuses;
 * the output has defaults applied and durations in seconds.
 */
import '../zod-locale.js';
import * as z from 'zod/mini';
import { labelKeyProblem, labelValueProblem } from '../labels.js';
import { isDnsLabel, isRecordId } from '../record-id.js';
import { reservedKeyMessage, reservedKeyPaths, type SpecIssue } from '../spec/issue.js';
import { changeSchema } from './change-schema.js';
import { durationSchema, failurePolicyOrDefaults } from './failure-policy.js';
import { issueAt, type Parsed, parsedBy, report, strict, toIssues } from './issues.js';
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

const labelMapSchema = z.record(z.string(), z.string({ error: 'label values must be strings' }), {
  error: 'matchLabels must be a map of labels',
});

const requirementSchema = strict(
  {
    key: z.string({ error: 'key must be a string' }),
    operator: z.enum(SELECTOR_OPERATORS, {
      error: `operator must be one of ${SELECTOR_OPERATORS.join(', ')}`,
    }),
    values: z.optional(
      z.array(z.string({ error: 'values must be strings' }), { error: 'values must be a list' }),
    ),
  },
  'a match expression',
);

/** Kubernetes' rules (metav1 ValidateLabelSelector), and at least one term. */
export const selectorSchema = strict(
  {
    matchLabels: z.optional(labelMapSchema),
    matchExpressions: z.optional(z.array(requirementSchema, { error: 'matchExpressions must be a list' })),
  },
  'a selector',
).check(
  z.superRefine((s, ctx) => {
    const add = report(ctx, s);
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

const clustersSchema = z
  .array(
    z
      .string({ error: 'cluster ids must be strings' })
      .check(z.refine(isRecordId, { error: 'must be a record id <namespace>/<name>, both DNS labels' })),
    { error: 'clusters must be a list of record ids' },
  )
  .check(
    z.minLength(1, { error: 'clusters must list at least one record id' }),
    z.superRefine((ids, ctx) => {
      for (const [i, id] of ids.entries())
        if (ids.indexOf(id) < i) report(ctx, ids)([i], `${id} is listed twice`);
    }),
  );

const stageSchema = z.pipe(
  strict(
    {
      name: z.string({ error: 'name must be a string' }).check(
        z.refine(isDnsLabel, {
          error: 'name must be a DNS label (lowercase letters, digits and hyphens, at most 63 characters)',
        }),
      ),
      selector: z.optional(selectorSchema),
      clusters: z.optional(clustersSchema),
      share: z.optional(shareSchema),
      maxConcurrency: z.prefault(maxConcurrencySchema, 1),
      soak: z.prefault(durationSchema(0), '0s'),
      approval: z._default(
        z.enum(['before', 'after', 'none'], { error: 'approval must be "before", "after" or "none"' }),
        'none',
      ),
    },
    'a stage',
  ).check(
    z.superRefine((s, ctx) => {
      const set = (['selector', 'clusters', 'share'] as const).filter((f) => s[f] !== undefined);
      if (set.length > 1)
        report(ctx, s)(
          [set[1] ?? ''],
          `stage ${s.name}: use at most one of selector, clusters and share (found ${set.join(', ')})`,
        );
    }),
  ),
  z.transform(({ soak, ...rest }) => ({ ...rest, soakSeconds: soak })),
);

export const rolloutSpecSchema = strict(
  {
    selector: z.optional(selectorSchema),
    clusters: z.optional(clustersSchema),
    change: changeSchema,
    stages: z
      .array(stageSchema, { error: 'stages must be a list of stages' })
      .check(
        z.minLength(1, { error: 'stages must list at least one stage' }),
        z.maxLength(MAX_STAGES, { error: `at most ${MAX_STAGES} stages` }),
      ),
    failurePolicy: failurePolicyOrDefaults,
  },
  'a rollout spec',
).check(z.superRefine((s, ctx) => checkRollout(s, report(ctx, s))));

type Checked = z.output<typeof rolloutSpecSchema>;

/** The rules across fields: one cluster set, unique stage names, the catch-all stage last. */
function checkRollout(s: Checked, add: (path: PropertyKey[], message: string) => void): void {
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
export type RolloutSpec = z.output<typeof rolloutSpecSchema>;
/** What a user may write. */
export type RolloutSpecInput = z.input<typeof rolloutSpecSchema>;
export type RolloutStage = RolloutSpec['stages'][number];

export type RolloutSpecResult = { ok: true; spec: RolloutSpec } | { ok: false; issues: SpecIssue[] };

export function validateRolloutSpec(input: unknown): RolloutSpecResult {
  // Before zod reads it: a record drops a `__proto__` key silently, and what zod would then say
  // (an empty selector, a missing field) is about a document the user did not write.
  const reserved = reservedKeyPaths(input).map((path) =>
    issueAt(path, 'reserved_key', reservedKeyMessage(path.at(-1) ?? '')),
  );
  if (reserved.length > 0) return { ok: false, issues: reserved };
  const r = rolloutSpecSchema.safeParse(input);
  return r.success ? { ok: true, spec: r.data } : { ok: false, issues: toIssues(r.error, input) };
}
