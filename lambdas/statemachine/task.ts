/** The pieces every Task of the Reconcile definition shares: its functions, Retry, Catch. */
import { ERROR_NAMES } from '../core/errors.js';
import type { Json } from './validate-input.js';

/** One Lambda per step, so each gets only the permissions its step needs. */
export const STEP_FUNCTIONS = {
  lease: 'LeaseFunctionArn',
  observe: 'ObserveFunctionArn',
  plan: 'PlanFunctionArn',
  policy: 'PolicyFunctionArn',
  apply: 'ApplyFunctionArn',
  writeStatus: 'WriteStatusFunctionArn',
  classifyError: 'ClassifyErrorFunctionArn',
} as const;
export type StepFunctionKey = keyof typeof STEP_FUNCTIONS;

/** Errors the Lambda service itself raises for a transient failure of the invocation. */
const LAMBDA_TRANSIENT = [
  'Lambda.ServiceException',
  'Lambda.AWSLambdaException',
  'Lambda.SdkClientException',
  'Lambda.TooManyRequestsException',
  'Lambda.ClientExecutionTimeoutException',
];

export const RETRY = [
  {
    ErrorEquals: [ERROR_NAMES.Transient, ...LAMBDA_TRANSIENT],
    IntervalSeconds: 2,
    BackoffRate: 2,
    MaxAttempts: 5,
    MaxDelaySeconds: 60,
    JitterStrategy: 'FULL',
  },
  // Permanent errors are retried once, late: most need a human, and calls must stay bounded.
  { ErrorEquals: [ERROR_NAMES.Permanent], IntervalSeconds: 30, MaxAttempts: 1, JitterStrategy: 'FULL' },
];

export const CATCH = [{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'ClassifyError' }];

export function task(fn: StepFunctionKey, next: string, extra: Json = {}): Json {
  return {
    Type: 'Task',
    Resource: `\${${STEP_FUNCTIONS[fn]}}`,
    Retry: RETRY,
    Catch: CATCH,
    Next: next,
    ...extra,
  };
}
