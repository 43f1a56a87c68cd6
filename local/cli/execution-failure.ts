/**
 * Where an execution failed, read from its history (newest first): the step failure nearest the end
 * and the state it happened in, and how `describe` prints an execution. Pure: no SDK calls.
 */
import type { HistoryEvent } from '@aws-sdk/client-sfn';

export interface FailurePoint {
  /** The state entered last before the failure event; undefined when the history does not reach it. */
  readonly state?: string;
  /** The event type: LambdaFunctionFailed, TaskFailed, ExecutionFailed... */
  readonly event: string;
  readonly error?: string;
  readonly cause?: string;
}

type Details = { readonly error?: string | undefined; readonly cause?: string | undefined };

/** The error and cause of any failure event, whatever its type's details field is called. */
function detailsOf(e: HistoryEvent): Details | undefined {
  return (
    e.lambdaFunctionFailedEventDetails ??
    e.lambdaFunctionTimedOutEventDetails ??
    e.lambdaFunctionScheduleFailedEventDetails ??
    e.lambdaFunctionStartFailedEventDetails ??
    e.taskFailedEventDetails ??
    e.taskTimedOutEventDetails ??
    e.taskStartFailedEventDetails ??
    e.taskSubmitFailedEventDetails ??
    e.activityFailedEventDetails ??
    e.activityTimedOutEventDetails ??
    e.activityScheduleFailedEventDetails ??
    e.executionFailedEventDetails ??
    e.executionTimedOutEventDetails ??
    e.executionAbortedEventDetails
  );
}

const isFailure = (type: string) => /(Failed|TimedOut)$/.test(type);
const isExecutionEnd = (type: string) => type.startsWith('Execution');

/**
 * In a history read newest first: the first step failure (LambdaFunctionFailed, TaskFailed...),
 * else the execution's own failure event, with the state entered just before it. A failure that was
 * caught and handled (WriteFailure, then the Fail state) is thus told by the step that threw, not
 * by the Fail state at the end.
 */
export function failurePoint(newestFirst: readonly HistoryEvent[]): FailurePoint | undefined {
  const typeOf = (e: HistoryEvent) => e.type ?? '';
  let at = newestFirst.findIndex((e) => isFailure(typeOf(e)) && !isExecutionEnd(typeOf(e)));
  if (at < 0) at = newestFirst.findIndex((e) => isFailure(typeOf(e)) || typeOf(e) === 'ExecutionAborted');
  const event = newestFirst[at];
  if (!event) return undefined;
  const entered = newestFirst.slice(at + 1).find((e) => typeOf(e).endsWith('StateEntered'));
  const d = detailsOf(event);
  return {
    event: typeOf(event),
    ...(entered?.stateEnteredEventDetails?.name ? { state: entered.stateEnteredEventDetails.name } : {}),
    ...(d?.error ? { error: d.error } : {}),
    ...(d?.cause ? { cause: d.cause } : {}),
  };
}

const MAX_CAUSE = 400;

/**
 * A cause as a person reads it: Lambda reports `{errorType, errorMessage}`, and CloudOrch's steps put
 * a JSON envelope in errorMessage (handlers/envelope.ts); the message inside is what says why.
 */
export function causeText(cause: string): string {
  let text = cause;
  const parsed = jsonObject(cause);
  const message = parsed?.['errorMessage'];
  if (typeof message === 'string') {
    text = message;
    const envelope = jsonObject(message);
    if (envelope?.['cloudorch'] === 1 && typeof envelope['message'] === 'string') text = envelope['message'];
  }
  return text.length > MAX_CAUSE ? `${text.slice(0, MAX_CAUSE - 1)}…` : text;
}

function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** What `describe` knows of one execution. */
export interface ExecutionReport {
  readonly arn: string;
  /** How it was chosen: the lease names it, the record's history does, or ListExecutions found it. */
  readonly via: 'lease' | 'history' | 'list';
  readonly name?: string;
  readonly status?: string;
  readonly startDate?: Date;
  readonly stopDate?: Date;
  readonly error?: string;
  readonly cause?: string;
  readonly failure?: FailurePoint;
  /** Why the history could not be read, when it could not. */
  readonly historyUnreadable?: string;
}

const VIA = { lease: 'the lease holder', history: "the record's history", list: 'ListExecutions' } as const;

/** The lines under `Last execution:`. */
export function executionLines(r: ExecutionReport): string[] {
  const lines = [`  ${r.name ?? r.arn} (${VIA[r.via]})`, `  arn ${r.arn}`];
  const times = `started ${r.startDate?.toISOString() ?? '-'}${r.stopDate ? `, stopped ${r.stopDate.toISOString()}` : ''}`;
  lines.push(`  status ${r.status ?? '-'} (${times})`);
  if (r.error || r.cause) lines.push(`  error ${r.error ?? '-'}${r.cause ? `: ${causeText(r.cause)}` : ''}`);
  if (r.failure) {
    const f = r.failure;
    lines.push(
      `  failed in ${f.state ?? '(state not in the history read)'}: ${f.event} ${f.error ?? '-'}${f.cause ? `: ${causeText(f.cause)}` : ''}`,
    );
  }
  if (r.historyUnreadable) lines.push(`  history cannot be read: ${r.historyUnreadable}`);
  return lines;
}
