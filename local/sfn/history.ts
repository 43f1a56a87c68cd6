/**
 * Turns what an execution really went through (the library's event log, the Task calls the
 * interpreter saw, and how the registry closed it) into GetExecutionHistory's events in AWS's
 * shapes. Nothing is invented: an AWS event type with no local counterpart is never emitted.
 */
import type { ExecutionEvent, TaskCall } from './interpreter.js';
import type { Execution, ExecutionLog } from './registry.js';
import { type Body, toEpochSeconds } from './wire.js';

/** One history event before ids are assigned: its type, time and details field. */
interface Draft {
  type: string;
  ms: number;
  details?: [string, Body];
}

/** Which `*EventDetails` fields carry execution data (left out when includeExecutionData is false). */
const DATA_FIELDS = ['input', 'output', 'parameters'] as const;
const NOT_TRUNCATED = { truncated: false };
// Resource ARN of a plain Lambda function: AWS reports its calls as LambdaFunction* events.
const LAMBDA_FUNCTION = /^arn:aws[a-z-]*:lambda:[a-z0-9-]+:\d{12}:function:/;
// Optimized integrations, `arn:aws:states:::<service>:<action>[.sync|.waitForTaskToken]`.
const SERVICE_INTEGRATION = /^arn:aws[a-z-]*:states:[a-z0-9-]*:\d*:([^:]+):([^:]+)$/;

const json = (v: unknown): string => JSON.stringify(v ?? null);
const causeText = (c: unknown): string => (typeof c === 'string' ? c : JSON.stringify(c));

/** Drafts for one plain Lambda function ARN call record: AWS reports those as LambdaFunction* events. */
function lambdaCallDrafts(call: TaskCall): Draft[] {
  const ms = call.timestamp;
  switch (call.phase) {
    case 'invoked': {
      // Locally the handler is scheduled and started by the same call.
      const scheduled: Body = {
        resource: call.resource,
        input: json(call.input),
        inputDetails: NOT_TRUNCATED,
        ...(call.timeoutSeconds !== undefined ? { timeoutInSeconds: call.timeoutSeconds } : {}),
      };
      return [
        { type: 'LambdaFunctionScheduled', ms, details: ['lambdaFunctionScheduledEventDetails', scheduled] },
        { type: 'LambdaFunctionStarted', ms },
      ];
    }
    case 'succeeded': {
      const out: Body = { output: json(call.output), outputDetails: NOT_TRUNCATED };
      return [{ type: 'LambdaFunctionSucceeded', ms, details: ['lambdaFunctionSucceededEventDetails', out] }];
    }
    case 'failed':
    case 'timedOut': {
      const type = call.phase === 'failed' ? 'LambdaFunctionFailed' : 'LambdaFunctionTimedOut';
      const d: Body = { error: call.error, cause: call.cause };
      return [{ type, ms, details: [`${lowerFirst(type)}EventDetails`, d] }];
    }
    default:
      return [];
  }
}

/** Drafts for one Task call record, as AWS names them for that kind of Resource. */
function taskCallDrafts(call: TaskCall): Draft[] {
  if (LAMBDA_FUNCTION.test(call.resource)) return lambdaCallDrafts(call);
  const ms = call.timestamp;
  const m = SERVICE_INTEGRATION.exec(call.resource);
  const resource = { resourceType: m?.[1] ?? 'unknown', resource: m?.[2] ?? call.resource };
  switch (call.phase) {
    case 'invoked': {
      const scheduled: Body = {
        ...resource,
        region: '',
        parameters: json(call.input),
        ...(call.timeoutSeconds !== undefined ? { timeoutInSeconds: call.timeoutSeconds } : {}),
        ...(call.heartbeatSeconds !== undefined ? { heartbeatInSeconds: call.heartbeatSeconds } : {}),
      };
      return [
        { type: 'TaskScheduled', ms, details: ['taskScheduledEventDetails', scheduled] },
        { type: 'TaskStarted', ms, details: ['taskStartedEventDetails', resource] },
      ];
    }
    case 'submitted':
    case 'succeeded': {
      const type = call.phase === 'submitted' ? 'TaskSubmitted' : 'TaskSucceeded';
      const out: Body = { ...resource, output: json(call.output), outputDetails: NOT_TRUNCATED };
      return [{ type, ms, details: [`${lowerFirst(type)}EventDetails`, out] }];
    }
    default: {
      const type = call.phase === 'failed' ? 'TaskFailed' : 'TaskTimedOut';
      const failed: Body = { ...resource, error: call.error, cause: call.cause };
      return [{ type, ms, details: [`${lowerFirst(type)}EventDetails`, failed] }];
    }
  }
}

/** The drafts of one library event; an event with no AWS counterpart gives none. */
function eventDrafts(e: ExecutionEvent): Draft[] {
  const ms = e.timestamp;
  switch (e.type) {
    case 'ExecutionStarted': {
      const d: Body = { input: json(e.input), inputDetails: NOT_TRUNCATED };
      return [{ type: 'ExecutionStarted', ms, details: ['executionStartedEventDetails', d] }];
    }
    case 'ExecutionSucceeded': {
      const d: Body = { output: json(e.output), outputDetails: NOT_TRUNCATED };
      return [{ type: 'ExecutionSucceeded', ms, details: ['executionSucceededEventDetails', d] }];
    }
    case 'ExecutionFailed': {
      const d: Body = { error: e.Error, cause: causeText(e.Cause) };
      return [{ type: 'ExecutionFailed', ms, details: ['executionFailedEventDetails', d] }];
    }
    case 'StateEntered': {
      const d: Body = { name: e.state.name, input: json(e.state.input), inputDetails: NOT_TRUNCATED };
      return [{ type: `${e.state.type}StateEntered`, ms, details: ['stateEnteredEventDetails', d] }];
    }
    case 'StateExited': {
      // A Fail state has no Exited event in AWS.
      if (e.state.type === 'Fail') return [];
      const d: Body = { name: e.state.name, output: json(e.state.output), outputDetails: NOT_TRUNCATED };
      return [{ type: `${e.state.type}StateExited`, ms, details: ['stateExitedEventDetails', d] }];
    }
    case 'MapIterationStarted':
    case 'MapIterationSucceeded': {
      const d: Body = { name: e.parentState.name, index: e.index };
      return [{ type: e.type, ms, details: [`${lowerFirst(e.type)}EventDetails`, d] }];
    }
    case 'MapIterationFailed': {
      const d: Body = { name: e.parentState.name, index: e.index };
      return [{ type: e.type, ms, details: ['mapIterationFailedEventDetails', d] }];
    }
    default:
      // ExecutionTerminated (the registry's close says why), StateFailed/Retried/Caught (the Task
      // call events show each attempt) and Parallel branch events (AWS has none per branch).
      return [];
  }
}

function lowerFirst(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1);
}

/**
 * The Map events the library does not log, derived from the ones it does: MapStateSucceeded,
 * MapStateFailed, and MapIterationAborted for the iterations a failed Map stopped.
 */
function mapTracker(): (e: ExecutionEvent) => Draft[] {
  const running = new Map<string, Set<number>>(); // Map state -> iterations started, not ended
  const failed = new Set<string>();
  return (e) => {
    if (e.type === 'MapIterationStarted') {
      running.set(e.parentState.name, (running.get(e.parentState.name) ?? new Set()).add(e.index));
    } else if (e.type === 'MapIterationSucceeded' || e.type === 'MapIterationFailed') {
      running.get(e.parentState.name)?.delete(e.index);
    }
    if (!('state' in e) || e.state.type !== 'Map') return [];
    const name = e.state.name;
    const ms = e.timestamp;
    if (e.type === 'StateEntered') failed.delete(name);
    if (e.type === 'StateExited' && !failed.has(name)) return [{ type: 'MapStateSucceeded', ms }];
    if (e.type !== 'StateFailed') return [];
    failed.add(name);
    const aborted = [...(running.get(name) ?? [])].map(
      (index): Draft => ({
        type: 'MapIterationAborted',
        ms,
        details: ['mapIterationAbortedEventDetails', { name, index }],
      }),
    );
    running.delete(name);
    return [...aborted, { type: 'MapStateFailed', ms }];
  };
}

/** How the registry closed an execution the library's log does not end (StopExecution, timeout). */
function closingDraft(execution: Execution): Draft[] {
  if (execution.stopMs === undefined) return [];
  const d: Body = {
    ...(execution.error !== undefined ? { error: execution.error } : {}),
    ...(execution.cause !== undefined ? { cause: execution.cause } : {}),
  };
  if (execution.status === 'ABORTED') {
    return [{ type: 'ExecutionAborted', ms: execution.stopMs, details: ['executionAbortedEventDetails', d] }];
  }
  if (execution.status === 'TIMED_OUT') {
    return [
      { type: 'ExecutionTimedOut', ms: execution.stopMs, details: ['executionTimedOutEventDetails', d] },
    ];
  }
  return [];
}

const isEnd = (c: TaskCall): boolean =>
  c.phase === 'succeeded' || c.phase === 'failed' || c.phase === 'timedOut';

/** Task call records grouped by attempt, in the order the attempts ended (unfinished ones last). */
function attemptsByEnd(calls: readonly TaskCall[]): Map<string, TaskCall[][]> {
  const byAttempt = new Map<number, TaskCall[]>();
  const endOrder: number[] = [];
  for (const c of calls) {
    const records = byAttempt.get(c.attempt);
    if (records) records.push(c);
    else byAttempt.set(c.attempt, [c]);
    if (isEnd(c)) endOrder.push(c.attempt);
  }
  const ended = new Set(endOrder);
  const unfinished = [...byAttempt.keys()].filter((a) => !ended.has(a));
  const byState = new Map<string, TaskCall[][]>();
  for (const a of [...endOrder, ...unfinished]) {
    const records = byAttempt.get(a)!;
    const state = records[0]!.state;
    const attempts = byState.get(state);
    if (attempts) attempts.push(records);
    else byState.set(state, [records]);
  }
  return byState;
}

/**
 * Merges the two logs: a Task attempt ends with the library's StateFailed or StateExited for that
 * state, so the attempt of that state that ended first goes just before it (the library's log is
 * delivered asynchronously, so timestamps alone cannot order them). Attempts still in flight go
 * before the event that closes the execution.
 */
function drafts(execution: Execution, log: ExecutionLog): Draft[] {
  const queues = attemptsByEnd(log.calls);
  const takeAttempt = (state: string): Draft[] => {
    const q = queues.get(state) ?? [];
    if (q[0] === undefined || !q[0].some(isEnd)) return [];
    return q.shift()!.flatMap(taskCallDrafts);
  };
  const leftovers = (): Draft[] =>
    [...queues.values()].flatMap((q) => q.splice(0).flat().flatMap(taskCallDrafts));
  const out: Draft[] = [];
  const mapDrafts = mapTracker();
  // Per state, how many entries may still end an attempt (Map iterations run one state at once);
  // a caught failure's StateExited ends none.
  const open = new Map<string, number>();
  const count = (name: string, by: number): void => {
    open.set(name, Math.max(0, (open.get(name) ?? 0) + by));
  };
  for (const e of log.events) {
    if ('state' in e && e.state.type === 'Task') {
      const name = e.state.name;
      if (e.type === 'StateEntered') count(name, 1);
      if (e.type === 'StateCaught') count(name, -1);
      if ((e.type === 'StateFailed' || e.type === 'StateExited') && (open.get(name) ?? 0) > 0) {
        out.push(...takeAttempt(name));
      }
      if (e.type === 'StateExited') count(name, -1);
    }
    if (e.type === 'ExecutionSucceeded' || e.type === 'ExecutionFailed') out.push(...leftovers());
    out.push(...mapDrafts(e), ...eventDrafts(e));
  }
  out.push(...leftovers());
  out.push(...closingDraft(execution));
  return out;
}

/** The full history, oldest first, with ids and previousEventId as AWS numbers them. */
export function historyEvents(execution: Execution, log: ExecutionLog, includeData: boolean): Body[] {
  return drafts(execution, log).map((d, i) => {
    const event: Body = { timestamp: toEpochSeconds(d.ms), type: d.type, id: i + 1, previousEventId: i };
    if (d.details) {
      const [field, details] = d.details;
      const kept: Body = { ...details };
      if (!includeData) for (const f of DATA_FIELDS) delete kept[f];
      event[field] = kept;
    }
    return event;
  });
}
