/**
 * The real Reconcile definition, run by the local interpreter and endpoint with scripted step
 * handlers: retries of Lambda invocation failures, honest causes for failures that were not
 * written to the status, input validation before any Task, and the execution ARN given to the lease.
 */
import { DescribeExecutionCommand, type SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import aslValidator from 'asl-validator';
import { describe, expect, it } from 'vitest';
import { type LeaseRequest, TRIGGERS } from '../../lambdas/handlers/contracts.js';
import { runStep } from '../../lambdas/handlers/steps/index.js';
import { wrapStep } from '../../lambdas/handlers/steps/wrap.js';
import {
  buildDefinition,
  DEFAULT_DEFINITION_OPTIONS,
  type DefinitionOptions,
  definitionString,
  STEP_FUNCTIONS,
  type StepFunctionKey,
  substitute,
} from '../../lambdas/statemachine/definition.js';
import { LeaseLostError, RecordNotFoundError } from '../../lambdas/store/errors.js';
import { startLocalSfnEndpoint } from '../../local/sfn/endpoint.js';
import {
  type ExecutionEvent,
  LocalStateMachine,
  type RunOutcome,
  type TaskHandler,
} from '../../local/sfn/interpreter.js';
import { localSfnClient } from './sample.js';

const SM_NAME = 'cloudorch-reconcile';
const SM_ARN = `arn:aws:states:us-east-1:111111111111:stateMachine:${SM_NAME}`;
const ARNS = Object.fromEntries(
  (Object.keys(STEP_FUNCTIONS) as StepFunctionKey[]).map((k) => [
    k,
    `arn:aws:lambda:us-east-1:111111111111:function:cloudorch-${k}`,
  ]),
) as Record<StepFunctionKey, string>;
// Record ids as apply and the bridge write them, which ValidateInput approximates in ASL; the length
// limit (63 per label) is left out because ASL cannot check it and the sample stays below it.
const RECORD_ID = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?\/[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

type Steps = Partial<Record<StepFunctionKey, TaskHandler>>;
interface Call {
  step: StepFunctionKey;
  input: Record<string, unknown>;
}

/** A converging run: the lease is free, nothing to do, the status is written. */
const converged: Steps = {
  lease: async (i) =>
    (i as { action: string }).action === 'acquire' ? { acquired: true } : { released: true },
  observe: async () => ({ generation: 1 }),
  plan: async () => ({ action: 'none' }),
  policy: async () => ({ allow: true }),
  writeStatus: async () => ({ newerGeneration: false }),
  classifyError: runStep('classifyError'),
};

function named(name: string, message: string): Error {
  const e = new Error(message);
  e.name = name;
  return e;
}

function handlersFor(steps: Steps, calls: Call[]): Map<string, TaskHandler> {
  return new Map(
    (Object.keys(STEP_FUNCTIONS) as StepFunctionKey[]).map((step) => [
      ARNS[step],
      async (input: unknown) => {
        calls.push({ step, input: input as Record<string, unknown> });
        const h = steps[step];
        if (!h) throw new Error(`unexpected call of step ${step}`);
        return h(input);
      },
    ]),
  );
}

function reconcile(steps: Steps, opts: DefinitionOptions = DEFAULT_DEFINITION_OPTIONS) {
  const calls: Call[] = [];
  const machine = new LocalStateMachine(substitute(definitionString(opts), ARNS), {
    handlers: handlersFor(steps, calls),
    waitScale: 0.001,
    retryIntervalMs: 1,
  });
  const run = async (input: unknown, name = 'run-1') => {
    const events: ExecutionEvent[] = [];
    const outcome: RunOutcome = await machine.run(input, {
      context: {
        Execution: { Id: `arn:aws:states:us-east-1:111111111111:execution:${SM_NAME}:${name}`, Name: name },
      },
      onEvent: (e) => events.push(e),
    });
    return { outcome, events };
  };
  return { run, calls };
}

const failed = (o: RunOutcome) => (o.status === 'FAILED' ? { error: o.error, cause: o.cause } : o);
const retriedIn = (events: ExecutionEvent[], state: string) =>
  events.filter((e) => e.type === 'StateRetried' && e.state.name === state).length;

describe('Retry of Lambda invocation failures', () => {
  it('every Task retries Lambda.ClientExecutionTimeoutException with the backoff of the other transient errors', () => {
    const states = buildDefinition().States as Record<
      string,
      { Type: string; Retry?: Record<string, unknown>[] }
    >;
    const tasks = Object.entries(states).filter(([, s]) => s.Type === 'Task');
    expect(tasks.length).toBeGreaterThanOrEqual(8);
    for (const [name, s] of tasks) {
      expect(s.Retry?.[0], name).toEqual({
        ErrorEquals: [
          'TransientError',
          'Lambda.ServiceException',
          'Lambda.AWSLambdaException',
          'Lambda.SdkClientException',
          'Lambda.TooManyRequestsException',
          'Lambda.ClientExecutionTimeoutException',
        ],
        IntervalSeconds: 2,
        BackoffRate: 2,
        MaxAttempts: 5,
        MaxDelaySeconds: 60,
        JitterStrategy: 'FULL',
      });
    }
  });

  it('a client execution timeout of Observe is retried, not turned into a failure', async () => {
    let n = 0;
    const { run, calls } = reconcile({
      ...converged,
      observe: async () => {
        if (++n <= 2) throw named('Lambda.ClientExecutionTimeoutException', 'the invocation timed out');
        return { generation: 1 };
      },
    });
    const { outcome, events } = await run({ id: 'team/a', trigger: 'sweep' });
    expect(outcome.status).toBe('SUCCEEDED');
    expect(retriedIn(events, 'Observe')).toBe(2);
    expect(calls.map((c) => c.step)).not.toContain('classifyError');
  });
});

describe('failures that were not written to the status say what happened', () => {
  it('AcquireLease of a record that does not exist: the cause names the error, not the status', async () => {
    const { run, calls } = reconcile({
      ...converged,
      lease: wrapStep('lease', async () => {
        throw new RecordNotFoundError('team/ghost: no such record');
      }),
    });
    const { outcome } = await run({ id: 'team/ghost', trigger: 'manual' });
    expect(failed(outcome)).toEqual({
      error: 'AcquireLeaseFailed',
      cause:
        'AcquireLease failed: RecordNotFoundError: team/ghost: no such record (the cluster status was not updated)',
    });
    expect(calls.map((c) => c.step)).not.toContain('observe');
    expect(calls.map((c) => c.step)).not.toContain('writeStatus');
  });

  it('ReleaseLease after a successful write: the cause says the status was written and the lease kept', async () => {
    const { run, calls } = reconcile({
      ...converged,
      lease: wrapStep('lease', async (req: LeaseRequest) => {
        if (req.action === 'acquire') return { acquired: true };
        throw new LeaseLostError('team/a: lease is no longer held by run-1');
      }),
    });
    const { outcome } = await run({ id: 'team/a', trigger: 'change' });
    expect(failed(outcome)).toEqual({
      error: 'ReleaseLeaseFailed',
      cause:
        'ReleaseLease failed: LeaseLostError: team/a: lease is no longer held by run-1 (the cluster status was written; the lease was not released)',
    });
    expect(calls.filter((c) => c.step === 'writeStatus')).toHaveLength(1);
  });

  it('a lease failure whose classification fails too still names the error', async () => {
    const { run } = reconcile({
      ...converged,
      lease: async () => {
        throw named('Lambda.Unknown', 'the function crashed');
      },
      classifyError: async () => {
        throw named('Lambda.Unknown', 'so did this one');
      },
    });
    const { outcome } = await run({ id: 'team/a', trigger: 'drift' });
    expect(failed(outcome)).toEqual({
      error: 'AcquireLeaseFailed',
      cause:
        'AcquireLease failed: Lambda.Unknown, which could not be classified (the cluster status was not updated)',
    });
  });

  it('a failure that WriteFailure could not write never points at the status', async () => {
    const { run, calls } = reconcile({
      ...converged,
      observe: wrapStep('observe', async () => {
        throw named('AccessDeniedException', 'not authorized');
      }),
      writeStatus: async () => {
        throw named('Lambda.Unknown', 'status write crashed');
      },
    });
    const { outcome } = await run({ id: 'team/a', trigger: 'sweep' });
    expect(failed(outcome)).toEqual({
      error: 'ReconcileFailed',
      cause:
        'A step failed (AccessDeniedException: not authorized) and writing that failure to the cluster status failed with Lambda.Unknown: the status was not updated; see the execution history',
    });
    // The lease is still released.
    expect(calls.filter((c) => c.step === 'lease').map((c) => c.input['action'])).toEqual([
      'acquire',
      'release',
    ]);
  });

  it('a failure that could not even be classified names the error it has', async () => {
    const { run } = reconcile({
      ...converged,
      observe: wrapStep('observe', async () => {
        throw named('AccessDeniedException', 'not authorized');
      }),
      classifyError: async () => {
        throw named('Lambda.Unknown', 'classifier crashed');
      },
    });
    const { outcome } = await run({ id: 'team/a', trigger: 'sweep' });
    expect(failed(outcome)).toEqual({
      error: 'ReconcileFailed',
      cause:
        'A step failed with PermanentError and writing that failure to the cluster status failed with Lambda.Unknown: the status was not updated; see the execution history',
    });
  });

  it('a failure that was written still points at the cluster status', async () => {
    const { run, calls } = reconcile({
      ...converged,
      observe: wrapStep('observe', async () => {
        throw named('AccessDeniedException', 'not authorized');
      }),
    });
    const { outcome } = await run({ id: 'team/a', trigger: 'sweep' });
    expect(failed(outcome)).toMatchObject({
      error: 'ReconcileFailed',
      cause: expect.stringMatching(/^See the cluster status/),
    });
    expect(calls.filter((c) => c.step === 'writeStatus')).toHaveLength(1);
  });
});

describe('PolicyAllowsApply: only an allow applies', () => {
  const planned: Steps = { ...converged, plan: async () => ({ action: 'apply' }) };
  const entered = (events: ExecutionEvent[]) =>
    events.filter((e) => e.type === 'StateEntered').map((e) => 'state' in e && e.state.name);

  it('deny: WriteStatus, the lease released, ApplyStep never entered', async () => {
    const { run, calls } = reconcile({ ...planned, policy: async () => ({ outcome: 'deny', allow: false }) });
    const { outcome, events } = await run({ id: 'team/a', trigger: 'manual' });
    expect(outcome.status).toBe('SUCCEEDED');
    expect(calls.map((c) => c.step)).not.toContain('apply');
    expect(entered(events)).toEqual(expect.arrayContaining(['PolicyAllowsApply', 'WriteStatus', 'Done']));
    expect(entered(events)).not.toContain('ApplyStep');
  });

  it('approval: AwaitApproval waits on a token; nobody answers, so it times out into EndApproval, never ApplyStep', async () => {
    const { run, calls } = reconcile(
      { ...planned, policy: async () => ({ outcome: 'approval', allow: true }) },
      { ...DEFAULT_DEFINITION_OPTIONS, approvalTimeoutSeconds: 1 },
    );
    const { outcome, events } = await run({ id: 'team/a', trigger: 'manual' });
    expect(outcome.status).toBe('SUCCEEDED');
    expect(calls.map((c) => c.step)).not.toContain('apply');
    const wait = calls.find((c) => c.step === 'writeStatus' && 'approvalWait' in c.input);
    expect(wait?.input['approvalWait']).toEqual({ token: expect.any(String), timeoutSeconds: 1 });
    const end = calls.find((c) => c.step === 'writeStatus' && 'approvalEnd' in c.input);
    expect(end?.input['approvalEnd']).toMatchObject({ Error: 'States.Timeout' });
    expect(entered(events)).toEqual(
      expect.arrayContaining(['AwaitApproval', 'EndApproval', 'NewerGeneration', 'ReleaseLease', 'Done']),
    );
    expect(entered(events)).not.toContain('ApplyStep');
  });

  it('allow: ApplyStep runs', async () => {
    const { run, calls } = reconcile(
      { ...planned, policy: async () => ({ allow: true, outcome: 'allow' }), apply: async () => ({}) },
      { ...DEFAULT_DEFINITION_OPTIONS, maxLoops: 0 },
    );
    await run({ id: 'team/a', trigger: 'manual' });
    expect(calls.map((c) => c.step)).toContain('apply');
  });
});

describe('StartExecution input is validated before any Task', () => {
  const invalid: [string, unknown, RegExp][] = [
    ['empty input', {}, /needs the string fields id and trigger/],
    ['no trigger', { id: 'team/a' }, /needs the string fields id and trigger/],
    ['no id', { trigger: 'manual' }, /needs the string fields id and trigger/],
    ['numeric id', { id: 7, trigger: 'manual' }, /needs the string fields id and trigger/],
    ['null trigger', { id: 'team/a', trigger: null }, /needs the string fields id and trigger/],
    ['array input', [], /needs the string fields id and trigger/],
    ['string input', 'team/a', /needs the string fields id and trigger/],
    [
      'unknown trigger',
      { id: 'team/a', trigger: 'delete' },
      /trigger must be one of change, sweep, drift, manual/,
    ],
    ['trigger in capitals', { id: 'team/a', trigger: 'Manual' }, /trigger must be one of/],
    ['empty id', { id: '', trigger: 'manual' }, /id must be <namespace>\/<name>/],
    ['no namespace', { id: 'payments', trigger: 'manual' }, /id must be/],
    ['three parts', { id: 'a/b/c', trigger: 'manual' }, /id must be/],
    ['empty name', { id: 'team/', trigger: 'manual' }, /id must be/],
    ['empty namespace', { id: '/x', trigger: 'manual' }, /id must be/],
    ['leading hyphen', { id: '-team/x', trigger: 'manual' }, /id must be/],
    ['trailing hyphen', { id: 'team/x-', trigger: 'manual' }, /id must be/],
    ['hyphen before slash', { id: 'team-/x', trigger: 'manual' }, /id must be/],
    ['hyphen after slash', { id: 'team/-x', trigger: 'manual' }, /id must be/],
    ['capitals', { id: 'Team/x', trigger: 'manual' }, /id must be/],
    ['space', { id: 'team/pay ments', trigger: 'manual' }, /id must be/],
    ['newline', { id: 'team/x\n', trigger: 'manual' }, /id must be/],
    ['dot', { id: 'team/x.y', trigger: 'manual' }, /id must be/],
    ['underscore', { id: 'team/x_y', trigger: 'manual' }, /id must be/],
    ['star', { id: 'team/*', trigger: 'manual' }, /id must be/],
  ];

  it.each(invalid)('%s: fails at once with InvalidInput and calls nothing', async (_, input, cause) => {
    const { run, calls } = reconcile(converged);
    const { outcome, events } = await run(input);
    expect(outcome.status).toBe('FAILED');
    if (outcome.status !== 'FAILED') return;
    expect(outcome.error).toBe('InvalidInput');
    expect(outcome.cause).toMatch(cause);
    expect(outcome.cause).toMatch(/Nothing was done/);
    expect(calls).toEqual([]);
    expect(events.filter((e) => e.type === 'StateEntered').map((e) => 'state' in e && e.state.name)).toEqual([
      'ValidateInput',
      expect.any(String),
    ]);
  });

  it.each(TRIGGERS.map((t) => [t]))('trigger %s is accepted', async (trigger) => {
    const { run, calls } = reconcile(converged);
    const { outcome } = await run({ id: 'team/a', trigger });
    expect(outcome.status).toBe('SUCCEEDED');
    expect(calls[0]?.step).toBe('lease');
  });

  it('accepts exactly the DNS-label ids over the alphabet it can check', async () => {
    // The lease is held elsewhere and not waited for: an accepted input costs one lease call.
    const { run, calls } = reconcile(
      { lease: async () => ({ acquired: false }) },
      { ...DEFAULT_DEFINITION_OPTIONS, maxLeaseWaits: 0 },
    );
    // Two labels over [ab09-], then sometimes one character swapped for one it must refuse.
    let seed = 12;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return Math.floor((seed / 2 ** 31) * n);
    };
    const pick = (chars: string) => chars[random(chars.length)]!;
    const label = () => Array.from({ length: 1 + random(4) }, () => pick('ab09-')).join('');
    const sample = Array.from({ length: 300 }, () => {
      const id = `${label()}/${label()}`;
      if (random(2) === 0) return id;
      const at = random(id.length);
      return id.slice(0, at) + pick('/Z. _:@*\t"{') + id.slice(at + 1);
    });
    const ids = [
      'a/b',
      '0/9',
      'a-b/c-d',
      'team-a/payments-prod-1',
      `${'a'.repeat(63)}/${'b'.repeat(63)}`,
      'a--b/c',
      ...sample,
    ];
    let accepted = 0;
    for (const id of ids) {
      const before = calls.length;
      const { outcome } = await run({ id, trigger: 'sweep' });
      const valid = RECORD_ID.test(id);
      expect(outcome.status === 'SUCCEEDED' ? 'accepted' : failed(outcome), id).toEqual(
        valid ? 'accepted' : expect.objectContaining({ error: 'InvalidInput' }),
      );
      expect(calls.length - before, id).toBe(valid ? 1 : 0);
      if (valid) accepted++;
    }
    expect(accepted).toBeGreaterThan(50); // the sample exercises both sides
    expect(ids.length - accepted).toBeGreaterThan(50);
  });

  it('the deployed definition stays valid ASL with the validation rules', () => {
    const r = aslValidator(JSON.parse(substitute(definitionString(), ARNS)));
    expect(r.errorsText('\n')).toBe('');
    expect(r.isValid).toBe(true);
  });
});

describe('the lease names its execution', () => {
  it('AcquireLease gets $$.Execution.Id; the local endpoint makes it the ARN DescribeExecution accepts', async () => {
    let seenArn: unknown;
    let seenStatus: string | undefined;
    let sfn: SFNClient | undefined;
    const endpoint = await startLocalSfnEndpoint({
      stateMachines: [
        {
          arn: SM_ARN,
          definition: substitute(definitionString(), ARNS),
          handlers: handlersFor(
            {
              ...converged,
              lease: async (i) => {
                const req = i as { action: string; executionArn?: string };
                if (req.action !== 'acquire') return { released: true };
                seenArn = req.executionArn;
                // Asked while the holder runs, as a later reader of the lease would.
                const d = await sfn!.send(new DescribeExecutionCommand({ executionArn: req.executionArn }));
                seenStatus = d.status;
                return { acquired: true };
              },
            },
            [],
          ),
        },
      ],
      waitScale: 0.001,
      retryIntervalMs: 1,
    });
    sfn = localSfnClient(endpoint.url);
    try {
      const { executionArn } = await sfn.send(
        new StartExecutionCommand({
          stateMachineArn: SM_ARN,
          name: 'team-a-1-manual',
          input: JSON.stringify({ id: 'team/a', trigger: 'manual' }),
        }),
      );
      const done = await endpoint.waitForExecution(executionArn!);
      expect(done.status).toBe('SUCCEEDED');
      expect(seenArn).toBe(`arn:aws:states:us-east-1:111111111111:execution:${SM_NAME}:team-a-1-manual`);
      expect(seenArn).toBe(executionArn);
      expect(seenStatus).toBe('RUNNING');
    } finally {
      sfn.destroy();
      await endpoint.close();
    }
  });
});
