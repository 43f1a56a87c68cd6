/**
 * Task tokens of the callback pattern (`arn:aws:states:::lambda:invoke.waitForTaskToken`): each
 * attempt of a callback Task opens one task here with a fresh random token, and the task stays open
 * until SendTaskSuccess, SendTaskFailure, its `TimeoutSeconds` or `HeartbeatSeconds` (each
 * SendTaskHeartbeat restarts the latter), or until nobody waits for it anymore (its execution
 * stopped or ended, its Map or Parallel failed, the function invocation failed).
 *
 * The errors are the API's: `ValidationException` for a token outside 1-2048 characters, an
 * output over 262144 UTF-8 bytes, an error over 256 or a cause over 32768 characters;
 * `InvalidToken` for a string this store never could have issued; `InvalidOutput` for output that
 * is not JSON; `TaskTimedOut` for a task that timed out; `TaskDoesNotExist` for any other closed or
 * unknown token (closed tokens are remembered up to `maxClosed`, then reported as unknown).
 */
import { randomBytes } from 'node:crypto';
import { maxLength, SfnServiceError } from './wire.js';

/** How a callback task ended, as the waiting attempt sees it. */
export type TaskOutcome =
  | { kind: 'succeeded'; output: unknown }
  | { kind: 'failed'; error: string; cause: string }
  | { kind: 'timedOut'; error: 'States.Timeout' | 'States.HeartbeatTimeout' }
  /** Nobody waits anymore (the execution stopped, a sibling branch failed): the attempt ends unseen. */
  | { kind: 'closed' };

export interface OpenTaskSpec {
  /** The execution ARN, when the run has one; StopExecution drops its tasks. */
  owner?: string;
  state: string;
  functionName: string;
  timeoutSeconds?: number;
  heartbeatSeconds?: number;
}

/** An open task, for `openTasks()`. */
export interface OpenTaskInfo {
  taskToken: string;
  executionArn?: string;
  state: string;
  functionName: string;
  openedDate: Date;
}

interface OpenTask {
  spec: OpenTaskSpec;
  openedMs: number;
  settle: (o: TaskOutcome) => void;
  cancelDeadline: () => void;
  cancelHeartbeat: () => void;
}

const MAX_TIMER_MS = 2 ** 31 - 1;
const TOKEN_FORMAT = /^[A-Za-z0-9_-]{64}$/;
const MAX_OUTPUT_BYTES = 262_144;

/** setTimeout for any delay: Node fires a delay above 2^31-1 ms at once, so a longer one is chained. */
export function longTimer(ms: number, fire: () => void): () => void {
  let handle: ReturnType<typeof setTimeout>;
  const arm = (left: number): void => {
    handle = setTimeout(
      () => (left > MAX_TIMER_MS ? arm(left - MAX_TIMER_MS) : fire()),
      Math.min(left, MAX_TIMER_MS),
    );
  };
  arm(ms);
  return () => clearTimeout(handle);
}

const noop = (): void => {};

export class TaskTokenStore {
  private readonly open = new Map<string, OpenTask>();
  // Insertion order is close order, so the first entries are the oldest.
  private readonly closed = new Map<string, 'timedOut' | 'closed'>();

  constructor(private readonly maxClosed = 10_000) {}

  /** Opens a task: its token, and a promise settling with how it ended (`closed` once closed). */
  openTask(spec: OpenTaskSpec): { token: string; outcome: Promise<TaskOutcome> } {
    const token = randomBytes(48).toString('base64url');
    let settle: (o: TaskOutcome) => void = noop;
    const outcome = new Promise<TaskOutcome>((resolve) => {
      settle = resolve;
    });
    const task: OpenTask = {
      spec,
      openedMs: Date.now(),
      settle,
      cancelDeadline: noop,
      cancelHeartbeat: noop,
    };
    this.open.set(token, task);
    if (spec.timeoutSeconds !== undefined) {
      task.cancelDeadline = longTimer(spec.timeoutSeconds * 1000, () =>
        this.end(token, { kind: 'timedOut', error: 'States.Timeout' }),
      );
    }
    this.armHeartbeat(token, task);
    return { token, outcome };
  }

  /** SendTaskSuccess: `output` (a JSON string) becomes the task's result. */
  succeed(token: string, output: string): void {
    if (Buffer.byteLength(output, 'utf8') > MAX_OUTPUT_BYTES) {
      throw new SfnServiceError('ValidationException', `output exceeds ${MAX_OUTPUT_BYTES} bytes`);
    }
    this.check(token);
    let parsed: unknown;
    try {
      parsed = JSON.parse(output);
    } catch (e) {
      throw new SfnServiceError('InvalidOutput', `Invalid Output: '${(e as Error).message}'`);
    }
    this.end(this.liveToken(token), { kind: 'succeeded', output: parsed });
  }

  /** SendTaskFailure: the task fails with `error` and `cause`, which Retry and Catch see. */
  fail(token: string, error = '', cause = ''): void {
    maxLength('error', error, 256);
    maxLength('cause', cause, 32768);
    this.check(token);
    this.end(this.liveToken(token), { kind: 'failed', error, cause });
  }

  /** SendTaskHeartbeat: restarts the task's HeartbeatSeconds clock. */
  heartbeat(token: string): void {
    this.check(token);
    const key = this.liveToken(token);
    const task = this.open.get(key)!;
    task.cancelHeartbeat();
    this.armHeartbeat(key, task);
  }

  /** Closes a task nobody waits for anymore; its token then answers TaskDoesNotExist. */
  close(token: string): void {
    const task = this.open.get(token);
    if (!task) return;
    this.forget(token, task, 'closed');
    // Settled, so the attempt ends and the interpreter's own Task timer is cleared with it: a
    // pending attempt would keep that timer, and with it the process, alive for weeks.
    task.settle({ kind: 'closed' });
  }

  /** Closes every open task of one execution (StopExecution, or the execution ended). */
  closeOwner(owner: string): void {
    for (const [token, task] of this.open)
      if (task.spec.owner === owner) {
        this.forget(token, task, 'closed');
        task.settle({ kind: 'closed' });
      }
  }

  isOpen(token: string): boolean {
    return this.open.has(token);
  }

  /** Open tasks, oldest first, optionally of one execution. */
  openTasks(executionArn?: string): OpenTaskInfo[] {
    return [...this.open]
      .filter(([, t]) => executionArn === undefined || t.spec.owner === executionArn)
      .map(([taskToken, t]) => ({
        taskToken,
        ...(t.spec.owner !== undefined ? { executionArn: t.spec.owner } : {}),
        state: t.spec.state,
        functionName: t.spec.functionName,
        openedDate: new Date(t.openedMs),
      }));
  }

  private armHeartbeat(token: string, task: OpenTask): void {
    const seconds = task.spec.heartbeatSeconds;
    if (seconds === undefined) return;
    task.cancelHeartbeat = longTimer(seconds * 1000, () =>
      this.end(token, { kind: 'timedOut', error: 'States.HeartbeatTimeout' }),
    );
  }

  /** Validates a token's shape: length first (ValidationException), then format (InvalidToken). */
  private check(token: string): void {
    if (token.length < 1 || token.length > 2048) {
      throw new SfnServiceError(
        'ValidationException',
        "1 validation error detected: Value at 'taskToken' failed to satisfy constraint: Member must have length between 1 and 2048",
      );
    }
    if (!TOKEN_FORMAT.test(token))
      throw new SfnServiceError('InvalidToken', 'Invalid Token: malformed task token');
  }

  /** The token of an open task, or the error the API reports for a closed or unknown one. */
  private liveToken(token: string): string {
    if (this.open.has(token)) return token;
    if (this.closed.get(token) === 'timedOut') {
      throw new SfnServiceError('TaskTimedOut', 'Task Timed Out: the task of this token timed out');
    }
    throw new SfnServiceError('TaskDoesNotExist', 'Task Does Not Exist: no open task has this token');
  }

  private end(token: string, outcome: TaskOutcome): void {
    const task = this.open.get(token);
    if (!task) return;
    this.forget(token, task, outcome.kind === 'timedOut' ? 'timedOut' : 'closed');
    task.settle(outcome);
  }

  private forget(token: string, task: OpenTask, how: 'timedOut' | 'closed'): void {
    task.cancelDeadline();
    task.cancelHeartbeat();
    this.open.delete(token);
    this.closed.set(token, how);
    for (const old of this.closed.keys()) {
      if (this.closed.size <= this.maxClosed) break;
      this.closed.delete(old);
    }
  }
}
