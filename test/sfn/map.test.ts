/**
 * Inline Map states as the library runs them: MaxConcurrency and MaxConcurrencyPath bound the
 * iterations in flight, results keep item order, a failed iteration reaches the Map's Catch, each
 * iteration's callback Task gets its own token, Waits read their iteration's item, and
 * GetExecutionHistory reports the iterations.
 */
import { GetExecutionHistoryCommand, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startLocalSfnEndpoint } from '../../local/sfn/endpoint.js';
import { LocalStateMachine, type TaskHandler } from '../../local/sfn/interpreter.js';
import { CALLBACK_RESOURCE } from '../../local/sfn/task-run.js';
import { APPROVE_ARN, approver, codeOf } from './callback-sample.js';
import { localSfnClient, STEP_ARN } from './sample.js';

const MAP_SM_ARN = 'arn:aws:states:us-east-1:111111111111:stateMachine:Fleet';

afterEach(() => {
  vi.useRealTimers();
});

/** A Map over `$.items` whose iteration runs `processor`, caught by `Caught` into `$.error`. */
function mapDefinition(processor: object, map: Record<string, unknown> = {}) {
  return {
    StartAt: 'Each',
    States: {
      Each: {
        Type: 'Map',
        ItemsPath: '$.items',
        ItemProcessor: processor,
        ResultPath: '$.results',
        Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'Caught' }],
        End: true,
        ...map,
      },
      Caught: { Type: 'Pass', End: true },
    },
  };
}

const stepProcessor = { StartAt: 'Step', States: { Step: { Type: 'Task', Resource: STEP_ARN, End: true } } };

/** A step handler that holds every call until the test releases it, counting calls in flight. */
function heldSteps() {
  const held: { item: { n: number; fail?: boolean }; release: () => void }[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const arrived: (() => void)[] = [];
  const handler: TaskHandler = async (input) => {
    const item = input as { n: number; fail?: boolean };
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await new Promise<void>((release) => {
      held.push({ item, release });
      arrived.shift()?.();
    });
    inFlight--;
    if (item.fail) throw Object.assign(new Error(`item ${item.n} failed`), { name: 'ItemFailed' });
    return { n: item.n, doubled: item.n * 2 };
  };
  const waitForHeld = async (count: number) => {
    while (held.length < count) await new Promise<void>((r) => arrived.push(r));
  };
  return { handlers: new Map([[STEP_ARN, handler]]), held, waitForHeld, max: () => maxInFlight };
}

describe('Map with MaxConcurrency', () => {
  it('keeps at most MaxConcurrency iterations in flight, processes all items, results in order', async () => {
    const s = heldSteps();
    const m = new LocalStateMachine(mapDefinition(stepProcessor, { MaxConcurrency: 2 }), {
      handlers: s.handlers,
    });
    const run = m.run({ items: [1, 2, 3, 4, 5].map((n) => ({ n })) });
    await s.waitForHeld(2);
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, 5)); // room for an extra iteration to start, if the bound leaked
      expect(s.held.length).toBe(Math.min(i + 2, 5));
      s.held[i]!.release();
      if (i + 3 <= 5) await s.waitForHeld(i + 3);
    }
    const outcome = await run;
    expect(s.max()).toBe(2);
    expect(outcome).toMatchObject({ status: 'SUCCEEDED' });
    if (outcome.status !== 'SUCCEEDED') return;
    expect((outcome.output as { results: unknown[] }).results).toEqual(
      [1, 2, 3, 4, 5].map((n) => ({ n, doubled: n * 2 })),
    );
  });

  it('reads the bound from MaxConcurrencyPath', async () => {
    const s = heldSteps();
    const def = mapDefinition(stepProcessor, { MaxConcurrencyPath: '$.limit' });
    const m = new LocalStateMachine(def, { handlers: s.handlers });
    const run = m.run({ limit: 3, items: [1, 2, 3, 4].map((n) => ({ n })) });
    await s.waitForHeld(3);
    await new Promise((r) => setTimeout(r, 5));
    expect(s.held.length).toBe(3);
    for (let i = 0; i < 4; i++) {
      await s.waitForHeld(i + 1);
      s.held[i]!.release();
    }
    expect((await run).status).toBe('SUCCEEDED');
    expect(s.max()).toBe(3);
  });

  it("sends a failed iteration to the Map's Catch", async () => {
    const s = heldSteps();
    const m = new LocalStateMachine(mapDefinition(stepProcessor, { MaxConcurrency: 1 }), {
      handlers: s.handlers,
    });
    const run = m.run({ items: [{ n: 1 }, { n: 2, fail: true }, { n: 3 }] });
    for (let i = 0; i < 2; i++) {
      await s.waitForHeld(i + 1);
      s.held[i]!.release();
    }
    const outcome = await run;
    expect(outcome).toMatchObject({ status: 'SUCCEEDED', output: { error: { Error: 'ItemFailed' } } });
    // The library frees the failed iteration's slot before it aborts the Map, so the third item may
    // start; it is aborted and its result never reaches the output.
    expect(s.held.length).toBeLessThanOrEqual(3);
  });
});

describe('Map iterations with callbacks and Waits', () => {
  const callbackProcessor = {
    StartAt: 'Approve',
    States: {
      Approve: {
        Type: 'Task',
        Resource: CALLBACK_RESOURCE,
        Parameters: {
          FunctionName: APPROVE_ARN,
          Payload: { 'cluster.$': '$.id', 'token.$': '$$.Task.Token' },
        },
        End: true,
      },
    },
  };

  it("gives each iteration its own token; a failed one closes its siblings' tokens", async () => {
    const a = approver();
    const m = new LocalStateMachine(mapDefinition(callbackProcessor, { MaxConcurrency: 3 }), {
      handlers: a.handlers,
    });
    const run = m.run({ items: [{ id: 'a' }, { id: 'b' }, { id: 'c' }] });
    const got = [await a.next(), await a.next(), await a.next()];
    expect(new Set(got.map((p) => p.token)).size).toBe(3);
    const byId = Object.fromEntries(got.map((p) => [p.cluster, p.token]));
    m.taskTokens.succeed(byId['a']!, '"A"');
    m.taskTokens.fail(byId['b']!, 'Rejected', 'b said no');
    expect(await run).toMatchObject({ status: 'SUCCEEDED', output: { error: { Error: 'Rejected' } } });
    expect(codeOf(() => m.taskTokens.succeed(byId['c']!, '"C"'))).toBe('TaskDoesNotExist');
  });

  it('completes every iteration in item order when each token succeeds', async () => {
    const a = approver();
    const m = new LocalStateMachine(mapDefinition(callbackProcessor, { MaxConcurrency: 2 }), {
      handlers: a.handlers,
    });
    const run = m.run({ items: [{ id: 'a' }, { id: 'b' }, { id: 'c' }] });
    for (let i = 0; i < 3; i++) {
      const p = await a.next();
      m.taskTokens.succeed(p.token, JSON.stringify(`done-${p.cluster}`));
    }
    expect(await run).toMatchObject({ output: { results: ['done-a', 'done-b', 'done-c'] } });
  });

  it("runs SecondsPath and TimestampPath Waits on each iteration's own item", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const waitProcessor = {
      StartAt: 'Which',
      States: {
        Which: {
          Type: 'Choice',
          Choices: [{ Variable: '$.at', IsPresent: true, Next: 'Until' }],
          Default: 'For',
        },
        For: { Type: 'Wait', SecondsPath: '$.seconds', End: true },
        Until: { Type: 'Wait', TimestampPath: '$.at', End: true },
      },
    };
    const m = new LocalStateMachine(mapDefinition(waitProcessor), { handlers: new Map() });
    const at = new Date(Date.now() + 20_000).toISOString();
    let done = false;
    const run = m.run({ items: [{ seconds: 10 }, { at }] }).then((o) => {
      done = true;
      return o;
    });
    await vi.advanceTimersByTimeAsync(10_500);
    expect(done).toBe(false); // the TimestampPath iteration still waits
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await run).toMatchObject({ status: 'SUCCEEDED', output: { results: [{ seconds: 10 }, { at }] } });
  });
});

describe('Map history', () => {
  it('reports the Map state and each iteration', async () => {
    const steps = new Map<string, TaskHandler>([[STEP_ARN, async (i) => i]]);
    const ep = await startLocalSfnEndpoint({
      stateMachines: [
        { arn: MAP_SM_ARN, definition: mapDefinition(stepProcessor, { MaxConcurrency: 1 }), handlers: steps },
      ],
    });
    const sfn = localSfnClient(ep.url);
    try {
      const { executionArn } = await sfn.send(
        new StartExecutionCommand({
          stateMachineArn: MAP_SM_ARN,
          input: JSON.stringify({ items: [{ n: 1 }, { n: 2 }] }),
        }),
      );
      await ep.waitForExecution(executionArn!);
      const { events } = await sfn.send(new GetExecutionHistoryCommand({ executionArn }));
      expect(events!.map((e) => e.type)).toEqual([
        'ExecutionStarted',
        'MapStateEntered',
        'MapIterationStarted',
        'TaskStateEntered',
        'LambdaFunctionScheduled',
        'LambdaFunctionStarted',
        'LambdaFunctionSucceeded',
        'TaskStateExited',
        'MapIterationSucceeded',
        'MapIterationStarted',
        'TaskStateEntered',
        'LambdaFunctionScheduled',
        'LambdaFunctionStarted',
        'LambdaFunctionSucceeded',
        'TaskStateExited',
        'MapIterationSucceeded',
        'MapStateSucceeded',
        'MapStateExited',
        'ExecutionSucceeded',
      ]);
      const iterations = events!.filter((e) => e.type === 'MapIterationSucceeded');
      expect(iterations.map((e) => e.mapIterationSucceededEventDetails)).toEqual([
        { name: 'Each', index: 0 },
        { name: 'Each', index: 1 },
      ]);
    } finally {
      sfn.destroy();
      await ep.close();
    }
  });

  it('reports a failed iteration, the aborted ones and the failed Map before its Catch', async () => {
    const a = approver();
    const def = mapDefinition(
      {
        StartAt: 'Approve',
        States: {
          Approve: {
            Type: 'Task',
            Resource: CALLBACK_RESOURCE,
            Parameters: { FunctionName: APPROVE_ARN, Payload: { 'token.$': '$$.Task.Token' } },
            End: true,
          },
        },
      },
      { MaxConcurrency: 2 },
    );
    const ep = await startLocalSfnEndpoint({
      stateMachines: [{ arn: MAP_SM_ARN, definition: def, handlers: a.handlers }],
    });
    const sfn = localSfnClient(ep.url);
    try {
      const { executionArn } = await sfn.send(
        new StartExecutionCommand({ stateMachineArn: MAP_SM_ARN, input: JSON.stringify({ items: [1, 2] }) }),
      );
      const first = await a.next();
      await a.next();
      ep.taskTokens.fail(first.token, 'Rejected', 'no');
      await ep.waitForExecution(executionArn!);
      const { events } = await sfn.send(new GetExecutionHistoryCommand({ executionArn }));
      const mapEvents = events!.map((e) => e.type).filter((t) => t?.startsWith('Map'));
      expect(mapEvents).toEqual([
        'MapStateEntered',
        'MapIterationStarted',
        'MapIterationStarted',
        'MapIterationFailed',
        'MapIterationAborted',
        'MapStateFailed',
        'MapStateExited',
      ]);
      expect(events!.find((e) => e.type === 'MapIterationAborted')?.mapIterationAbortedEventDetails).toEqual({
        name: 'Each',
        index: 1,
      });
    } finally {
      sfn.destroy();
      await ep.close();
    }
  });
});
