/**
 * A callback Task (`lambda:invoke.waitForTaskToken`) definition and an approver handler that
 * records each Payload it receives, so a test can take the token and complete it.
 */
import type { TaskHandler } from '../../local/sfn/interpreter.js';
import { CALLBACK_RESOURCE } from '../../local/sfn/task-run.js';

export const APPROVE_ARN = 'arn:aws:lambda:us-east-1:111111111111:function:approve';
export const CALLBACK_SM_ARN = 'arn:aws:states:us-east-1:111111111111:stateMachine:Approval';

/** One callback Task `Approve` -> Succeed, a Catch of `Rejected` -> a Pass; `task` adds fields to Approve. */
export function callbackDefinition(task: Record<string, unknown> = {}) {
  return {
    StartAt: 'Approve',
    States: {
      Approve: {
        Type: 'Task',
        Resource: CALLBACK_RESOURCE,
        Parameters: {
          FunctionName: APPROVE_ARN,
          Payload: {
            'cluster.$': '$.id',
            'token.$': '$$.Task.Token',
            'note.$': "States.Format('t={}', $$.Task.Token)",
          },
        },
        ResultPath: '$.approval',
        Catch: [{ ErrorEquals: ['Rejected'], ResultPath: '$.error', Next: 'WasRejected' }],
        Next: 'Done',
        ...task,
      },
      WasRejected: { Type: 'Pass', End: true },
      Done: { Type: 'Succeed' },
    },
  };
}

export interface ApprovalPayload {
  cluster?: string;
  token: string;
  note?: string;
}

/**
 * An approver: `next()` resolves with the next Payload the handler receives (in call order),
 * `behaviour` picks what the handler does after recording it.
 */
export function approver(
  behaviour: (p: ApprovalPayload, call: number) => Promise<unknown> = async () => ({ sent: true }),
) {
  const received: ApprovalPayload[] = [];
  const waiters: ((p: ApprovalPayload) => void)[] = [];
  let taken = 0;
  const handler: TaskHandler = async (input) => {
    const p = input as ApprovalPayload;
    received.push(p);
    waiters.shift()?.(p);
    return behaviour(p, received.length);
  };
  const next = (): Promise<ApprovalPayload> => {
    const i = taken++;
    const seen = received[i];
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => waiters.push(resolve));
  };
  return { handlers: new Map<string, TaskHandler>([[APPROVE_ARN, handler]]), received, next };
}

/** The SfnServiceError code a call threw, or 'no error'. */
export function codeOf(f: () => void): string {
  try {
    f();
    return 'no error';
  } catch (e) {
    return (e as { code?: string }).code ?? (e as Error).name;
  }
}
