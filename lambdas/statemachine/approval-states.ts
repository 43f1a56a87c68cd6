/**
 * The Reconcile definition's wait for a human's approval (see definition.ts's header): AwaitApproval,
 * RecordApproval, EndApproval. Every one runs the writeStatus function (steps/approval.ts).
 */
import { InternalError } from '../core/errors.js';
import { MAX_APPROVAL_TIMEOUT_SECONDS } from '../core/status-approval.js';
import { APPROVAL_ERRORS } from '../handlers/contracts.js';
import { CATCH, RETRY, STEP_FUNCTIONS, task } from './task.js';
import type { Json } from './validate-input.js';

/** What the approval states pass the writeStatus function: the execution state, named field by field. */
const APPROVAL_STATE = {
  'id.$': '$.id',
  'trigger.$': '$.trigger',
  'owner.$': '$.owner',
  'loop.$': '$.loop',
  'observed.$': '$.observed',
  'plan.$': '$.plan',
  'policy.$': '$.policy',
};

/**
 * The wait for a human's approval: a callback Task whose function writes status and stores the task
 * token on the record (`cloudorch approve` / `deny` answer it, on-change cancels it on a spec change).
 * Its TimeoutSeconds ends the wait as ApprovalTimedOut. Retries cover the function's own failures;
 * an answer is never retried.
 */
export function approvalStates(opts: { readonly approvalTimeoutSeconds: number }): Json {
  const ended = [APPROVAL_ERRORS.denied, APPROVAL_ERRORS.timedOut, APPROVAL_ERRORS.cancelled];
  return {
    AwaitApproval: {
      Type: 'Task',
      Resource: 'arn:aws:states:::lambda:invoke.waitForTaskToken',
      Parameters: {
        FunctionName: `\${${STEP_FUNCTIONS.writeStatus}}`,
        Payload: {
          ...APPROVAL_STATE,
          approvalWait: { 'token.$': '$$.Task.Token', timeoutSeconds: opts.approvalTimeoutSeconds },
        },
      },
      TimeoutSeconds: opts.approvalTimeoutSeconds,
      ResultPath: '$.approvalGrant',
      Retry: RETRY,
      Catch: [{ ErrorEquals: ended, ResultPath: '$.approvalError', Next: 'EndApproval' }, ...CATCH],
      Next: 'RecordApproval',
    },
    // Approved: a fresh look, where the granted operations pass and the next step is applied.
    RecordApproval: task('writeStatus', 'NextLoop', {
      Parameters: { ...APPROVAL_STATE, 'approvalGranted.$': '$.approvalGrant' },
      ResultPath: '$.written',
    }),
    // Denied or timed out: status and the denial, then release. Cancelled: the newest generation next.
    EndApproval: task('writeStatus', 'NewerGeneration', {
      Parameters: { ...APPROVAL_STATE, 'approvalEnd.$': '$.approvalError' },
      ResultPath: '$.written',
    }),
  };
}

/** DefinitionOptions' `approvalTimeoutSeconds`, refused outside 1 to MAX_APPROVAL_TIMEOUT_SECONDS. */
export function checkApprovalTimeout(t: number): void {
  if (!Number.isInteger(t) || t < 1 || t > MAX_APPROVAL_TIMEOUT_SECONDS)
    throw new InternalError(
      `approvalTimeoutSeconds must be an integer from 1 to ${MAX_APPROVAL_TIMEOUT_SECONDS}, got ${t}`,
    );
}
