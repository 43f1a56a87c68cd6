/**
 * The Step Functions API operations the local endpoint serves, each a function from a request body
 * to a response body over the execution registry. A new operation is one more entry in OPERATIONS.
 */
import { randomUUID } from 'node:crypto';
import {
  describeStateMachine,
  describeStateMachineForExecution,
  getExecutionHistory,
  listStateMachines,
} from './inspect.js';
import { checkExecutionName } from './names.js';
import { type Execution, type ExecutionRegistry, type MachineEntry, snapshot } from './registry.js';
import {
  type Body,
  maxLength,
  optionalString,
  pageSize,
  requiredString,
  SfnServiceError,
  toEpochSeconds,
} from './wire.js';

export type Operation = (registry: ExecutionRegistry, body: Body) => Body;

const MAX_INPUT_BYTES = 256 * 1024;
const STATUSES: readonly string[] = [
  'RUNNING',
  'SUCCEEDED',
  'FAILED',
  'TIMED_OUT',
  'ABORTED',
  'PENDING_REDRIVE',
];

function startExecution(registry: ExecutionRegistry, body: Body): Body {
  const sm = registry.machine(requiredString(body, 'stateMachineArn'));
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
  const r = registry.start(sm, name, input, parsedInput);
  return { executionArn: r.arn, startDate: toEpochSeconds(r.startMs) };
}

function describeExecution(registry: ExecutionRegistry, body: Body): Body {
  const r = registry.execution(requiredString(body, 'executionArn'));
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

/** ListExecutions' cursor: the first call's arguments and the sequence number to continue below. */
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

interface ListRequest {
  sm: MachineEntry;
  statusFilter: string | null;
  redriveFilter: string | undefined;
  pageSize: number;
  /** Only executions started before this sequence number (the previous page's last). */
  before: number;
}

/** Validates ListExecutions' arguments in the order AWS reports them. */
function listRequest(registry: ExecutionRegistry, body: Body): ListRequest {
  if (body['mapRunArn'] !== undefined) {
    throw new SfnServiceError(
      'ValidationException',
      'mapRunArn is not supported: no Distributed Map runs locally',
    );
  }
  const sm = registry.machine(requiredString(body, 'stateMachineArn'));
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
  const size = pageSize(body);
  const tokenRaw = optionalString(body, 'nextToken');
  let before = Number.POSITIVE_INFINITY;
  if (tokenRaw !== undefined) {
    const t = decodeToken(tokenRaw);
    if (t.sm !== sm.arn || t.status !== statusFilter) {
      throw new SfnServiceError('InvalidToken', 'Invalid Token: the arguments differ from the first call');
    }
    before = t.before;
  }
  return { sm, statusFilter, redriveFilter, pageSize: size, before };
}

function listExecutions(registry: ExecutionRegistry, body: Body): Body {
  const { sm, statusFilter, redriveFilter, pageSize, before } = listRequest(registry, body);
  // Nothing is ever redriven locally: REDRIVEN matches none, NOT_REDRIVEN all.
  const matching: Execution[] =
    redriveFilter === 'REDRIVEN'
      ? []
      : registry
          .list({ stateMachineArn: sm.arn, ...(statusFilter !== null ? { status: statusFilter } : {}) })
          .filter((r) => r.seq < before);
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

function stopExecution(registry: ExecutionRegistry, body: Body): Body {
  const r = registry.execution(requiredString(body, 'executionArn'));
  const error = optionalString(body, 'error');
  const cause = optionalString(body, 'cause');
  maxLength('error', error, 256);
  maxLength('cause', cause, 32768);
  // A closed execution keeps its status; the call reports when it stopped.
  registry.stop(r, error, cause);
  return { stopDate: toEpochSeconds(r.stopMs!) };
}

/** SendTaskSuccess: completes a callback Task with `output` (a JSON string) as its result. */
function sendTaskSuccess(registry: ExecutionRegistry, body: Body): Body {
  registry.taskTokens.succeed(requiredString(body, 'taskToken'), requiredString(body, 'output'));
  return {};
}

/** SendTaskFailure: fails a callback Task with `error` and `cause`, which its Retry and Catch see. */
function sendTaskFailure(registry: ExecutionRegistry, body: Body): Body {
  const token = requiredString(body, 'taskToken');
  registry.taskTokens.fail(token, optionalString(body, 'error'), optionalString(body, 'cause'));
  return {};
}

/** SendTaskHeartbeat: restarts a callback Task's HeartbeatSeconds clock. */
function sendTaskHeartbeat(registry: ExecutionRegistry, body: Body): Body {
  registry.taskTokens.heartbeat(requiredString(body, 'taskToken'));
  return {};
}

/** Operation name (the `X-Amz-Target` suffix) -> implementation; anything absent is UnknownOperationException. */
export const OPERATIONS: Readonly<Record<string, Operation>> = {
  StartExecution: startExecution,
  DescribeExecution: describeExecution,
  ListExecutions: listExecutions,
  StopExecution: stopExecution,
  GetExecutionHistory: getExecutionHistory,
  DescribeStateMachine: describeStateMachine,
  DescribeStateMachineForExecution: describeStateMachineForExecution,
  ListStateMachines: listStateMachines,
  SendTaskSuccess: sendTaskSuccess,
  SendTaskFailure: sendTaskFailure,
  SendTaskHeartbeat: sendTaskHeartbeat,
};
