/**
 * Runs an Amazon States Language definition in-process with aws-local-stepfunctions, Task states
 * served by local async handlers instead of Lambda.
 *
 * Handlers are looked up by the Task's `Resource` (the plain Lambda function ARN that
 * `LambdaInvoke({ payloadResponseOnly: true })` produces), so the definition runs unmodified. A
 * handler's thrown error reaches Retry/Catch the way a Lambda function error does: its `name` is
 * the error name matched by `ErrorEquals`, and the Cause is the JSON `{errorType, errorMessage,
 * trace}` Lambda reports.
 */
import {
  ExecutionAbortedError,
  ExecutionError,
  ExecutionTimeoutError,
  type RunOptions,
  StateMachine,
  type StateMachineDefinition,
} from 'aws-local-stepfunctions';

/** A Task handler: receives the state's effective input, returns its result (both JSON). */
export type TaskHandler = (input: unknown) => Promise<unknown>;

/** One entry of the library's event log (StateEntered, StateRetried, StateCaught, ...). */
export type ExecutionEvent =
  ReturnType<StateMachine['run']>['eventLogs'] extends AsyncGenerator<infer E> ? E : never;

type Overrides = NonNullable<RunOptions['overrides']>;
type LocalHandlers = NonNullable<Overrides['taskResourceLocalHandlers']>;
type JsonValue = Parameters<LocalHandlers[string]>[0];

export interface InterpreterOptions {
  /** Task `Resource` -> handler. Every Task state needs one: nothing is ever sent to real Lambda. */
  handlers: ReadonlyMap<string, TaskHandler>;
  /**
   * Multiplier for Wait states with a fixed `Seconds`: a wait of S seconds lasts S*1000*waitScale
   * ms. 1 (default) is real time. `SecondsPath`, `Timestamp` and `TimestampPath` waits are not
   * scaled: the library's override is a constant per state and cannot see the input; use
   * `dynamicWaitMs` to replace them with a constant.
   */
  waitScale?: number;
  /** When set, every `SecondsPath`/`Timestamp`/`TimestampPath` Wait lasts exactly this many ms. */
  dynamicWaitMs?: number;
  /**
   * When set, every retry waits this many ms: IntervalSeconds, BackoffRate and JitterStrategy FULL
   * no longer apply (the library adds no jitter to an override); MaxDelaySeconds still caps it.
   */
  retryIntervalMs?: number;
}

export interface RunOptionsLocal {
  /** Aborting it stops the execution (StopExecution): status ABORTED, no further handler calls. */
  signal?: AbortSignal;
  /** Fields merged into the Context object's `Execution` ($$.Execution.Id, Name, ...). */
  context?: { Execution?: Record<string, string>; StateMachine?: Record<string, string> };
  /** Called with every event as the library emits it. */
  onEvent?: (event: ExecutionEvent) => void;
  /** Called when a Task handler is invoked and when it settles; the library's log has neither. */
  onTaskCall?: (call: TaskCall) => void;
}

/** One Task handler invocation or its result, as GetExecutionHistory's task events report it. */
export type TaskCall = { state: string; resource: string; timestamp: number } & (
  | { phase: 'invoked'; input: unknown }
  | { phase: 'succeeded'; output: unknown }
  | { phase: 'failed'; error: string; cause: string }
);

/** How an execution ended; mirrors DescribeExecution's status/output/error/cause. */
export type RunOutcome =
  | { status: 'SUCCEEDED'; output: unknown }
  | { status: 'FAILED'; error: string; cause: string }
  | { status: 'ABORTED' }
  | { status: 'TIMED_OUT' };

/** The definition cannot run locally (invalid ASL, missing handler, ambiguous state name). */
export class DefinitionError extends Error {
  override readonly name = 'DefinitionError';
}

/**
 * Thrown instead of calling a handler once the execution was aborted. The library re-enters a
 * retried state after its backoff sleep even when that sleep ended because of an abort; this
 * error is neither retryable nor catchable (the library reads these two flags), so the stopped
 * execution never calls user code again.
 */
class AbortedBeforeInvoke extends Error {
  override readonly name = 'States.Runtime';
  readonly isRetryable = false;
  readonly isCatchable = false;
}

interface StateWalk {
  tasks: Map<string, string>; // state name -> Resource
  fixedWaits: Map<string, number>; // state name -> Seconds
  dynamicWaits: Set<string>;
  retryable: Set<string>;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Walks every state, including Parallel branches and Map iterators (the library keys overrides by state name). */
function walkStates(definition: unknown, acc: StateWalk, where: string): void {
  if (!isRecord(definition) || !isRecord(definition['States'])) {
    throw new DefinitionError(`${where}: a state machine needs a States object`);
  }
  for (const [name, state] of Object.entries(definition['States'])) {
    if (!isRecord(state)) throw new DefinitionError(`${where}: state ${name} is not an object`);
    const type = state['Type'];
    if (Array.isArray(state['Retry']) && state['Retry'].length > 0) acc.retryable.add(name);
    if (type === 'Task') {
      const resource = state['Resource'];
      if (typeof resource !== 'string') throw new DefinitionError(`Task ${name} has no Resource string`);
      const seen = acc.tasks.get(name);
      if (seen !== undefined && seen !== resource) {
        // Overrides are per state name across all branches; two Tasks sharing a name would share a handler.
        throw new DefinitionError(`Task name ${name} is used for two Resources (${seen}, ${resource})`);
      }
      acc.tasks.set(name, resource);
    } else if (type === 'Wait') {
      if (typeof state['Seconds'] === 'number') acc.fixedWaits.set(name, state['Seconds']);
      else acc.dynamicWaits.add(name);
    } else if (type === 'Parallel') {
      const branches = state['Branches'];
      if (!Array.isArray(branches)) throw new DefinitionError(`Parallel ${name} has no Branches`);
      branches.forEach((b, i) => {
        walkStates(b, acc, `${name}.Branches[${i}]`);
      });
    } else if (type === 'Map') {
      const inner = state['ItemProcessor'] ?? state['Iterator'];
      walkStates(inner, acc, `${name}.ItemProcessor`);
    }
  }
}

/** Round-trips through JSON, as the Lambda invoke boundary does (Dates become strings, undefined null). */
function asJson(value: unknown): JsonValue {
  if (value === undefined) return null;
  return JSON.parse(JSON.stringify(value)) as JsonValue;
}

/** Converts what a handler threw into what Lambda would report: errorType = error.name. */
function toFunctionError(thrown: unknown): Error {
  const errorType = thrown instanceof Error ? thrown.name : 'Error';
  const errorMessage = thrown instanceof Error ? thrown.message : String(thrown);
  const trace = thrown instanceof Error && thrown.stack ? thrown.stack.split('\n') : [];
  const reported = new Error(JSON.stringify({ errorType, errorMessage, trace }));
  reported.name = errorType;
  return reported;
}

function nonNegative(name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
    throw new RangeError(`${name} must be a finite number >= 0, got ${value}`);
  }
}

/** A definition checked and prepared once, run many times. */
export class LocalStateMachine {
  private readonly machine: StateMachine;
  private readonly walk: StateWalk;

  constructor(
    definition: object | string,
    private readonly options: InterpreterOptions,
  ) {
    nonNegative('waitScale', options.waitScale);
    nonNegative('dynamicWaitMs', options.dynamicWaitMs);
    nonNegative('retryIntervalMs', options.retryIntervalMs);
    let parsed: unknown = definition;
    if (typeof definition === 'string') {
      try {
        parsed = JSON.parse(definition);
      } catch (e) {
        throw new DefinitionError(`definition is not JSON: ${(e as Error).message}`);
      }
    }
    this.walk = { tasks: new Map(), fixedWaits: new Map(), dynamicWaits: new Set(), retryable: new Set() };
    walkStates(parsed, this.walk, 'definition');
    for (const [state, resource] of this.walk.tasks) {
      if (!options.handlers.has(resource)) {
        throw new DefinitionError(`no handler for Task ${state} (Resource ${resource})`);
      }
    }
    try {
      // The library validates with asl-validator (ARNs and paths checked).
      this.machine = new StateMachine(parsed as StateMachineDefinition);
    } catch (e) {
      throw new DefinitionError((e as Error).message);
    }
  }

  /** The library overrides this machine runs with; exported for inspection in tests. */
  overrides(signal?: AbortSignal, onTaskCall?: (call: TaskCall) => void): Overrides {
    const { handlers, waitScale = 1, dynamicWaitMs, retryIntervalMs } = this.options;
    const taskResourceLocalHandlers: LocalHandlers = {};
    for (const [state, resource] of this.walk.tasks) {
      const handler = handlers.get(resource)!;
      taskResourceLocalHandlers[state] = async (input: JsonValue): Promise<JsonValue> => {
        if (signal?.aborted) throw new AbortedBeforeInvoke('execution was stopped');
        const call = { state, resource };
        const json = asJson(input);
        onTaskCall?.({ ...call, timestamp: Date.now(), phase: 'invoked', input: json });
        let result: JsonValue;
        try {
          result = asJson(await handler(json));
        } catch (thrown) {
          const reported = toFunctionError(thrown);
          const failed = { error: reported.name, cause: reported.message };
          onTaskCall?.({ ...call, timestamp: Date.now(), phase: 'failed', ...failed });
          throw reported;
        }
        onTaskCall?.({ ...call, timestamp: Date.now(), phase: 'succeeded', output: result });
        return result;
      };
    }
    const overrides: Overrides = { taskResourceLocalHandlers };
    const waits: Record<string, number> = {};
    if (waitScale !== 1) {
      for (const [state, seconds] of this.walk.fixedWaits)
        waits[state] = Math.round(seconds * 1000 * waitScale);
    }
    if (dynamicWaitMs !== undefined) for (const state of this.walk.dynamicWaits) waits[state] = dynamicWaitMs;
    if (Object.keys(waits).length > 0) overrides.waitTimeOverrides = waits;
    if (retryIntervalMs !== undefined) {
      const retries: Record<string, number> = {};
      for (const state of this.walk.retryable) retries[state] = retryIntervalMs;
      overrides.retryIntervalOverrides = retries;
    }
    return overrides;
  }

  /** Starts an execution; the promise settles with its outcome (it never rejects for ASL failures). */
  run(input: unknown, opts: RunOptionsLocal = {}): Promise<RunOutcome> {
    const { signal, context, onEvent, onTaskCall } = opts;
    if (signal?.aborted) return Promise.resolve({ status: 'ABORTED' });
    const execution = this.machine.run(asJson(input), {
      overrides: this.overrides(signal, onTaskCall),
      ...(context ? { context } : {}),
    });
    const onAbort = (): void => execution.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    if (onEvent) {
      void (async () => {
        for await (const event of execution.eventLogs) onEvent(event);
      })();
    }
    return execution.result
      .then(
        (output): RunOutcome => ({ status: 'SUCCEEDED', output }),
        (err: unknown): RunOutcome => {
          if (err instanceof ExecutionAbortedError) return { status: 'ABORTED' };
          if (err instanceof ExecutionTimeoutError) return { status: 'TIMED_OUT' };
          // ExecutionError wraps the state error: its name is the ASL error, its message the Cause.
          const inner = err instanceof ExecutionError && err.cause instanceof Error ? err.cause : err;
          if (inner instanceof Error) return { status: 'FAILED', error: inner.name, cause: inner.message };
          return { status: 'FAILED', error: 'States.Runtime', cause: String(inner) };
        },
      )
      .finally(() => signal?.removeEventListener('abort', onAbort));
  }
}
