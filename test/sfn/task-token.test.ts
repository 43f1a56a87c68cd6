/**
 * The callback pattern through the interpreter: tokens, SendTaskSuccess/Failure/Heartbeat as the
 * token store's methods, TimeoutSeconds and HeartbeatSeconds (on a fake clock), and no default
 * Task timeout.
 */
import { createHook } from 'node:async_hooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DefinitionError, LocalStateMachine, type TaskHandler } from '../../local/sfn/interpreter.js';
import { longTimer } from '../../local/sfn/task-tokens.js';
import { APPROVE_ARN, approver, callbackDefinition, codeOf } from './callback-sample.js';
import { RECORD_ARN, STEP_ARN } from './sample.js';

afterEach(() => {
  vi.useRealTimers();
});

const fakeClock = () => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });

describe('callback Tasks (lambda:invoke.waitForTaskToken)', () => {
  it('invokes the function with a fresh token and takes SendTaskSuccess output as the result', async () => {
    const a = approver();
    const m = new LocalStateMachine(callbackDefinition(), { handlers: a.handlers });
    const run = m.run({ id: 'c1' });
    const p = await a.next();
    expect(p.cluster).toBe('c1');
    expect(p.token).toMatch(/^[A-Za-z0-9_-]{64}$/);
    expect(p.note).toBe(`t=${p.token}`); // intrinsic functions see the token too
    expect(m.taskTokens.openTasks()).toMatchObject([
      { taskToken: p.token, state: 'Approve', functionName: APPROVE_ARN },
    ]);
    m.taskTokens.succeed(p.token, JSON.stringify({ approved: true }));
    // The output itself, not a Lambda invoke envelope, and the handler's return value is ignored.
    expect(await run).toEqual({ status: 'SUCCEEDED', output: { id: 'c1', approval: { approved: true } } });
    expect(codeOf(() => m.taskTokens.succeed(p.token, '{}'))).toBe('TaskDoesNotExist');
    expect(m.taskTokens.openTasks()).toEqual([]);
  });

  it('leaves no timer behind when the execution stops while a callback waits', async () => {
    // The interpreter's own Task timer lasts weeks: one left running keeps the process alive
    // (`cloudorch dev` did not exit after a rollout waiting for approval was aborted).
    const live = new Map<number, string>();
    const hook = createHook({
      init(id, type) {
        if (type === 'Timeout') live.set(id, new Error().stack ?? '');
      },
      destroy(id) {
        live.delete(id);
      },
    }).enable();
    try {
      const a = approver();
      const m = new LocalStateMachine(callbackDefinition(), { handlers: a.handlers });
      const stop = new AbortController();
      const run = m.run({ id: 'c9' }, { signal: stop.signal });
      await a.next();
      stop.abort();
      expect(await run).toEqual({ status: 'ABORTED' });
      await new Promise((r) => setImmediate(r));
      expect([...live.values()].filter((st) => st.includes('aws-local-stepfunctions'))).toEqual([]);
    } finally {
      hook.disable();
    }
  });

  it('sends SendTaskFailure error and cause to the Catch', async () => {
    const a = approver();
    const m = new LocalStateMachine(callbackDefinition(), { handlers: a.handlers });
    const run = m.run({ id: 'c2' });
    m.taskTokens.fail((await a.next()).token, 'Rejected', 'not today');
    expect(await run).toEqual({
      status: 'SUCCEEDED',
      output: { id: 'c2', error: { Error: 'Rejected', Cause: 'not today' } },
    });
  });

  it('fails the task at once when the function throws, closing its token', async () => {
    class SpecInvalid extends Error {
      override readonly name = 'SpecInvalid';
    }
    const a = approver(async () => {
      throw new SpecInvalid('bad spec');
    });
    const m = new LocalStateMachine(callbackDefinition(), { handlers: a.handlers });
    const outcome = await m.run({ id: 'c3' });
    expect(outcome).toMatchObject({ status: 'FAILED', error: 'SpecInvalid' });
    expect(codeOf(() => m.taskTokens.succeed(a.received[0]!.token, '{}'))).toBe('TaskDoesNotExist');
  });

  it('gives each retry its own token and closes the failed one', async () => {
    const a = approver();
    const retry = [{ ErrorEquals: ['Flaky'], IntervalSeconds: 1, MaxAttempts: 2 }];
    const m = new LocalStateMachine(callbackDefinition({ Retry: retry }), {
      handlers: a.handlers,
      retryIntervalMs: 1,
    });
    const run = m.run({ id: 'c4' });
    const first = await a.next();
    m.taskTokens.fail(first.token, 'Flaky', 'try again');
    const second = await a.next();
    expect(second.token).not.toBe(first.token);
    expect(codeOf(() => m.taskTokens.heartbeat(first.token))).toBe('TaskDoesNotExist');
    m.taskTokens.succeed(second.token, '"ok"');
    expect(await run).toMatchObject({ status: 'SUCCEEDED', output: { approval: 'ok' } });
  });

  it('answers the API error codes for malformed, unknown and bad-output calls', async () => {
    const a = approver();
    const m = new LocalStateMachine(callbackDefinition(), { handlers: a.handlers });
    const run = m.run({ id: 'c5' });
    const { token } = await a.next();
    const cases: [string, () => void, string][] = [
      ['not a token this store could issue', () => m.taskTokens.heartbeat('garbage'), 'InvalidToken'],
      ['well-formed but never issued', () => m.taskTokens.heartbeat('A'.repeat(64)), 'TaskDoesNotExist'],
      ['empty token', () => m.taskTokens.heartbeat(''), 'ValidationException'],
      ['token over 2048 characters', () => m.taskTokens.heartbeat('A'.repeat(2049)), 'ValidationException'],
      ['output that is not JSON', () => m.taskTokens.succeed(token, '{nope'), 'InvalidOutput'],
      [
        'output over 262144 bytes',
        () => m.taskTokens.succeed(token, `"${'é'.repeat(131_072)}"`),
        'ValidationException',
      ],
      ['error over 256 characters', () => m.taskTokens.fail(token, 'E'.repeat(257)), 'ValidationException'],
      [
        'cause over 32768 characters',
        () => m.taskTokens.fail(token, 'E', 'c'.repeat(32_769)),
        'ValidationException',
      ],
      ['a heartbeat on an open task', () => m.taskTokens.heartbeat(token), 'no error'],
    ];
    for (const [why, call, code] of cases) expect(codeOf(call), why).toBe(code);
    m.taskTokens.succeed(token, '{}'); // none of the refused calls closed it
    expect((await run).status).toBe('SUCCEEDED');
  });

  it('refuses callback definitions it cannot serve', () => {
    const a = approver();
    const refused: [string, Record<string, unknown>, RegExp][] = [
      [
        'no token in the Payload',
        { Parameters: { FunctionName: APPROVE_ARN, Payload: { x: 1 } } },
        /Task\.Token/,
      ],
      [
        'a FunctionName chosen at run time',
        { Parameters: { 'FunctionName.$': '$.fn', Payload: { 't.$': '$$.Task.Token' } } },
        /FunctionName/,
      ],
      [
        'another waitForTaskToken integration',
        { Resource: 'arn:aws:states:::sqs:sendMessage.waitForTaskToken' },
        /only lambda/,
      ],
      ['TimeoutSecondsPath', { TimeoutSecondsPath: '$.t' }, /TimeoutSecondsPath/],
      [
        'a function without a handler',
        { Parameters: { FunctionName: STEP_ARN, Payload: { 't.$': '$$.Task.Token' } } },
        /FunctionName/,
      ],
    ];
    for (const [why, task, message] of refused) {
      expect(() => new LocalStateMachine(callbackDefinition(task), { handlers: a.handlers }), why).toThrow(
        DefinitionError,
      );
      expect(() => new LocalStateMachine(callbackDefinition(task), { handlers: a.handlers }), why).toThrow(
        message,
      );
    }
  });
});

describe('callback Tasks inside a Parallel', () => {
  it('a failed sibling branch closes the token of a waiting callback', async () => {
    const a = approver();
    const failing: TaskHandler = async () => {
      throw Object.assign(new Error('broken'), { name: 'Broken' });
    };
    const callback = callbackDefinition().States.Approve;
    const def = {
      StartAt: 'Both',
      States: {
        Both: {
          Type: 'Parallel',
          Branches: [
            {
              StartAt: 'Approve',
              States: { Approve: { ...callback, Catch: undefined, Next: undefined, End: true } },
            },
            { StartAt: 'Step', States: { Step: { Type: 'Task', Resource: STEP_ARN, End: true } } },
          ],
          Catch: [{ ErrorEquals: ['Broken'], ResultPath: '$.error', Next: 'Caught' }],
          End: true,
        },
        Caught: { Type: 'Task', Resource: RECORD_ARN, ResultPath: null, End: true },
      },
    };
    // The execution goes on after the catch, so only the failed Parallel can close the token.
    let caughtEntered: () => void = () => {};
    const entered = new Promise<void>((r) => (caughtEntered = r));
    let finish: () => void = () => {};
    const held: TaskHandler = () => {
      caughtEntered();
      return new Promise((r) => (finish = () => r({})));
    };
    const m = new LocalStateMachine(JSON.parse(JSON.stringify(def)), {
      handlers: new Map([...a.handlers, [STEP_ARN, failing], [RECORD_ARN, held]]),
    });
    const run = m.run({ id: 'p1' });
    const { token } = await a.next();
    await entered;
    await new Promise((r) => setTimeout(r, 0)); // the library's event log is delivered asynchronously
    expect(codeOf(() => m.taskTokens.succeed(token, '{}'))).toBe('TaskDoesNotExist');
    finish();
    expect(await run).toMatchObject({ status: 'SUCCEEDED', output: { error: { Error: 'Broken' } } });
  });
});

describe('callback timeouts on a fake clock', () => {
  it('a heartbeat keeps the task alive past HeartbeatSeconds; its absence times it out', async () => {
    fakeClock();
    const a = approver();
    const catchTimeout = [{ ErrorEquals: ['States.Timeout'], ResultPath: '$.error', Next: 'WasRejected' }];
    const def = callbackDefinition({ HeartbeatSeconds: 60, Catch: catchTimeout });
    const m = new LocalStateMachine(def, { handlers: a.handlers });
    const run = m.run({ id: 'h1' });
    const { token } = await a.next();
    for (let i = 0; i < 5; i++) {
      await vi.advanceTimersByTimeAsync(50_000); // 250 s in all, each gap under 60 s
      m.taskTokens.heartbeat(token);
    }
    expect(m.taskTokens.isOpen(token)).toBe(true);
    await vi.advanceTimersByTimeAsync(60_000);
    // States.Timeout in a catcher also matches the heartbeat timeout.
    expect(await run).toMatchObject({
      status: 'SUCCEEDED',
      output: { error: { Error: 'States.HeartbeatTimeout' } },
    });
    expect(codeOf(() => m.taskTokens.succeed(token, '{}'))).toBe('TaskTimedOut');
    expect(codeOf(() => m.taskTokens.heartbeat(token))).toBe('TaskTimedOut');
  });

  it('TimeoutSeconds bounds the whole wait whatever the heartbeats, and States.TaskFailed does not catch it', async () => {
    fakeClock();
    const a = approver();
    const catchTaskFailed = [{ ErrorEquals: ['States.TaskFailed'], Next: 'WasRejected' }];
    const def = callbackDefinition({ TimeoutSeconds: 300, HeartbeatSeconds: 60, Catch: catchTaskFailed });
    const m = new LocalStateMachine(def, { handlers: a.handlers });
    const run = m.run({ id: 'h2' });
    const { token } = await a.next();
    for (let i = 0; i < 5; i++) {
      await vi.advanceTimersByTimeAsync(50_000);
      m.taskTokens.heartbeat(token);
    }
    await vi.advanceTimersByTimeAsync(49_000);
    expect(m.taskTokens.isOpen(token)).toBe(true);
    await vi.advanceTimersByTimeAsync(1_000); // 300 s since it started, 50 s since the last heartbeat
    expect(await run).toMatchObject({ status: 'FAILED', error: 'States.Timeout' });
    expect(codeOf(() => m.taskTokens.succeed(token, '{}'))).toBe('TaskTimedOut');
  });

  it('gives no Task a default timeout: a callback and a plain Lambda wait for days', async () => {
    fakeClock();
    const a = approver();
    let releaseStep: (v: unknown) => void = () => {};
    const step: TaskHandler = () => new Promise((resolve) => (releaseStep = resolve));
    const def = callbackDefinition({ Next: 'Step' });
    const states = {
      ...def.States,
      Step: { Type: 'Task', Resource: STEP_ARN, ResultPath: '$.step', Next: 'Done' },
    };
    const m = new LocalStateMachine(
      { ...def, States: states },
      { handlers: new Map([...a.handlers, [STEP_ARN, step]]) },
    );
    const run = m.run({ id: 'd1' });
    const { token } = await a.next();
    await vi.advanceTimersByTimeAsync(3 * 24 * 3600_000); // three days without a word
    m.taskTokens.succeed(token, '{"approved":true}');
    await vi.advanceTimersByTimeAsync(3 * 24 * 3600_000);
    releaseStep({ done: true });
    expect(await run).toMatchObject({
      status: 'SUCCEEDED',
      output: { approval: { approved: true }, step: { done: true } },
    });
  });

  it('times out a plain Lambda Task after its TimeoutSeconds with States.Timeout', async () => {
    fakeClock();
    const never: TaskHandler = () => new Promise(() => {});
    const def = {
      StartAt: 'Step',
      States: { Step: { Type: 'Task', Resource: STEP_ARN, TimeoutSeconds: 120, End: true } },
    };
    const m = new LocalStateMachine(def, { handlers: new Map([[STEP_ARN, never]]) });
    const run = m.run({});
    await vi.advanceTimersByTimeAsync(119_000);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await run).toMatchObject({ status: 'FAILED', error: 'States.Timeout' });
  });
});

describe('a top-level TimeoutSeconds above 2^31-1 ms', () => {
  const forever = (timeoutSeconds: number) => ({
    TimeoutSeconds: timeoutSeconds,
    StartAt: 'Day',
    States: {
      Day: { Type: 'Wait', Seconds: 86_400, Next: 'Again?' },
      'Again?': {
        Type: 'Choice',
        Choices: [{ Variable: '$.stop', IsPresent: true, Next: 'End' }],
        Default: 'Day',
      },
      End: { Type: 'Succeed' },
    },
  });

  it('does not end the execution at once', async () => {
    const m = new LocalStateMachine(forever(99_999_999), { handlers: new Map() });
    const stop = new AbortController();
    const run = m.run({}, { signal: stop.signal });
    await new Promise((r) => setTimeout(r, 30));
    stop.abort();
    expect(await run).toEqual({ status: 'ABORTED' });
  });

  it('still times the execution out when it elapses', async () => {
    fakeClock();
    const m = new LocalStateMachine(forever(3_000_000), { handlers: new Map() }); // about 35 days
    let outcome: unknown;
    void m.run({}).then((o) => {
      outcome = o;
    });
    await vi.advanceTimersByTimeAsync(2_999_999_000);
    expect(outcome).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(outcome).toEqual({ status: 'TIMED_OUT' });
  });
});

describe('longTimer', () => {
  it('does not fire a delay above 2^31-1 ms at once, as a bare setTimeout would', async () => {
    let fired = false;
    const cancel = longTimer(2 ** 31 + 10, () => {
      fired = true;
    });
    await new Promise((r) => setTimeout(r, 30));
    cancel();
    expect(fired).toBe(false);
  });

  it('chains to the full delay', async () => {
    fakeClock();
    let fired = 0;
    longTimer(2 ** 31 + 5_000, () => fired++);
    await vi.advanceTimersByTimeAsync(2 ** 31 - 1);
    expect(fired).toBe(0);
    await vi.advanceTimersByTimeAsync(5_001);
    expect(fired).toBe(1);
  });
});
