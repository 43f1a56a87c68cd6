/**
 * The read-only operations people reach for when an execution failed: GetExecutionHistory and the
 * state machine descriptions. They only read the registry; operations.ts lists them.
 */
import { historyEvents } from './history.js';
import type { ExecutionRegistry, MachineEntry } from './registry.js';
import {
  type Body,
  optionalString,
  pageSize,
  requiredString,
  SfnServiceError,
  toEpochSeconds,
} from './wire.js';

/** An opaque cursor bound to the arguments of the first call (`key`) and the offset to go on from. */
function encodeToken(key: string, offset: number): string {
  return Buffer.from(JSON.stringify({ key, offset })).toString('base64url');
}

function tokenOffset(body: Body, key: string): number {
  const token = optionalString(body, 'nextToken');
  if (token === undefined) return 0;
  try {
    const t = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as {
      key?: unknown;
      offset?: unknown;
    };
    if (t.key === key && typeof t.offset === 'number' && Number.isInteger(t.offset) && t.offset >= 0) {
      return t.offset;
    }
  } catch {
    // fall through: any undecodable token is InvalidToken
  }
  throw new SfnServiceError('InvalidToken', `Invalid Token: '${token}'`);
}

/** One page of `items` and the token for the next, if any. */
function page<T>(items: readonly T[], body: Body, key: string): { items: T[]; nextToken?: string } {
  const size = pageSize(body);
  const offset = tokenOffset(body, key);
  const end = offset + size;
  return {
    items: items.slice(offset, end),
    ...(end < items.length ? { nextToken: encodeToken(key, end) } : {}),
  };
}

function optionalBoolean(body: Body, field: string, fallback: boolean): boolean {
  const v = body[field];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'boolean')
    throw new SfnServiceError('SerializationException', `${field} must be a boolean`);
  return v;
}

export function getExecutionHistory(registry: ExecutionRegistry, body: Body): Body {
  const execution = registry.execution(requiredString(body, 'executionArn'));
  const reverse = optionalBoolean(body, 'reverseOrder', false);
  const includeData = optionalBoolean(body, 'includeExecutionData', true);
  const log = registry.log(execution);
  if (!log) {
    // Only the newest closed executions keep their logs (maxClosedEventLogs); say so, never return [].
    throw new SfnServiceError(
      'ValidationException',
      `the history of ${execution.arn} was dropped to bound the local endpoint's memory`,
    );
  }
  const all = historyEvents(execution, log, includeData);
  if (reverse) all.reverse();
  const { items, nextToken } = page(all, body, `${execution.arn}|${reverse}|${includeData}`);
  return { events: items, ...(nextToken !== undefined ? { nextToken } : {}) };
}

/** The fields DescribeStateMachine and DescribeStateMachineForExecution share. No roleArn: nothing assumes one locally. */
function machineDescription(sm: MachineEntry): Body {
  return { stateMachineArn: sm.arn, name: sm.name, definition: sm.definition };
}

export function describeStateMachine(registry: ExecutionRegistry, body: Body): Body {
  const sm = registry.machine(requiredString(body, 'stateMachineArn'));
  return {
    ...machineDescription(sm),
    status: 'ACTIVE',
    type: 'STANDARD',
    creationDate: toEpochSeconds(sm.createdMs),
  };
}

export function describeStateMachineForExecution(registry: ExecutionRegistry, body: Body): Body {
  const execution = registry.execution(requiredString(body, 'executionArn'));
  // Machines never change while the endpoint runs: the last update is the configuration.
  return {
    ...machineDescription(execution.machine),
    updateDate: toEpochSeconds(execution.machine.createdMs),
  };
}

export function listStateMachines(registry: ExecutionRegistry, body: Body): Body {
  const { items, nextToken } = page(registry.machineList(), body, 'stateMachines');
  return {
    stateMachines: items.map((sm) => ({
      stateMachineArn: sm.arn,
      name: sm.name,
      type: 'STANDARD',
      creationDate: toEpochSeconds(sm.createdMs),
    })),
    ...(nextToken !== undefined ? { nextToken } : {}),
  };
}
