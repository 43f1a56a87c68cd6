/**
 * A local Step Functions endpoint: StartExecution, DescribeExecution, ListExecutions and
 * StopExecution over the AWS JSON 1.0 protocol, with Standard workflows' execution-name rules, so
 * an unmodified `SFNClient({ endpoint })` drives definitions run by the local interpreter.
 * Everything else answers UnknownOperationException: nothing is faked.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { refuseBrowserRequests } from '../runtime/browser-guard.js';
import {
  type ExecutionEvent,
  type InterpreterOptions,
  LocalStateMachine,
  type RunOutcome,
  type TaskHandler,
} from './interpreter.js';

export type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED';
const STATUSES: readonly string[] = [
  'RUNNING',
  'SUCCEEDED',
  'FAILED',
  'TIMED_OUT',
  'ABORTED',
  'PENDING_REDRIVE',
];

export type SfnErrorCode =
  | 'ExecutionAlreadyExists'
  | 'ExecutionDoesNotExist'
  | 'InvalidArn'
  | 'InvalidExecutionInput'
  | 'InvalidName'
  | 'InvalidToken'
  | 'StateMachineDoesNotExist'
  | 'ValidationException'
  | 'SerializationException'
  | 'UnknownOperationException'
  | 'InternalFailure';

/** A Step Functions API error, sent as `{"__type": code, "message": ...}`. */
export class SfnServiceError extends Error {
  override readonly name = 'SfnServiceError';
  constructor(
    readonly code: SfnErrorCode,
    message: string,
    readonly httpStatus = 400,
  ) {
    super(message);
  }
}

export interface LocalStateMachineConfig {
  /** `arn:aws:states:<region>:<account>:stateMachine:<name>`; region and account name its executions. */
  arn: string;
  definition: object | string;
  /** Task `Resource` (Lambda function ARN) -> in-process handler. */
  handlers: ReadonlyMap<string, TaskHandler>;
  /** Per-machine overrides of the endpoint-wide timing options. */
  waitScale?: number;
  dynamicWaitMs?: number;
  retryIntervalMs?: number;
}

export interface LocalSfnEndpointOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Loopback only: 127.0.0.1 (default), ::1 or localhost. */
  host?: string;
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

export interface LocalSfnEndpoint {
  url: string;
  /** Aborts running executions (ABORTED, cause "endpoint closed") and stops listening. */
  close(): Promise<void>;
  /** Executions, newest first, optionally filtered. */
  executions(filter?: { stateMachineArn?: string; status?: ExecutionStatus }): ExecutionSnapshot[];
  counts(): ExecutionCounts;
  /** Resolves with the execution's final snapshot once it is no longer RUNNING. */
  waitForExecution(executionArn: string): Promise<ExecutionSnapshot>;
  /** Resolves once no execution is RUNNING. */
  waitForIdle(): Promise<void>;
  /**
   * The interpreter's event log of one execution (StateEntered, StateRetried, StateCaught, ...).
   * Throws a RangeError when the log was dropped to bound memory.
   */
  events(executionArn: string): readonly ExecutionEvent[];
}

interface MachineEntry {
  arn: string;
  partition: string;
  region: string;
  account: string;
  name: string;
  machine: LocalStateMachine;
}

interface ExecutionRecord {
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
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
const MAX_BODY_BYTES = 1024 * 1024;
const MAX_INPUT_BYTES = 256 * 1024;
const TARGET_PREFIX = 'AWSStepFunctions.';
const CONTENT_TYPE = 'application/x-amz-json-1.0';
const STATE_MACHINE_ARN = /^arn:(aws[a-z-]*):states:([a-z0-9-]+):(\d{12}):stateMachine:([^:]+)$/;
const EXECUTION_ARN = /^arn:(aws[a-z-]*):states:([a-z0-9-]+):(\d{12}):execution:([^:]+):([^:]+)$/;
// Characters AWS forbids in execution names (API reference, StartExecution `name`): whitespace,
// < > { } [ ] ? * " # % \ ^ | ~ ` $ & , ; : /, plus the code points checked in badCodePoint.
const FORBIDDEN_NAME_CHARS = /[\s<>{}[\]?*"#%\\^|~`$&,;:/]/;

/** Control characters (U+0000-001F, U+007F-009F), U+FFFE-FFFF, lone surrogates and U+10FFFF. */
function badCodePoint(name: string): boolean {
  for (const ch of name) {
    const c = ch.codePointAt(0)!;
    if (c <= 0x1f || (c >= 0x7f && c <= 0x9f) || c === 0xfffe || c === 0xffff || c === 0x10ffff) return true;
    if (c >= 0xd800 && c <= 0xdfff) return true;
  }
  return false;
}

/** Validates an execution name as StartExecution does: length first (ValidationException), then characters (InvalidName). */
export function checkExecutionName(name: string): void {
  if (name.length < 1 || name.length > 80) {
    throw new SfnServiceError(
      'ValidationException',
      `1 validation error detected: Value '${name}' at 'name' failed to satisfy constraint: Member must have length between 1 and 80`,
    );
  }
  if (FORBIDDEN_NAME_CHARS.test(name) || badCodePoint(name))
    throw new SfnServiceError('InvalidName', `Invalid Name: '${name}'`);
}

function toEpochSeconds(ms: number): number {
  return ms / 1000;
}

function snapshot(r: ExecutionRecord): ExecutionSnapshot {
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

type Body = Record<string, unknown>;

function optionalString(body: Body, field: string): string | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new SfnServiceError('SerializationException', `${field} must be a string`);
  return v;
}

function requiredString(body: Body, field: string): string {
  const v = optionalString(body, field);
  if (v === undefined) {
    throw new SfnServiceError(
      'ValidationException',
      `1 validation error detected: Value null at '${field}' failed to satisfy constraint: Member must not be null`,
    );
  }
  return v;
}

function maxLength(field: string, value: string | undefined, max: number): void {
  if (value !== undefined && value.length > max) {
    throw new SfnServiceError(
      'ValidationException',
      `1 validation error detected: Value at '${field}' failed to satisfy constraint: Member must have length less than or equal to ${max}`,
    );
  }
}

interface PageToken {
  sm: string;
  status: string | null;
  before: number;
}

function encodeToken(t: PageToken): string {
  return Buffer.from(JSON.stringify(t)).toString('base64url');
}

function decodeToken(token: string): PageToken {
  try {
    const t = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as Partial<PageToken>;
    if (
      typeof t.sm === 'string' &&
      typeof t.before === 'number' &&
      (t.status === null || typeof t.status === 'string')
    ) {
      return { sm: t.sm, status: t.status, before: t.before };
    }
  } catch {
    // fall through: any undecodable token is InvalidToken
  }
  throw new SfnServiceError('InvalidToken', `Invalid Token: '${token}'`);
}

export async function startLocalSfnEndpoint(options: LocalSfnEndpointOptions): Promise<LocalSfnEndpoint> {
  const host = options.host ?? '127.0.0.1';
  if (!LOOPBACK.has(host))
    throw new RangeError(`the local Step Functions endpoint binds loopback only, not ${host}`);
  const maxClosed = options.maxClosedExecutions ?? 10_000;
  const maxEvents = options.maxEventsPerExecution ?? 5_000;
  const maxClosedLogs = options.maxClosedEventLogs ?? 200;
  const closedWithLogs: ExecutionRecord[] = [];

  const machines = new Map<string, MachineEntry>();
  for (const sm of options.stateMachines) {
    const m = STATE_MACHINE_ARN.exec(sm.arn);
    if (!m) throw new RangeError(`not a state machine ARN: ${sm.arn}`);
    const [, partition, region, account, name] = m as unknown as [string, string, string, string, string];
    checkExecutionName(name); // state machine names follow the same character rules
    if (machines.has(sm.arn)) throw new RangeError(`state machine ${sm.arn} is configured twice`);
    const interpreterOptions: InterpreterOptions = { handlers: sm.handlers };
    const waitScale = sm.waitScale ?? options.waitScale;
    const dynamicWaitMs = sm.dynamicWaitMs ?? options.dynamicWaitMs;
    const retryIntervalMs = sm.retryIntervalMs ?? options.retryIntervalMs;
    if (waitScale !== undefined) interpreterOptions.waitScale = waitScale;
    if (dynamicWaitMs !== undefined) interpreterOptions.dynamicWaitMs = dynamicWaitMs;
    if (retryIntervalMs !== undefined) interpreterOptions.retryIntervalMs = retryIntervalMs;
    machines.set(sm.arn, {
      arn: sm.arn,
      partition,
      region,
      account,
      name,
      machine: new LocalStateMachine(sm.definition, interpreterOptions),
    });
  }

  // Insertion order is start order, so the first closed entries are the oldest.
  const records = new Map<string, ExecutionRecord>();
  let seq = 0;
  let closed = 0;
  const totals = { started: 0, succeeded: 0, failed: 0, timedOut: 0, aborted: 0 };
  const idleWaiters = new Set<() => void>();
  const running = (): number =>
    totals.started - totals.succeeded - totals.failed - totals.timedOut - totals.aborted;

  function evictClosed(): void {
    if (closed <= maxClosed) return;
    for (const [arn, r] of records) {
      if (closed <= maxClosed) break;
      if (r.status !== 'RUNNING') {
        records.delete(arn);
        closed--;
      }
    }
  }

  /** The one place an execution leaves RUNNING; later outcomes (a run ending after StopExecution) are ignored. */
  function finish(r: ExecutionRecord, outcome: RunOutcome, error?: string, cause?: string): void {
    if (r.status !== 'RUNNING') return;
    r.status = outcome.status;
    r.stopMs = Date.now();
    if (outcome.status === 'SUCCEEDED') {
      r.output = JSON.stringify(outcome.output ?? null);
      totals.succeeded++;
    } else if (outcome.status === 'FAILED') {
      r.error = outcome.error;
      r.cause = outcome.cause;
      totals.failed++;
    } else if (outcome.status === 'TIMED_OUT') {
      totals.timedOut++;
    } else {
      if (error !== undefined) r.error = error;
      if (cause !== undefined) r.cause = cause;
      totals.aborted++;
    }
    r.abort.abort();
    r.markDone();
    closedWithLogs.push(r);
    while (closedWithLogs.length > maxClosedLogs) closedWithLogs.shift()!.events = 'dropped';
    closed++;
    evictClosed();
    if (running() === 0) {
      for (const w of idleWaiters) w();
      idleWaiters.clear();
    }
  }

  function machineFor(arn: string): MachineEntry {
    if (!STATE_MACHINE_ARN.test(arn)) throw new SfnServiceError('InvalidArn', `Invalid Arn: '${arn}'`);
    const m = machines.get(arn);
    if (!m) throw new SfnServiceError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${arn}'`);
    return m;
  }

  function executionFor(arn: string): ExecutionRecord {
    if (!EXECUTION_ARN.test(arn)) throw new SfnServiceError('InvalidArn', `Invalid Arn: '${arn}'`);
    const r = records.get(arn);
    if (!r) throw new SfnServiceError('ExecutionDoesNotExist', `Execution Does Not Exist: '${arn}'`);
    return r;
  }

  function startExecution(body: Body): Body {
    const sm = machineFor(requiredString(body, 'stateMachineArn'));
    const name = optionalString(body, 'name') ?? randomUUID();
    checkExecutionName(name);
    const input = optionalString(body, 'input') ?? '{}';
    if (Buffer.byteLength(input, 'utf8') > MAX_INPUT_BYTES) {
      throw new SfnServiceError('ValidationException', `input exceeds ${MAX_INPUT_BYTES} bytes`);
    }
    let parsedInput: unknown;
    try {
      parsedInput = JSON.parse(input);
    } catch (e) {
      throw new SfnServiceError(
        'InvalidExecutionInput',
        `Invalid State Machine Execution Input: '${(e as Error).message}'`,
      );
    }
    const arn = `arn:${sm.partition}:states:${sm.region}:${sm.account}:execution:${sm.name}:${name}`;
    const existing = records.get(arn);
    if (existing) {
      // Standard workflows: same name + same input while RUNNING is the same start; anything else is a conflict.
      if (existing.status === 'RUNNING' && existing.input === input) {
        return { executionArn: arn, startDate: toEpochSeconds(existing.startMs) };
      }
      throw new SfnServiceError('ExecutionAlreadyExists', `Execution Already Exists: '${arn}'`);
    }
    const r: ExecutionRecord = {
      seq: ++seq,
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
    };
    r.done = new Promise<void>((resolve) => {
      r.markDone = resolve;
    });
    records.set(arn, r);
    totals.started++;
    sm.machine
      .run(parsedInput, {
        signal: r.abort.signal,
        context: {
          Execution: { Id: arn, Name: name, StartTime: new Date(r.startMs).toISOString() },
          StateMachine: { Id: sm.arn, Name: sm.name },
        },
        onEvent: (event) => {
          if (r.events === 'dropped') return;
          r.events.push(event);
          if (r.events.length > maxEvents) r.events.shift();
        },
      })
      .then(
        (outcome) => finish(r, outcome),
        // run() settles with an outcome; a rejection is an interpreter bug, reported as such.
        (e: unknown) => finish(r, { status: 'FAILED', error: 'States.Runtime', cause: String(e) }),
      );
    return { executionArn: arn, startDate: toEpochSeconds(r.startMs) };
  }

  function describeExecution(body: Body): Body {
    const r = executionFor(requiredString(body, 'executionArn'));
    const s = snapshot(r);
    return {
      executionArn: s.executionArn,
      stateMachineArn: s.stateMachineArn,
      name: s.name,
      status: s.status,
      startDate: toEpochSeconds(r.startMs),
      ...(r.stopMs !== undefined ? { stopDate: toEpochSeconds(r.stopMs) } : {}),
      input: s.input,
      inputDetails: { included: true },
      ...(s.output !== undefined ? { output: s.output, outputDetails: { included: true } } : {}),
      ...(s.error !== undefined ? { error: s.error } : {}),
      ...(s.cause !== undefined ? { cause: s.cause } : {}),
    };
  }

  function listExecutions(body: Body): Body {
    if (body['mapRunArn'] !== undefined) {
      throw new SfnServiceError(
        'ValidationException',
        'mapRunArn is not supported: no Distributed Map runs locally',
      );
    }
    const sm = machineFor(requiredString(body, 'stateMachineArn'));
    const statusFilter = optionalString(body, 'statusFilter') ?? null;
    if (statusFilter !== null && !STATUSES.includes(statusFilter)) {
      throw new SfnServiceError(
        'ValidationException',
        `Value '${statusFilter}' at 'statusFilter' is not valid`,
      );
    }
    const redriveFilter = optionalString(body, 'redriveFilter');
    if (redriveFilter !== undefined && redriveFilter !== 'REDRIVEN' && redriveFilter !== 'NOT_REDRIVEN') {
      throw new SfnServiceError(
        'ValidationException',
        `Value '${redriveFilter}' at 'redriveFilter' is not valid`,
      );
    }
    const maxResultsRaw = body['maxResults'] ?? 0;
    if (
      typeof maxResultsRaw !== 'number' ||
      !Number.isInteger(maxResultsRaw) ||
      maxResultsRaw < 0 ||
      maxResultsRaw > 1000
    ) {
      throw new SfnServiceError('ValidationException', 'maxResults must be an integer between 0 and 1000');
    }
    const pageSize = maxResultsRaw === 0 ? 100 : maxResultsRaw;
    const tokenRaw = optionalString(body, 'nextToken');
    let before = Number.POSITIVE_INFINITY;
    if (tokenRaw !== undefined) {
      const t = decodeToken(tokenRaw);
      if (t.sm !== sm.arn || t.status !== statusFilter) {
        throw new SfnServiceError('InvalidToken', 'Invalid Token: the arguments differ from the first call');
      }
      before = t.before;
    }
    // Nothing is ever redriven locally: REDRIVEN matches none, NOT_REDRIVEN all.
    const matching =
      redriveFilter === 'REDRIVEN'
        ? []
        : [...records.values()]
            .filter(
              (r) =>
                r.machine === sm && r.seq < before && (statusFilter === null || r.status === statusFilter),
            )
            .sort((a, b) => b.seq - a.seq);
    const page = matching.slice(0, pageSize);
    const last = page.at(-1);
    return {
      executions: page.map((r) => ({
        executionArn: r.arn,
        stateMachineArn: sm.arn,
        name: r.name,
        status: r.status,
        startDate: toEpochSeconds(r.startMs),
        ...(r.stopMs !== undefined ? { stopDate: toEpochSeconds(r.stopMs) } : {}),
      })),
      ...(matching.length > pageSize && last
        ? { nextToken: encodeToken({ sm: sm.arn, status: statusFilter, before: last.seq }) }
        : {}),
    };
  }

  function stopExecution(body: Body): Body {
    const r = executionFor(requiredString(body, 'executionArn'));
    const error = optionalString(body, 'error');
    const cause = optionalString(body, 'cause');
    maxLength('error', error, 256);
    maxLength('cause', cause, 32768);
    // A closed execution keeps its status; the call reports when it stopped.
    finish(r, { status: 'ABORTED' }, error, cause);
    return { stopDate: toEpochSeconds(r.stopMs!) };
  }

  const operations: Record<string, (body: Body) => Body> = {
    StartExecution: startExecution,
    DescribeExecution: describeExecution,
    ListExecutions: listExecutions,
    StopExecution: stopExecution,
  };

  async function readBody(req: IncomingMessage): Promise<string> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      const b = chunk as Buffer;
      size += b.length;
      if (size > MAX_BODY_BYTES) throw new SfnServiceError('ValidationException', 'request body too large');
      chunks.push(b);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  function send(res: ServerResponse, status: number, payload: Body): void {
    const text = JSON.stringify(payload);
    res.writeHead(status, {
      'content-type': CONTENT_TYPE,
      'content-length': Buffer.byteLength(text),
      'x-amzn-requestid': randomUUID(),
    });
    res.end(text);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const target = req.headers['x-amz-target'];
      const op =
        typeof target === 'string' && target.startsWith(TARGET_PREFIX)
          ? target.slice(TARGET_PREFIX.length)
          : '';
      const operation = req.method === 'POST' ? operations[op] : undefined;
      if (!operation) {
        throw new SfnServiceError(
          'UnknownOperationException',
          `Operation '${op || String(target)}' is not implemented by the local Step Functions endpoint`,
        );
      }
      const raw = await readBody(req);
      let body: unknown;
      try {
        body = raw === '' ? {} : JSON.parse(raw);
      } catch {
        throw new SfnServiceError('SerializationException', 'request body is not JSON');
      }
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw new SfnServiceError('SerializationException', 'request body must be a JSON object');
      }
      send(res, 200, operation(body as Body));
    } catch (e) {
      const err =
        e instanceof SfnServiceError ? e : new SfnServiceError('InternalFailure', (e as Error).message, 500);
      send(res, err.httpStatus, { __type: err.code, message: err.message });
    }
  }

  const server = createServer((req, res) => {
    void handle(req, res);
  });
  refuseBrowserRequests(server, 'the local Step Functions endpoint');
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  return {
    url: `http://${urlHost}:${address.port}`,
    async close() {
      for (const r of records.values()) finish(r, { status: 'ABORTED' }, undefined, 'endpoint closed');
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
    executions(filter = {}) {
      return [...records.values()]
        .filter(
          (r) =>
            (filter.stateMachineArn === undefined || r.machine.arn === filter.stateMachineArn) &&
            (filter.status === undefined || r.status === filter.status),
        )
        .sort((a, b) => b.seq - a.seq)
        .map(snapshot);
    },
    counts() {
      return { ...totals, running: running() };
    },
    async waitForExecution(executionArn) {
      const r = records.get(executionArn);
      if (!r)
        throw new SfnServiceError('ExecutionDoesNotExist', `Execution Does Not Exist: '${executionArn}'`);
      await r.done;
      return snapshot(r);
    },
    waitForIdle() {
      if (running() === 0) return Promise.resolve();
      return new Promise<void>((resolve) => idleWaiters.add(resolve));
    },
    events(executionArn) {
      const r = records.get(executionArn);
      if (!r)
        throw new SfnServiceError('ExecutionDoesNotExist', `Execution Does Not Exist: '${executionArn}'`);
      if (r.events === 'dropped') {
        throw new RangeError(
          `the event log of ${executionArn} was dropped: only the newest ${maxClosedLogs} closed executions keep theirs`,
        );
      }
      return [...r.events];
    },
  };
}
