/**
 * The Reconcile state machine, built once in code: the single source for CDK (which deploys
 * `definitionString()` with `definitionSubstitutions` for the function ARNs) and for local runs
 * (which substitute local ARNs into the very same string). Nothing else writes ASL.
 *
 * ValidateInput (a malformed start fails at once, before any Task) -> Acquire lease (waiting a
 * bounded number of times if another execution holds it) -> Observe -> Plan -> PolicyCheck -> Decide:
 *   apply   -> ApplyStep -> RecordProgress -> loop check -> Wait -> Observe (fresh state each loop)
 *   apply, but an operation needs approval -> AwaitApproval (a callback Task: status and task token
 *              written, the lease held, no EKS call) -> approved: RecordApproval -> Observe (granted
 *              operations now pass); denied or timed out: EndApproval (status, denial for the
 *              generation) -> release; cancelled by a spec change: EndApproval -> loop again
 *   wait    -> loop check -> Wait -> Observe
 *   else    -> WriteStatus (converged, denied, awaiting approval, invalid, impossible, deleted)
 *              -> ReleaseLease -> Done,
 *              unless the spec changed meanwhile: then loop again with the newest generation
 * Every Task: TransientError retried with exponential backoff and full jitter, PermanentError
 * retried once; any error caught -> ClassifyError -> WriteFailure -> ReleaseLease -> Failed.
 * A lease failure ends in LeaseFailed and a failure that could not be written in FailedUnwritten,
 * each with a Cause that says what happened: only Failed points at the cluster status.
 * The loop cap hands a long convergence over to the next sweep instead of running forever.
 */
import { InternalError } from '../core/errors.js';
import { approvalStates, checkApprovalTimeout } from './approval-states.js';
import { STEP_FUNCTIONS, type StepFunctionKey, task } from './task.js';
import { inputStates, type Json } from './validate-input.js';

export { RETRY, STEP_FUNCTIONS, type StepFunctionKey } from './task.js';

export interface DefinitionOptions {
  /** Seconds between re-observations while EKS works. */
  readonly pollSeconds: number;
  /** Loops per execution before handing over to the next sweep. */
  readonly maxLoops: number;
  /** Times an execution waits for another one's lease before leaving the cluster to it. */
  readonly maxLeaseWaits: number;
  /**
   * Seconds an execution waits for an approval before the wait ends as ApprovalTimedOut (1 to
   * MAX_APPROVAL_TIMEOUT_SECONDS). Default 86400, one day.
   */
  readonly approvalTimeoutSeconds: number;
}

export const DEFAULT_DEFINITION_OPTIONS: DefinitionOptions = {
  pollSeconds: 30,
  maxLoops: 120,
  maxLeaseWaits: 10,
  approvalTimeoutSeconds: 86_400,
};

/** Takes the cluster's lease, waiting a bounded number of times while another execution holds it. */
function acquireLeaseStates(opts: DefinitionOptions): Json {
  return {
    AcquireLease: task('lease', 'LeaseAcquired', {
      // The execution ARN lets a later reader ask DescribeExecution whether the holder still runs.
      Parameters: {
        action: 'acquire',
        'id.$': '$.id',
        'owner.$': '$.owner',
        'executionArn.$': '$$.Execution.Id',
      },
      ResultPath: '$.lease',
      Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'AcquireLeaseFailed' }],
    }),
    LeaseAcquired: {
      Type: 'Choice',
      Choices: [
        {
          And: [
            { Variable: '$.lease.acquired', BooleanEquals: false },
            { Variable: '$.leaseWaits', NumericLessThan: opts.maxLeaseWaits },
          ],
          Next: 'WaitForLease',
        },
        { Variable: '$.lease.acquired', BooleanEquals: false, Next: 'AlreadyReconciling' },
      ],
      Default: 'Observe',
    },
    // A trigger that finds the cluster busy waits for the lease, so a change made while another
    // execution is finishing is never left behind.
    WaitForLease: { Type: 'Wait', Seconds: opts.pollSeconds, Next: 'NextLeaseWait' },
    NextLeaseWait: {
      Type: 'Pass',
      Parameters: {
        'id.$': '$.id',
        'trigger.$': '$.trigger',
        'owner.$': '$.owner',
        loop: 0,
        'leaseWaits.$': 'States.MathAdd($.leaseWaits, 1)',
      },
      Next: 'AcquireLease',
    },
    AlreadyReconciling: { Type: 'Succeed', Comment: 'Another execution kept the lease for this cluster' },
  };
}

/** Observe -> Plan -> PolicyCheck -> Decide, then apply one step or wait, and observe again. */
function reconcileLoopStates(opts: DefinitionOptions): Json {
  return {
    Observe: task('observe', 'Plan', { ResultPath: '$.observed' }),
    Plan: task('plan', 'PolicyCheck', { ResultPath: '$.plan' }),
    PolicyCheck: task('policy', 'Decide', { ResultPath: '$.policy' }),
    Decide: {
      Type: 'Choice',
      Choices: [
        { Variable: '$.plan.action', StringEquals: 'apply', Next: 'PolicyAllowsApply' },
        { Variable: '$.plan.action', StringEquals: 'wait', Next: 'LoopCheck' },
      ],
      Default: 'WriteStatus',
    },
    // Only an `allow` applies and an `approval` waits for one; a deny (or a denied approval) writes
    // status and ends.
    PolicyAllowsApply: {
      Type: 'Choice',
      Choices: [
        {
          And: [
            { Variable: '$.policy.allow', BooleanEquals: true },
            { Variable: '$.policy.outcome', StringEquals: 'allow' },
          ],
          Next: 'ApplyStep',
        },
        {
          And: [
            { Variable: '$.policy.allow', BooleanEquals: true },
            { Variable: '$.policy.outcome', StringEquals: 'approval' },
          ],
          Next: 'AwaitApproval',
        },
      ],
      Default: 'WriteStatus',
    },
    ApplyStep: task('apply', 'RecordProgress', { ResultPath: '$.applied' }),
    RecordProgress: task('writeStatus', 'LoopCheck', { ResultPath: '$.written' }),
    LoopCheck: {
      Type: 'Choice',
      Choices: [{ Variable: '$.loop', NumericGreaterThanEquals: opts.maxLoops, Next: 'HandOver' }],
      Default: 'WaitForEks',
    },
    WaitForEks: { Type: 'Wait', Seconds: opts.pollSeconds, Next: 'NextLoop' },
    NextLoop: {
      Type: 'Pass',
      Parameters: {
        'id.$': '$.id',
        'trigger.$': '$.trigger',
        'owner.$': '$.owner',
        'loop.$': 'States.MathAdd($.loop, 1)',
      },
      Next: 'Observe',
    },
  };
}

/** The way out of the loop: write the status (or hand over at the loop cap), release the lease. */
function finishStates(): Json {
  return {
    HandOver: task('writeStatus', 'ReleaseLease', {
      Parameters: {
        'id.$': '$.id',
        'owner.$': '$.owner',
        'trigger.$': '$.trigger',
        handOver: true,
        'plan.$': '$.plan',
        'observed.$': '$.observed',
      },
      ResultPath: '$.written',
    }),
    WriteStatus: task('writeStatus', 'NewerGeneration', { ResultPath: '$.written' }),
    // A spec written while this execution worked is picked up before the lease is released.
    NewerGeneration: {
      Type: 'Choice',
      Choices: [{ Variable: '$.written.newerGeneration', BooleanEquals: true, Next: 'LoopCheck' }],
      Default: 'ReleaseLease',
    },
    ReleaseLease: task('lease', 'Done', {
      Parameters: { action: 'release', 'id.$': '$.id', 'owner.$': '$.owner' },
      ResultPath: '$.lease',
      Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'ReleaseLeaseFailed' }],
    }),
    Done: { Type: 'Succeed' },
  };
}

/**
 * Lease failures skip WriteFailure (without the lease an execution may not write the status),
 * so the execution's own error and cause say what happened.
 */
function leaseFailureStates(): Json {
  return {
    AcquireLeaseFailed: {
      Type: 'Pass',
      Result: {
        error: 'AcquireLeaseFailed',
        step: 'AcquireLease',
        outcome: 'the cluster status was not updated',
      },
      ResultPath: '$.leaseFailure',
      Next: 'ClassifyLeaseFailure',
    },
    ReleaseLeaseFailed: {
      Type: 'Pass',
      Result: {
        error: 'ReleaseLeaseFailed',
        step: 'ReleaseLease',
        outcome: 'the cluster status was written; the lease was not released',
      },
      ResultPath: '$.leaseFailure',
      Next: 'ClassifyLeaseFailure',
    },
    // ClassifyError reads Lambda's Cause and the step's error envelope, which ASL cannot parse.
    ClassifyLeaseFailure: task('classifyError', 'DescribeLeaseFailure', {
      ResultPath: '$.failure',
      Catch: [
        { ErrorEquals: ['States.ALL'], ResultPath: '$.classifyError', Next: 'LeaseFailureUnclassified' },
      ],
    }),
    LeaseFailureUnclassified: {
      Type: 'Pass',
      Parameters: { 'message.$': "States.Format('{}, which could not be classified', $.error.Error)" },
      ResultPath: '$.failure',
      Next: 'DescribeLeaseFailure',
    },
    DescribeLeaseFailure: {
      Type: 'Pass',
      Parameters: {
        'error.$': '$.leaseFailure.error',
        'cause.$':
          "States.Format('{} failed: {} ({})', $.leaseFailure.step, $.failure.message, $.leaseFailure.outcome)",
      },
      ResultPath: '$.leaseFailure',
      Next: 'LeaseFailed',
    },
    LeaseFailed: { Type: 'Fail', ErrorPath: '$.leaseFailure.error', CausePath: '$.leaseFailure.cause' },
  };
}

/** Any step's error: classify, write it to the status, release the lease; Failed points at the status. */
function stepFailureStates(): Json {
  return {
    ClassifyError: task('classifyError', 'WriteFailure', {
      ResultPath: '$.failure',
      Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.statusError', Next: 'ReleaseAfterFailure' }],
    }),
    WriteFailure: task('writeStatus', 'ReleaseAfterFailure', {
      ResultPath: '$.written',
      Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.statusError', Next: 'ReleaseAfterFailure' }],
    }),
    ReleaseAfterFailure: task('lease', 'FailureWritten', {
      Parameters: { action: 'release', 'id.$': '$.id', 'owner.$': '$.owner' },
      ResultPath: '$.lease',
      Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.releaseError', Next: 'FailureWritten' }],
    }),
    FailureWritten: {
      Type: 'Choice',
      Choices: [
        {
          And: [
            { Variable: '$.statusError', IsPresent: true },
            { Variable: '$.failure.message', IsPresent: true },
          ],
          Next: 'DescribeUnwrittenClassifiedFailure',
        },
        { Variable: '$.statusError', IsPresent: true, Next: 'DescribeUnwrittenFailure' },
      ],
      Default: 'Failed',
    },
    Failed: {
      Type: 'Fail',
      Error: 'ReconcileFailed',
      Cause: 'See the cluster status: the error was classified and written with a remediation hint',
    },
    DescribeUnwrittenFailure: {
      Type: 'Pass',
      Parameters: {
        'cause.$':
          "States.Format('A step failed with {} and writing that failure to the cluster status failed with {}: the status was not updated; see the execution history', $.error.Error, $.statusError.Error)",
      },
      ResultPath: '$.unwritten',
      Next: 'FailedUnwritten',
    },
    // Classified but not written (e.g. the lease was lost, so only its new holder may write status):
    // the Cause carries the classified error, named, since the status cannot.
    DescribeUnwrittenClassifiedFailure: {
      Type: 'Pass',
      Parameters: {
        'cause.$':
          "States.Format('A step failed ({}) and writing that failure to the cluster status failed with {}: the status was not updated; see the execution history', $.failure.message, $.statusError.Error)",
      },
      ResultPath: '$.unwritten',
      Next: 'FailedUnwritten',
    },
    FailedUnwritten: { Type: 'Fail', Error: 'ReconcileFailed', CausePath: '$.unwritten.cause' },
  };
}

/** The states in the order the header describes them; JSON key order follows this spread order. */
export function buildDefinition(opts: DefinitionOptions = DEFAULT_DEFINITION_OPTIONS): Json {
  checkApprovalTimeout(opts.approvalTimeoutSeconds);
  return {
    Comment: 'CloudOrch Reconcile: converge one cluster, one EKS call per step',
    StartAt: 'ValidateInput',
    States: {
      ...inputStates(),
      ...acquireLeaseStates(opts),
      ...reconcileLoopStates(opts),
      ...approvalStates(opts),
      ...finishStates(),
      ...leaseFailureStates(),
      ...stepFailureStates(),
    },
  };
}

/** The exact string CDK deploys (with `${...}` placeholders for the function ARNs). */
export function definitionString(opts: DefinitionOptions = DEFAULT_DEFINITION_OPTIONS): string {
  return JSON.stringify(buildDefinition(opts));
}

/** Substitutes function ARNs the way Step Functions' definitionSubstitutions does. */
export function substitute(definition: string, arns: Readonly<Record<StepFunctionKey, string>>): string {
  let out = definition;
  for (const [key, placeholder] of Object.entries(STEP_FUNCTIONS) as [StepFunctionKey, string][]) {
    const arn = arns[key];
    if (typeof arn !== 'string' || arn === '') throw new InternalError(`no function ARN for step ${key}`);
    out = out.replaceAll(`\${${placeholder}}`, arn);
  }
  if (/\$\{[A-Za-z]+\}/.test(out)) throw new InternalError('definition has an unsubstituted placeholder');
  return out;
}
