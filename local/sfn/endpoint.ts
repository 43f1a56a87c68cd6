/**
 * A local Step Functions endpoint: StartExecution, DescribeExecution, ListExecutions,
 * StopExecution, GetExecutionHistory, the state machine descriptions and the callback pattern's
 * SendTaskSuccess, SendTaskFailure and SendTaskHeartbeat over the AWS JSON 1.0 protocol, with
 * Standard workflows' execution-name rules, so
 * an unmodified `SFNClient({ endpoint })` drives definitions run by the local interpreter.
 * Everything else answers UnknownOperationException: nothing is faked.
 *
 * This module wires three parts: the execution registry (registry.ts), the API operations
 * (operations.ts) and the HTTP layer (http.ts).
 */
import { checkLoopbackHost, type Handler, serveSfnApi } from './http.js';
import type { ExecutionEvent } from './interpreter.js';
import { OPERATIONS } from './operations.js';
import {
  type ExecutionCounts,
  ExecutionRegistry,
  type ExecutionRegistryOptions,
  type ExecutionSnapshot,
  type ExecutionStatus,
  snapshot,
} from './registry.js';
import type { TaskTokenStore } from './task-tokens.js';

export { checkExecutionName } from './names.js';
export type {
  ExecutionCounts,
  ExecutionSnapshot,
  ExecutionStatus,
  LocalStateMachineConfig,
} from './registry.js';
export type { OpenTaskInfo, TaskTokenStore } from './task-tokens.js';
export { type SfnErrorCode, SfnServiceError } from './wire.js';

export interface LocalSfnEndpointOptions extends ExecutionRegistryOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Loopback only: 127.0.0.1 (default), ::1 or localhost. */
  host?: string;
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
  /**
   * The callback tasks' tokens: `openTasks(executionArn?)` lists the open ones, and `succeed`,
   * `fail` and `heartbeat` complete them in-process exactly as the API operations do.
   */
  taskTokens: TaskTokenStore;
}

export async function startLocalSfnEndpoint(options: LocalSfnEndpointOptions): Promise<LocalSfnEndpoint> {
  const host = options.host ?? '127.0.0.1';
  checkLoopbackHost(host); // before the machines, so a bad host is reported first
  const registry = new ExecutionRegistry(options);
  const handlers: Record<string, Handler> = Object.fromEntries(
    Object.entries(OPERATIONS).map(([name, operation]) => [name, (body) => operation(registry, body)]),
  );
  const server = await serveSfnApi(host, options.port ?? 0, handlers);
  return {
    url: server.url,
    async close() {
      registry.abortAll('endpoint closed');
      await server.close();
    },
    executions: (filter = {}) => registry.list(filter).map(snapshot),
    counts: () => registry.counts(),
    waitForExecution: (executionArn) => registry.waitForExecution(executionArn),
    waitForIdle: () => registry.waitForIdle(),
    events: (executionArn) => registry.events(executionArn),
    taskTokens: registry.taskTokens,
  };
}
