/**
 * The execution registry: the configured state machines and every execution they ran, with the
 * bounds that keep a long `cloudorch dev` session's memory flat. It owns the one transition out of
 * RUNNING, so the API operations, `close()` and the in-process helpers all agree on an outcome.
 */
import {
  type ExecutionEvent,
  type InterpreterOptions,
  LocalStateMachine,
  type RunOutcome,
  type TaskCall,
  type TaskHandler,
} from './interpreter.js';
import { checkExecutionName, EXECUTION_ARN, STATE_MACHINE_ARN } from './names.js';
import { TaskTokenStore } from './task-tokens.js';
import { SfnServiceError } from './wire.js';

export type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';

export interface LocalStateMachineConfig {
  /** `arn:aws:states:<region>:<account>:stateMachine:<name>`; region and account name its executions. */
  arn: string;
  definition: object | string;
  /** Task `Resource` (Lambda function ARN; a callback Task's FunctionName) -> in-process handler. */
  handlers: ReadonlyMap<string, TaskHandler>;
  /** Per-machine overrides of the endpoint-wide timing options. */
  waitScale?: number;
  dynamicWaitMs?: number;
  retryIntervalMs?: number;
}

export interface ExecutionRegistryOptions {
  stateMachines: readonly LocalStateMachineConfig[];
  waitScale?: number;
  dynamicWaitMs?: number;
  retryIntervalMs?: number;
  /** Closed executions kept for name-reuse checks and Describe/List; the oldest are dropped first. */
  maxClosedExecutions?: number;
  /** Events kept per execution for `events()`; the oldest are dropped first. */
  maxEventsPerExecution?: number;
  /** Closed executions whose event log is kept (newest first); older ones drop their log. */
  maxClosedEventLogs?: number;
}

/** What DescribeExecution reports, as in-process values. */
export interface ExecutionSnapshot {
  executionArn: string;
  stateMachineArn: string;
  name: string;
  status: ExecutionStatus;
  input: string;
  output?: string;
  error?: string;
  cause?: string;
  startDate: Date;
  stopDate?: Date;
}

export interface ExecutionCounts {
  started: number;
  running: number;
  succeeded: number;
  failed: number;
  timedOut: number;
  aborted: number;
}

export interface MachineEntry {
  arn: string;
  partition: string;
  region: string;
  account: string;
  name: string;
  /** The definition as the endpoint runs it, for DescribeStateMachine. */
  definition: string;
  /** When the endpoint was configured with it (epoch ms). */
  createdMs: number;
  machine: LocalStateMachine;
}

/** What GetExecutionHistory reads: the library's events and the Task calls it cannot see. */
export interface ExecutionLog {
  events: readonly ExecutionEvent[];
  calls: readonly TaskCall[];
}

interface ExecutionRecord {
  /** Start order; list pages and their tokens are cut on it. */
  seq: number;
  machine: MachineEntry;
  arn: string;
  name: string;
  input: string;
  status: ExecutionStatus;
  startMs: number;
  stopMs?: number;
  output?: string;
  error?: string;
  cause?: string;
  abort: AbortController;
  done: Promise<void>;
  markDone: () => void;
  events: ExecutionEvent[] | 'dropped';
  calls: TaskCall[];
}

/** An execution as the API operations read it; only the registry changes one. */
export type Execution = Readonly<Omit<ExecutionRecord, 'abort' | 'done' | 'markDone' | 'events' | 'calls'>>;

export function snapshot(r: Execution): ExecutionSnapshot {
  return {
    executionArn: r.arn,
    stateMachineArn: r.machine.arn,
    name: r.name,
    status: r.status,
    input: r.input,
    ...(r.output !== undefined ? { output: r.output } : {}),
    ...(r.error !== undefined ? { error: r.error } : {}),
    ...(r.cause !== undefined ? { cause: r.cause } : {}),
    startDate: new Date(r.startMs),
    ...(r.stopMs !== undefined ? { stopDate: new Date(r.stopMs) } : {}),
  };
}

function machineEntry(
  sm: LocalStateMachineConfig,
  options: ExecutionRegistryOptions,
  taskTokens: TaskTokenStore,
): MachineEntry {
  const m = STATE_MACHINE_ARN.exec(sm.arn);
  if (!m) throw new RangeError(`not a state machine ARN: ${sm.arn}`);
  const [, partition, region, account, name] = m as unknown as [string, string, string, string, string];
  checkExecutionName(name); // state machine names follow the same character rules
  const interpreterOptions: InterpreterOptions = { handlers: sm.handlers, taskTokens };
  const waitScale = sm.waitScale ?? options.waitScale;
  const dynamicWaitMs = sm.dynamicWaitMs ?? options.dynamicWaitMs;
  const retryIntervalMs = sm.retryIntervalMs ?? options.retryIntervalMs;
  if (waitScale !== undefined) interpreterOptions.waitScale = waitScale;
  if (dynamicWaitMs !== undefined) interpreterOptions.dynamicWaitMs = dynamicWaitMs;
  if (retryIntervalMs !== undefined) interpreterOptions.retryIntervalMs = retryIntervalMs;
  const machine = new LocalStateMachine(sm.definition, interpreterOptions);
  const definition = typeof sm.definition === 'string' ? sm.definition : JSON.stringify(sm.definition);
  return { arn: sm.arn, partition, region, account, name, definition, createdMs: Date.now(), machine };
}

function executionDoesNotExist(arn: string): SfnServiceError {
  return new SfnServiceError('ExecutionDoesNotExist', `Execution Does Not Exist: '${arn}'`);
}

export class ExecutionRegistry {
  /** Every machine's callback task tokens: SendTaskSuccess, SendTaskFailure, SendTaskHeartbeat. */
  readonly taskTokens = new TaskTokenStore();
  private readonly machines = new Map<string, MachineEntry>();
  // Insertion order is start order, so the first closed entries are the oldest.
  private readonly records = new Map<string, ExecutionRecord>();
  private readonly closedWithLogs: ExecutionRecord[] = [];
  private readonly totals = { started: 0, succeeded: 0, failed: 0, timedOut: 0, aborted: 0 };
  private readonly idleWaiters = new Set<() => void>();
  private readonly maxClosed: number;
  private readonly maxEvents: number;
  private readonly maxClosedLogs: number;
  private seq = 0;
  private closed = 0;

  constructor(options: ExecutionRegistryOptions) {
    this.maxClosed = options.maxClosedExecutions ?? 10_000;
    this.maxEvents = options.maxEventsPerExecution ?? 5_000;
    this.maxClosedLogs = options.maxClosedEventLogs ?? 200;
    for (const sm of options.stateMachines) {
      const entry = machineEntry(sm, options, this.taskTokens);
      if (this.machines.has(sm.arn)) throw new RangeError(`state machine ${sm.arn} is configured twice`);
      this.machines.set(sm.arn, entry);
    }
  }

  /** A configured machine, or the error the API reports for its ARN. */
  machine(arn: string): MachineEntry {
    if (!STATE_MACHINE_ARN.test(arn)) throw new SfnServiceError('InvalidArn', `Invalid Arn: '${arn}'`);
    const m = this.machines.get(arn);
    if (!m) throw new SfnServiceError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${arn}'`);
    return m;
  }

  /** A kept execution, or the error the API reports for its ARN. */
  execution(arn: string): Execution {
    if (!EXECUTION_ARN.test(arn)) throw new SfnServiceError('InvalidArn', `Invalid Arn: '${arn}'`);
    return this.record(arn);
  }

  /** Kept executions, newest first, optionally of one machine and one status. */
  list(filter: { stateMachineArn?: string; status?: string } = {}): Execution[] {
    return [...this.records.values()]
      .filter(
        (r) =>
          (filter.stateMachineArn === undefined || r.machine.arn === filter.stateMachineArn) &&
          (filter.status === undefined || r.status === filter.status),
      )
      .sort((a, b) => b.seq - a.seq);
  }

  /**
   * Starts `name` on `sm` with `input` (already validated; `parsedInput` is its JSON value).
   * Standard workflows: same name + same input while RUNNING is the same start; anything else
   * with a kept name is a conflict.
   */
  start(sm: MachineEntry, name: string, input: string, parsedInput: unknown): Execution {
    const arn = `arn:${sm.partition}:states:${sm.region}:${sm.account}:execution:${sm.name}:${name}`;
    const existing = this.records.get(arn);
    if (existing) {
      if (existing.status === 'RUNNING' && existing.input === input) return existing;
      throw new SfnServiceError('ExecutionAlreadyExists', `Execution Already Exists: '${arn}'`);
    }
    const r: ExecutionRecord = {
      seq: ++this.seq,
      machine: sm,
      arn,
      name,
      input,
      status: 'RUNNING',
      startMs: Date.now(),
      abort: new AbortController(),
      done: Promise.resolve(),
      markDone: () => {},
      events: [],
      calls: [],
    };
    r.done = new Promise<void>((resolve) => {
      r.markDone = resolve;
    });
    this.records.set(arn, r);
    this.totals.started++;
    this.run(r, parsedInput);
    return r;
  }

  /** Aborts a RUNNING execution; a closed one keeps its status and stop time. */
  stop(execution: Execution, error?: string, cause?: string): void {
    this.finish(this.record(execution.arn), { status: 'ABORTED' }, error, cause);
  }

  /** Aborts every RUNNING execution with `cause` (the endpoint is closing). */
  abortAll(cause: string): void {
    for (const r of this.records.values()) this.finish(r, { status: 'ABORTED' }, undefined, cause);
  }

  counts(): ExecutionCounts {
    return { ...this.totals, running: this.running() };
  }

  async waitForExecution(arn: string): Promise<ExecutionSnapshot> {
    const r = this.record(arn);
    await r.done;
    return snapshot(r);
  }

  waitForIdle(): Promise<void> {
    if (this.running() === 0) return Promise.resolve();
    return new Promise<void>((resolve) => this.idleWaiters.add(resolve));
  }

  /** The interpreter's event log of one execution; a RangeError once it was dropped to bound memory. */
  events(arn: string): readonly ExecutionEvent[] {
    const r = this.record(arn);
    if (r.events === 'dropped') {
      throw new RangeError(
        `the event log of ${arn} was dropped: only the newest ${this.maxClosedLogs} closed executions keep theirs`,
      );
    }
    return [...r.events];
  }

  /** Configured machines in configuration order. */
  machineList(): MachineEntry[] {
    return [...this.machines.values()];
  }

  /** Both logs of one execution, or undefined once they were dropped to bound memory. */
  log(execution: Execution): ExecutionLog | undefined {
    const r = this.record(execution.arn);
    return r.events === 'dropped' ? undefined : { events: [...r.events], calls: [...r.calls] };
  }

  private record(arn: string): ExecutionRecord {
    const r = this.records.get(arn);
    if (!r) throw executionDoesNotExist(arn);
    return r;
  }

  private running(): number {
    const t = this.totals;
    return t.started - t.succeeded - t.failed - t.timedOut - t.aborted;
  }

  private run(r: ExecutionRecord, parsedInput: unknown): void {
    const sm = r.machine;
    sm.machine
      .run(parsedInput, {
        signal: r.abort.signal,
        context: {
          Execution: { Id: r.arn, Name: r.name, StartTime: new Date(r.startMs).toISOString() },
          StateMachine: { Id: sm.arn, Name: sm.name },
        },
        onEvent: (event) => {
          if (r.events === 'dropped') return;
          r.events.push(event);
          if (r.events.length > this.maxEvents) r.events.shift();
        },
        onTaskCall: (call) => {
          if (r.events === 'dropped') return;
          r.calls.push(call);
          if (r.calls.length > this.maxEvents) r.calls.shift();
        },
      })
      .then(
        (outcome) => this.finish(r, outcome),
        // run() settles with an outcome; a rejection is an interpreter bug, reported as such.
        (e: unknown) => this.finish(r, { status: 'FAILED', error: 'States.Runtime', cause: String(e) }),
      );
  }

  /** The one place an execution leaves RUNNING; later outcomes (a run ending after StopExecution) are ignored. */
  private finish(r: ExecutionRecord, outcome: RunOutcome, error?: string, cause?: string): void {
    if (r.status !== 'RUNNING') return;
    r.status = outcome.status;
    r.stopMs = Date.now();
    if (outcome.status === 'SUCCEEDED') {
      r.output = JSON.stringify(outcome.output ?? null);
      this.totals.succeeded++;
    } else if (outcome.status === 'FAILED') {
      r.error = outcome.error;
      r.cause = outcome.cause;
      this.totals.failed++;
    } else if (outcome.status === 'TIMED_OUT') {
      this.totals.timedOut++;
    } else {
      if (error !== undefined) r.error = error;
      if (cause !== undefined) r.cause = cause;
      this.totals.aborted++;
    }
    r.abort.abort();
    this.taskTokens.closeOwner(r.arn); // a closed execution waits for no callback
    r.markDone();
    this.closedWithLogs.push(r);
    while (this.closedWithLogs.length > this.maxClosedLogs) {
      const old = this.closedWithLogs.shift()!;
      old.events = 'dropped';
      old.calls = [];
    }
    this.closed++;
    this.evictClosed();
    if (this.running() === 0) {
      for (const w of this.idleWaiters) w();
      this.idleWaiters.clear();
    }
  }

  private evictClosed(): void {
    if (this.closed <= this.maxClosed) return;
    for (const [arn, r] of this.records) {
      if (this.closed <= this.maxClosed) break;
      if (r.status !== 'RUNNING') {
        this.records.delete(arn);
        this.closed--;
      }
    }
  }
}
