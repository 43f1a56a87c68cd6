/**
 * Runs an Amazon States Language definition in-process with aws-local-stepfunctions, Task states
 * served by local async handlers instead of Lambda.
 *
 * Handlers are looked up by the Task's `Resource` (the plain Lambda function ARN that
 * `LambdaInvoke({ payloadResponseOnly: true })` produces), or for a callback Task
 * (`arn:aws:states:::lambda:invoke.waitForTaskToken`) by its `Parameters.FunctionName`; task-run.ts
 * says how each runs and times out. A handler's thrown error reaches Retry/Catch the way a Lambda
 * function error does: its `name` is the error name matched by `ErrorEquals`, and the Cause is the
 * JSON `{errorType, errorMessage, trace}` Lambda reports.
 */
import {
  ExecutionAbortedError,
  ExecutionError,
  ExecutionTimeoutError,
  type RunOptions,
  StateMachine,
  type StateMachineDefinition,
} from 'aws-local-stepfunctions';
import {
  DefinitionError,
  LIBRARY_TASK_TIMEOUT_SECONDS,
  newWalk,
  prepareDefinition,
  type StateWalk,
} from './definition.js';
import {
  type AttemptContext,
  asJson,
  runAttempt,
  type TaskCall,
  type TaskHandler,
  TOKEN_PLACEHOLDER,
} from './task-run.js';
import { longTimer, TaskTokenStore } from './task-tokens.js';

export { DefinitionError } from './definition.js';
export type { TaskCall, TaskHandler } from './task-run.js';
export { TaskTokenStore } from './task-tokens.js';

/** One entry of the library's event log (StateEntered, StateRetried, StateCaught, ...). */
export type ExecutionEvent =
  ReturnType<StateMachine['run']>['eventLogs'] extends AsyncGenerator<infer E> ? E : never;

type Overrides = NonNullable<RunOptions['overrides']>;
type LocalHandlers = NonNullable<Overrides['taskResourceLocalHandlers']>;
type JsonValue = Parameters<LocalHandlers[string]>[0];

export interface InterpreterOptions {
  /**
   * Task `Resource` (a callback Task: its `Parameters.FunctionName`) -> handler. Every Task needs
   * one: nothing is ever sent to real Lambda.
   */
  handlers: ReadonlyMap<string, TaskHandler>;
  /** Where callback Tasks open their task tokens; share one to complete tokens of several machines. */
  taskTokens?: TaskTokenStore;
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

/** How an execution ended; mirrors DescribeExecution's status/output/error/cause. */
export type RunOutcome =
  | { status: 'SUCCEEDED'; output: unknown }
  | { status: 'FAILED'; error: string; cause: string }
  | { status: 'ABORTED' }
  | { status: 'TIMED_OUT' };

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

function nonNegative(name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
    throw new RangeError(`${name} must be a finite number >= 0, got ${value}`);
  }
}

/** The callback attempts one run is waiting on, so they can be abandoned when nobody waits anymore. */
interface RunScope {
  owner?: string;
  attempts: Set<{ state: string; abandon: () => void }>;
  count: number;
}

function newScope(owner?: string): RunScope {
  return { ...(owner !== undefined ? { owner } : {}), attempts: new Set(), count: 0 };
}

/** A definition checked and prepared once, run many times. */
export class LocalStateMachine {
  /** Where this machine's callback Tasks open their task tokens. */
  readonly taskTokens: TaskTokenStore;
  private readonly machine: StateMachine;
  private readonly walk: StateWalk;
  /** A top-level TimeoutSeconds the library's single setTimeout cannot hold; enforced here. */
  private readonly longExecutionTimeoutMs: number | undefined;

  constructor(
    definition: object | string,
    private readonly options: InterpreterOptions,
  ) {
    nonNegative('waitScale', options.waitScale);
    nonNegative('dynamicWaitMs', options.dynamicWaitMs);
    nonNegative('retryIntervalMs', options.retryIntervalMs);
    this.taskTokens = options.taskTokens ?? new TaskTokenStore();
    let parsed: unknown = definition;
    if (typeof definition === 'string') {
      try {
        parsed = JSON.parse(definition);
      } catch (e) {
        throw new DefinitionError(`definition is not JSON: ${(e as Error).message}`);
      }
    }
    this.walk = newWalk();
    const prepared = prepareDefinition(parsed, this.walk, 'definition', []);
    const top = prepared['TimeoutSeconds'];
    if (typeof top === 'number' && top > LIBRARY_TASK_TIMEOUT_SECONDS) {
      delete prepared['TimeoutSeconds']; // the library's timer would fire at once
      this.longExecutionTimeoutMs = top * 1000;
    }
    for (const spec of this.walk.tasks.values()) {
      if (!options.handlers.has(spec.handlerKey)) {
        const what = spec.callback ? 'FunctionName' : 'Resource';
        throw new DefinitionError(`no handler for Task ${spec.state} (${what} ${spec.handlerKey})`);
      }
    }
    try {
      // The library validates the definition as written with asl-validator (ARNs and paths
      // checked), then runs the prepared copy.
      new StateMachine(parsed as StateMachineDefinition);
      this.machine = new StateMachine(prepared as unknown as StateMachineDefinition, {
        validationOptions: { noValidate: true },
      });
    } catch (e) {
      throw new DefinitionError((e as Error).message);
    }
  }

  /** The library overrides this machine runs with; exported for inspection in tests. */
  overrides(signal?: AbortSignal, onTaskCall?: (call: TaskCall) => void, scope = newScope()): Overrides {
    const { handlers, waitScale = 1, dynamicWaitMs, retryIntervalMs } = this.options;
    const taskResourceLocalHandlers: LocalHandlers = {};
    for (const [state, spec] of this.walk.tasks) {
      const handler = handlers.get(spec.handlerKey)!;
      taskResourceLocalHandlers[state] = async (input: JsonValue): Promise<JsonValue> => {
        if (signal?.aborted) throw new AbortedBeforeInvoke('execution was stopped');
        const ctx: AttemptContext = {
          spec,
          handler,
          tokens: this.taskTokens,
          attempt: ++scope.count,
          track: (abandon) => {
            const entry = { state, abandon };
            scope.attempts.add(entry);
            return () => scope.attempts.delete(entry);
          },
          ...(scope.owner !== undefined ? { owner: scope.owner } : {}),
          ...(onTaskCall ? { onTaskCall } : {}),
        };
        return (await runAttempt(ctx, input)) as JsonValue;
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

  /**
   * A failed Map or Parallel aborts its other iterations or branches without telling their Tasks:
   * the callbacks they wait on are abandoned, so their tokens close.
   */
  private abandonInside(scope: RunScope, event: ExecutionEvent): void {
    if (event.type !== 'StateFailed' || (event.state.type !== 'Map' && event.state.type !== 'Parallel'))
      return;
    for (const entry of scope.attempts) {
      if (this.walk.enclosing.get(entry.state)?.has(event.state.name)) entry.abandon();
    }
  }

  /** Starts an execution; the promise settles with its outcome (it never rejects for ASL failures). */
  run(input: unknown, opts: RunOptionsLocal = {}): Promise<RunOutcome> {
    const { signal, context, onEvent, onTaskCall } = opts;
    if (signal?.aborted) return Promise.resolve({ status: 'ABORTED' });
    const scope = newScope(context?.Execution?.['Id']);
    const execution = this.machine.run(asJson(input), {
      overrides: this.overrides(signal, onTaskCall, scope),
      // `$$.Task.Token` evaluates to a placeholder each callback attempt replaces with its token.
      context: { ...context, Task: { Token: TOKEN_PLACEHOLDER } },
    });
    const abandonAll = (): void => {
      for (const entry of scope.attempts) entry.abandon();
    };
    let timedOut = false;
    const cancelTimeout =
      this.longExecutionTimeoutMs === undefined
        ? () => {}
        : longTimer(this.longExecutionTimeoutMs, () => {
            timedOut = true;
            execution.abort();
            abandonAll();
          });
    const onAbort = (): void => {
      execution.abort();
      abandonAll();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    void (async () => {
      for await (const event of execution.eventLogs) {
        this.abandonInside(scope, event);
        onEvent?.(event);
      }
    })();
    return execution.result
      .then(
        (output): RunOutcome => ({ status: 'SUCCEEDED', output }),
        (err: unknown): RunOutcome => {
          if (err instanceof ExecutionAbortedError) return { status: timedOut ? 'TIMED_OUT' : 'ABORTED' };
          if (err instanceof ExecutionTimeoutError) return { status: 'TIMED_OUT' };
          // ExecutionError wraps the state error: its name is the ASL error, its message the Cause.
          const inner = err instanceof ExecutionError && err.cause instanceof Error ? err.cause : err;
          if (inner instanceof Error) return { status: 'FAILED', error: inner.name, cause: inner.message };
          return { status: 'FAILED', error: 'States.Runtime', cause: String(inner) };
        },
      )
      .finally(() => {
        signal?.removeEventListener('abort', onAbort);
        cancelTimeout();
        abandonAll();
      });
  }
}
