/**
 * A rollout's failure policy: how many clusters may fail, how long a cluster has to become Ready,
 * how long it must then stay healthy, and the alarms that halt the rollout. Its own module, so the
 * watch and report functions, which read only this part of a rollout, validate it without loading
 * the change's schema (and with it the CloudCluster spec schema).
 */
import { durationProblem, parseDuration } from '../duration.js';
import {
  array,
  int,
  map,
  maxLength,
  minimum,
  minLength,
  number,
  parsedBy,
  string,
  withDefault,
  withInputDefault,
} from '../spec/build.js';
import { reservedKeyMessage, reservedKeyPaths, type SpecIssue } from '../spec/issue.js';
import { isPlainObject, type KitIssue, type Output } from '../spec/kit.js';
import { issueAt, strict, toIssues } from './issues.js';

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

const failurePolicySchema = map(
  strict(
    {
      maxFailures: withDefault(
        number(
          'maxFailures must be a number',
          ...int('maxFailures must be a whole number'),
          minimum(0, 'maxFailures must be at least 0'),
        ),
        () => 0,
      ),
      readyTimeout: withInputDefault(durationSchema(1), '1h'),
      healthWindow: withInputDefault(durationSchema(0), '5m'),
      alarms: withDefault(
        array(
          string(
            'alarm names must be strings',
            minLength(1, 'an alarm name must not be empty'),
            maxLength(ALARM_NAME_MAX, `alarm names are at most ${ALARM_NAME_MAX} characters`),
          ),
          'alarms must be a list of CloudWatch alarm names',
        ),
        () => [],
      ),
    },
    'failurePolicy',
  ),
  ({ readyTimeout, healthWindow, ...rest }) => ({
    ...rest,
    readyTimeoutSeconds: readyTimeout,
    healthWindowSeconds: healthWindow,
  }),
);

/** The policy, its defaults applied where the rollout leaves it out. */
export const failurePolicyOrDefaults = withInputDefault(failurePolicySchema, {});

export type FailurePolicy = Output<typeof failurePolicySchema>;

/** The one field of a spec the watch and report steps read. */
const policyOnly = strict({ failurePolicy: failurePolicyOrDefaults }, 'a rollout spec');

/**
 * The failure policy of a rollout spec, validated on its own: the watch and report steps read
 * nothing else of the spec. Issues are named from the spec's root (`failurePolicy.alarms`); a spec
 * that is not a mapping is refused, as the whole spec's validation refuses it.
 */
export function failurePolicyOf(
  spec: unknown,
): { ok: true; policy: FailurePolicy } | { ok: false; issues: SpecIssue[] } {
  // Refused as the whole spec's validation refuses it (a set, a date, a class instance included).
  if (!isPlainObject(spec))
    return { ok: false, issues: [issueAt([], 'invalid_type', 'a rollout spec must be a mapping')] };
  const input = { failurePolicy: (spec as { failurePolicy?: unknown }).failurePolicy };
  // As for the whole spec: a reserved key is named alone, before a check drops or misreads it.
  const reserved = reservedKeyPaths(input).map((path) =>
    issueAt(path, 'reserved_key', reservedKeyMessage(path.at(-1) ?? '')),
  );
  if (reserved.length > 0) return { ok: false, issues: reserved };
  const issues: KitIssue[] = [];
  const { failurePolicy } = policyOnly.run(input, [], issues);
  return issues.length === 0
    ? { ok: true, policy: failurePolicy }
    : { ok: false, issues: toIssues(issues, input) };
}
