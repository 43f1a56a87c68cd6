/**
 * A rollout's failure policy: how many clusters may fail, how long a cluster has to become Ready,
 * how long it must then stay healthy, and the alarms that halt the rollout. Its own module, so the
 * watch and report functions, which read only this part of a rollout, validate it without loading
 * the change's schema (and with it the CloudCluster spec schema).
 */
import '../zod-locale.js';
import * as z from 'zod/mini';
import { durationProblem, parseDuration } from '../duration.js';
import { reservedKeyMessage, reservedKeyPaths, type SpecIssue } from '../spec/issue.js';
import { issueAt, parsedBy, strict, toIssues } from './issues.js';

/** The longest soak, ready timeout or health window: a rollout is not a scheduler. */
export const MAX_WAIT_SECONDS = 30 * 86_400;
/** CloudWatch's limit on alarm names. */
const ALARM_NAME_MAX = 255;

/** A duration in whole seconds, `min` and MAX_WAIT_SECONDS inclusive. */
export const durationSchema = (min: number) =>
  parsedBy<number>((input) => {
    const problem = durationProblem(input, MAX_WAIT_SECONDS);
    if (problem) return { problem };
    const seconds = parseDuration(input as string) ?? 0;
    return seconds < min ? { problem: `must be at least ${min}s` } : { value: seconds };
  });

const failurePolicySchema = z.pipe(
  strict(
    {
      maxFailures: z._default(
        z
          .number({ error: 'maxFailures must be a number' })
          .check(
            z.int({ error: 'maxFailures must be a whole number' }),
            z.minimum(0, { error: 'maxFailures must be at least 0' }),
          ),
        0,
      ),
      readyTimeout: z.prefault(durationSchema(1), '1h'),
      healthWindow: z.prefault(durationSchema(0), '5m'),
      alarms: z._default(
        z.array(
          z
            .string({ error: 'alarm names must be strings' })
            .check(
              z.minLength(1, { error: 'an alarm name must not be empty' }),
              z.maxLength(ALARM_NAME_MAX, { error: `alarm names are at most ${ALARM_NAME_MAX} characters` }),
            ),
          { error: 'alarms must be a list of CloudWatch alarm names' },
        ),
        [],
      ),
    },
    'failurePolicy',
  ),
  z.transform(({ readyTimeout, healthWindow, ...rest }) => ({
    ...rest,
    readyTimeoutSeconds: readyTimeout,
    healthWindowSeconds: healthWindow,
  })),
);

/** The policy, its defaults applied where the rollout leaves it out. */
export const failurePolicyOrDefaults = z.prefault(failurePolicySchema, {});

export type FailurePolicy = z.output<typeof failurePolicySchema>;

/** The one field of a spec the watch and report steps read, built once. */
const policyOnly = z.object({ failurePolicy: failurePolicyOrDefaults });

/**
 * The failure policy of a rollout spec, validated on its own: the watch and report steps read
 * nothing else of the spec. Issues are named from the spec's root (`failurePolicy.alarms`); a spec
 * that is not a mapping is refused, as the whole spec's validation refuses it.
 */
export function failurePolicyOf(
  spec: unknown,
): { ok: true; policy: FailurePolicy } | { ok: false; issues: SpecIssue[] } {
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec))
    return { ok: false, issues: [issueAt([], 'invalid_type', 'a rollout spec must be a mapping')] };
  const input = { failurePolicy: (spec as { failurePolicy?: unknown }).failurePolicy };
  // As for the whole spec: a reserved key is named alone, before zod drops or misreads it.
  const reserved = reservedKeyPaths(input).map((path) =>
    issueAt(path, 'reserved_key', reservedKeyMessage(path.at(-1) ?? '')),
  );
  if (reserved.length > 0) return { ok: false, issues: reserved };
  const r = policyOnly.safeParse(input);
  return r.success
    ? { ok: true, policy: r.data.failurePolicy }
    : { ok: false, issues: toIssues(r.error, input) };
}
