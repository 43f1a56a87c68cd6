/**
 * One attempt of a Task state, run by the interpreter in place of Lambda.
 *
 * - A plain Task (any Resource but a callback) calls the handler of its Resource with the state's
 *   effective input; the handler's result is the task's result.
 * - A callback Task (`arn:aws:states:::lambda:invoke.waitForTaskToken`) opens a task token, calls
 *   the handler of its `Parameters.FunctionName` with the evaluated `Parameters.Payload` (where
 *   `$$.Task.Token` is that token), ignores what the handler returns, and waits for the token:
 *   SendTaskSuccess's output is the task's result (no Lambda invoke envelope), SendTaskFailure's
 *   error and cause reach Retry/Catch. A handler error fails the attempt at once.
 * - `TimeoutSeconds` (States.Timeout) applies to both; `HeartbeatSeconds` (States.HeartbeatTimeout)
 *   to callbacks. Without them a Task waits indefinitely, as on AWS. Timeout errors are instances of
 *   the library's own States.Timeout class, the one its `States.TaskFailed` wildcard skips.
 */
import { ExecutionError, StateMachine, type StateMachineDefinition } from 'aws-local-stepfunctions';
import { longTimer, type TaskOutcome, type TaskTokenStore } from './task-tokens.js';

export const CALLBACK_RESOURCE = 'arn:aws:states:::lambda:invoke.waitForTaskToken';
/** What `$$.Task.Token` evaluates to in the library; each attempt replaces it with its own token. */
export const TOKEN_PLACEHOLDER = 'cloudorch-local-task-token-placeholder';

/** A Task handler: receives the state's effective input (a callback: its Payload), returns its result. */
export type TaskHandler = (input: unknown) => Promise<unknown>;

/** How one Task state runs, read from the definition. */
export interface TaskSpec {
  state: string;
  resource: string;
  /** The handler map key: the Resource, or a callback's Parameters.FunctionName. */
  handlerKey: string;
  callback: boolean;
  timeoutSeconds?: number;
  heartbeatSeconds?: number;
}

/** One step of a Task attempt, as GetExecutionHistory's task events report it. */
export type TaskCall = { state: string; resource: string; attempt: number; timestamp: number } & (
  | { phase: 'invoked'; input: unknown; timeoutSeconds?: number; heartbeatSeconds?: number }
  /** A callback's function returned; the task now waits for its token. */
  | { phase: 'submitted'; output: unknown }
  | { phase: 'succeeded'; output: unknown }
  | { phase: 'failed'; error: string; cause: string }
  | { phase: 'timedOut'; error: string; cause: string }
);

/** What one attempt needs from its run. */
export interface AttemptContext {
  spec: TaskSpec;
  handler: TaskHandler;
  tokens: TaskTokenStore;
  attempt: number;
  owner?: string;
  onTaskCall?: (call: TaskCall) => void;
  /** Registers how to abandon a waiting callback (run ended, Map failed); returns the unregister. */
  track: (abandon: () => void) => () => void;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Round-trips through JSON, as the Lambda invoke boundary does (Dates become strings, undefined null). */
export function asJson(value: unknown): Json {
  if (value === undefined) return null;
  return JSON.parse(JSON.stringify(value)) as Json;
}

/** Converts what a handler threw into what Lambda would report: errorType = error.name. */
export function toFunctionError(thrown: unknown): Error {
  const errorType = thrown instanceof Error ? thrown.name : 'Error';
  const errorMessage = thrown instanceof Error ? thrown.message : String(thrown);
  const trace = thrown instanceof Error && thrown.stack ? thrown.stack.split('\n') : [];
  const reported = new Error(JSON.stringify({ errorType, errorMessage, trace }));
  reported.name = errorType;
  return reported;
}

/**
 * The library's States.Timeout class, which it does not export: taken once from a 1 ms Task
 * timeout of a throwaway machine, at load time (before any test fakes the timers).
 */
const timeoutErrorClass: Promise<new () => Error> = (async () => {
  const definition = {
    StartAt: 'T',
    States: {
      T: {
        Type: 'Task',
        Resource: 'arn:aws:lambda:us-east-1:000000000000:function:t',
        TimeoutSeconds: 0.001,
        End: true,
      },
    },
  } as unknown as StateMachineDefinition;
  const probe = new StateMachine(definition, { validationOptions: { noValidate: true } });
  const never = () => new Promise<never>(() => {});
  const err = await probe.run(null, { overrides: { taskResourceLocalHandlers: { T: never } } }).result.then(
    () => undefined,
    (e: unknown) => (e instanceof ExecutionError ? e.cause : e),
  );
  if (!(err instanceof Error) || err.name !== 'States.Timeout')
    throw new Error('no States.Timeout from the library');
  return err.constructor as new () => Error;
})();
timeoutErrorClass.catch(() => {}); // a failure surfaces where a timeout awaits it, not at load

async function timeoutError(name: string): Promise<Error> {
  const err = new (await timeoutErrorClass)();
  err.name = name;
  err.message = name;
  return err;
}

/** Replaces the placeholder token in every string of `value`. */
function withToken(value: unknown, token: string): unknown {
  if (typeof value === 'string') return value.split(TOKEN_PLACEHOLDER).join(token);
  if (Array.isArray(value)) return value.map((v) => withToken(v, token));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withToken(v, token)]));
  }
  return value;
}

class DeadlinePassed extends Error {}

function record(ctx: AttemptContext, call: Record<string, unknown> & { phase: TaskCall['phase'] }): void {
  const base = {
    state: ctx.spec.state,
    resource: ctx.spec.resource,
    attempt: ctx.attempt,
    timestamp: Date.now(),
  };
  ctx.onTaskCall?.({ ...base, ...call } as TaskCall);
}

function invokedCall(ctx: AttemptContext, input: unknown): Record<string, unknown> & { phase: 'invoked' } {
  const { timeoutSeconds, heartbeatSeconds } = ctx.spec;
  return {
    phase: 'invoked',
    input,
    ...(timeoutSeconds !== undefined ? { timeoutSeconds } : {}),
    ...(heartbeatSeconds !== undefined ? { heartbeatSeconds } : {}),
  };
}

async function plainAttempt(ctx: AttemptContext, input: Json): Promise<Json> {
  record(ctx, invokedCall(ctx, input));
  let cancel = (): void => {};
  const deadline = new Promise<never>((_, reject) => {
    const s = ctx.spec.timeoutSeconds;
    if (s !== undefined) cancel = longTimer(s * 1000, () => reject(new DeadlinePassed()));
  });
  let result: Json;
  try {
    result = asJson(await Promise.race([ctx.handler(input), deadline]));
  } catch (thrown) {
    if (thrown instanceof DeadlinePassed) {
      record(ctx, { phase: 'timedOut', error: 'States.Timeout', cause: '' });
      throw await timeoutError('States.Timeout');
    }
    const reported = toFunctionError(thrown);
    record(ctx, { phase: 'failed', error: reported.name, cause: reported.message });
    throw reported;
  } finally {
    cancel();
  }
  record(ctx, { phase: 'succeeded', output: result });
  return result;
}

async function callbackAttempt(ctx: AttemptContext, input: Json): Promise<Json> {
  const { spec, tokens } = ctx;
  const { token, outcome } = tokens.openTask({
    ...(ctx.owner !== undefined ? { owner: ctx.owner } : {}),
    state: spec.state,
    functionName: spec.handlerKey,
    ...(spec.timeoutSeconds !== undefined ? { timeoutSeconds: spec.timeoutSeconds } : {}),
    ...(spec.heartbeatSeconds !== undefined ? { heartbeatSeconds: spec.heartbeatSeconds } : {}),
  });
  const untrack = ctx.track(() => tokens.close(token));
  try {
    const parameters = withToken(input, token) as Json;
    record(ctx, invokedCall(ctx, parameters));
    const payload =
      typeof parameters === 'object' && parameters !== null && !Array.isArray(parameters)
        ? parameters['Payload']
        : null;
    const invoked = (async (): Promise<never> => {
      const returned = asJson(await ctx.handler(asJson(payload)));
      if (tokens.isOpen(token)) record(ctx, { phase: 'submitted', output: returned });
      return new Promise<never>(() => {}); // the token decides, not the return value
    })();
    let ended: TaskOutcome;
    try {
      ended = await Promise.race([outcome, invoked]);
    } catch (thrown) {
      tokens.close(token);
      const reported = toFunctionError(thrown);
      record(ctx, { phase: 'failed', error: reported.name, cause: reported.message });
      throw reported;
    }
    return await settle(ctx, ended);
  } finally {
    untrack();
  }
}

/** What a closed callback attempt ends with; no Retry or Catch ever sees it. */
class TaskClosedError extends Error {
  override readonly name = 'TaskClosed';
}

async function settle(ctx: AttemptContext, ended: TaskOutcome): Promise<Json> {
  if (ended.kind === 'succeeded') {
    const output = asJson(ended.output);
    record(ctx, { phase: 'succeeded', output });
    return output;
  }
  if (ended.kind === 'timedOut') {
    record(ctx, { phase: 'timedOut', error: ended.error, cause: '' });
    throw await timeoutError(ended.error);
  }
  // Its execution or branch is gone: nothing reads this error; throwing just ends the attempt.
  if (ended.kind === 'closed') throw new TaskClosedError(`task ${ctx.spec.state} was closed`);
  record(ctx, { phase: 'failed', error: ended.error, cause: ended.cause });
  const failed = new Error(ended.cause);
  failed.name = ended.error;
  throw failed;
}

/** Runs one attempt of a Task; what it throws reaches the state's Retry and Catch. */
export function runAttempt(ctx: AttemptContext, input: unknown): Promise<Json> {
  const json = asJson(input);
  return ctx.spec.callback ? callbackAttempt(ctx, json) : plainAttempt(ctx, json);
}
