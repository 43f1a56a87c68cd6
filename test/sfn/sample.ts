/**
 * A small definition shaped like the reconcile loop (Task -> Choice -> Wait -> loop, Retry with
 * backoff + MaxDelaySeconds + FULL jitter, Catch -> recording Task -> Fail) and scripted handlers
 * whose behaviour each test picks through the execution input.
 */
import { SFNClient } from '@aws-sdk/client-sfn';
import { LOCAL_CREDENTIALS } from '../../local/runtime/credentials.js';
import type { TaskHandler } from '../../local/sfn/interpreter.js';

export const STEP_ARN = 'arn:aws:lambda:us-east-1:111111111111:function:step';
export const RECORD_ARN = 'arn:aws:lambda:us-east-1:111111111111:function:record-failure';
export const SM_ARN = 'arn:aws:states:us-east-1:111111111111:stateMachine:Reconcile';

export const definition = {
  Comment: 'test sample of the reconcile loop',
  StartAt: 'Step',
  States: {
    Step: {
      Type: 'Task',
      Resource: STEP_ARN,
      ResultPath: '$.result',
      Retry: [
        {
          ErrorEquals: ['TransientError'],
          IntervalSeconds: 2,
          BackoffRate: 2,
          MaxAttempts: 3,
          MaxDelaySeconds: 10,
          JitterStrategy: 'FULL',
        },
      ],
      Catch: [
        { ErrorEquals: ['SpecInvalid'], ResultPath: '$.error', Next: 'RecordFailure' },
        { ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'RecordFailure' },
      ],
      Next: 'Converged?',
    },
    'Converged?': {
      Type: 'Choice',
      Choices: [{ Variable: '$.result.done', BooleanEquals: true, Next: 'Done' }],
      Default: 'WaitBeforeNext',
    },
    WaitBeforeNext: { Type: 'Wait', Seconds: 30, Next: 'Step' },
    RecordFailure: { Type: 'Task', Resource: RECORD_ARN, ResultPath: '$.recorded', Next: 'Failed' },
    Failed: { Type: 'Fail', ErrorPath: '$.error.Error', CausePath: '$.error.Cause' },
    Done: { Type: 'Succeed' },
  },
};

export class TransientError extends Error {
  override readonly name = 'TransientError';
}
export class SpecInvalid extends Error {
  override readonly name = 'SpecInvalid';
}
export class PermanentError extends Error {
  override readonly name = 'PermanentError';
}

/**
 * Input fields: `id` (call counter key), `doneAfter` (calls until done), `transientFailures`
 * (TransientErrors thrown first), `fail` ('SpecInvalid' | 'PermanentError' on every call),
 * `gate` (the handler waits until `release(gate)`).
 */
export interface StepInput {
  id: string;
  doneAfter?: number;
  transientFailures?: number;
  fail?: 'SpecInvalid' | 'PermanentError';
  gate?: string;
}

export function scriptedHandlers() {
  const calls = new Map<string, number>();
  const recorded: unknown[] = [];
  const gates = new Map<string, { promise: Promise<void>; open: () => void }>();
  const gate = (id: string) => {
    let g = gates.get(id);
    if (!g) {
      let open = () => {};
      const promise = new Promise<void>((resolve) => {
        open = resolve;
      });
      g = { promise, open };
      gates.set(id, g);
    }
    return g;
  };
  /** Resolves once the gated handler has been entered, so the execution is provably RUNNING. */
  const entered = new Map<string, () => void>();
  const enteredPromises = new Map<string, Promise<void>>();
  const whenEntered = (id: string): Promise<void> => {
    let p = enteredPromises.get(id);
    if (!p) {
      p = new Promise<void>((resolve) => entered.set(id, resolve));
      enteredPromises.set(id, p);
    }
    return p;
  };

  const step: TaskHandler = async (raw) => {
    const input = raw as StepInput;
    const n = (calls.get(input.id) ?? 0) + 1;
    calls.set(input.id, n);
    if (input.gate !== undefined) {
      void whenEntered(input.gate);
      entered.get(input.gate)?.();
      await gate(input.gate).promise;
    }
    if (input.fail === 'SpecInvalid') throw new SpecInvalid(`spec of ${input.id} is invalid`);
    if (input.fail === 'PermanentError') throw new PermanentError(`access denied for ${input.id}`);
    if (n <= (input.transientFailures ?? 0)) throw new TransientError(`throttled (call ${n})`);
    return { done: n >= (input.doneAfter ?? 1), calls: n };
  };
  const record: TaskHandler = async (input) => {
    recorded.push(input);
    return { recorded: true };
  };
  return {
    handlers: new Map<string, TaskHandler>([
      [STEP_ARN, step],
      [RECORD_ARN, record],
    ]),
    calls: (id: string) => calls.get(id) ?? 0,
    recorded,
    release: (id: string) => gate(id).open(),
    whenEntered,
  };
}

/** The SDK client the endpoint tests use: one attempt, so a wire error is seen as it was sent. */
export function localSfnClient(url: string): SFNClient {
  return new SFNClient({
    endpoint: url,
    region: 'us-east-1',
    credentials: LOCAL_CREDENTIALS,
    maxAttempts: 1,
  });
}
