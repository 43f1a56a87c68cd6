import { describe, expect, it } from 'vitest';
import {
  DefinitionError,
  type ExecutionEvent,
  LocalStateMachine,
  type TaskHandler,
} from '../../local/sfn/interpreter.js';
import { definition, RECORD_ARN, STEP_ARN, scriptedHandlers } from './sample.js';

const fast = { waitScale: 0.001, retryIntervalMs: 1 };

async function run(machine: LocalStateMachine, input: unknown, signal?: AbortSignal) {
  const events: ExecutionEvent[] = [];
  const outcome = await machine.run(input, { onEvent: (e) => events.push(e), ...(signal ? { signal } : {}) });
  return { outcome, events };
}

const ofType = (events: ExecutionEvent[], type: string, state?: string) =>
  events.filter((e) => e.type === type && (state === undefined || ('state' in e && e.state.name === state)));

describe('LocalStateMachine overrides', () => {
  it('maps every Task by state name to the handler of its Resource and scales fixed waits', () => {
    const s = scriptedHandlers();
    const o = new LocalStateMachine(definition, { handlers: s.handlers, ...fast }).overrides();
    expect(Object.keys(o.taskResourceLocalHandlers ?? {}).sort()).toEqual(['RecordFailure', 'Step']);
    expect(o.waitTimeOverrides).toEqual({ WaitBeforeNext: 30 });
    expect(o.retryIntervalOverrides).toEqual({ Step: 1 });
  });

  it('leaves real time alone by default and SecondsPath waits unscaled unless dynamicWaitMs is set', () => {
    const s = scriptedHandlers();
    const def = {
      StartAt: 'W',
      States: {
        W: { Type: 'Wait', SecondsPath: '$.wait', Next: 'F' },
        F: { Type: 'Wait', Seconds: 5, End: true },
      },
    };
    expect(
      new LocalStateMachine(def, { handlers: s.handlers }).overrides().waitTimeOverrides,
    ).toBeUndefined();
    expect(
      new LocalStateMachine(def, { handlers: s.handlers, waitScale: 0.01 }).overrides().waitTimeOverrides,
    ).toEqual({ F: 50 });
    expect(
      new LocalStateMachine(def, { handlers: s.handlers, waitScale: 0.01, dynamicWaitMs: 2 }).overrides()
        .waitTimeOverrides,
    ).toEqual({ F: 50, W: 2 });
  });

  it('refuses a Task without a handler instead of calling real Lambda', () => {
    const only = new Map<string, TaskHandler>([[STEP_ARN, async () => ({})]]);
    expect(() => new LocalStateMachine(definition, { handlers: only })).toThrow(DefinitionError);
    expect(() => new LocalStateMachine(definition, { handlers: only })).toThrow(
      /RecordFailure.*record-failure/,
    );
  });

  it('refuses invalid ASL with the validator message', () => {
    const s = scriptedHandlers();
    const bad = { StartAt: 'Nope', States: { A: { Type: 'Pass', End: true } } };
    expect(() => new LocalStateMachine(bad, { handlers: s.handlers })).toThrow(DefinitionError);
    expect(() => new LocalStateMachine('{not json', { handlers: s.handlers })).toThrow(DefinitionError);
  });
});

describe('LocalStateMachine runs', () => {
  it('converges through the Choice -> Wait -> loop', async () => {
    const s = scriptedHandlers();
    const m = new LocalStateMachine(definition, { handlers: s.handlers, ...fast });
    const { outcome, events } = await run(m, { id: 'loop', doneAfter: 3 });
    expect(outcome).toEqual({
      status: 'SUCCEEDED',
      output: { id: 'loop', doneAfter: 3, result: { done: true, calls: 3 } },
    });
    expect(s.calls('loop')).toBe(3);
    expect(ofType(events, 'StateEntered', 'WaitBeforeNext')).toHaveLength(2);
  });

  it('retries a TransientError (matched by error name) and then succeeds', async () => {
    const s = scriptedHandlers();
    const m = new LocalStateMachine(definition, { handlers: s.handlers, ...fast });
    const { outcome, events } = await run(m, { id: 't', transientFailures: 2 });
    expect(outcome.status).toBe('SUCCEEDED');
    expect(s.calls('t')).toBe(3);
    expect(ofType(events, 'StateRetried', 'Step')).toHaveLength(2);
    expect(ofType(events, 'StateCaught')).toHaveLength(0);
  });

  it('after MaxAttempts the TransientError goes to Catch and the Fail state carries its name', async () => {
    const s = scriptedHandlers();
    const m = new LocalStateMachine(definition, { handlers: s.handlers, ...fast });
    const { outcome } = await run(m, { id: 'x', transientFailures: 99 });
    expect(s.calls('x')).toBe(4); // 1 + MaxAttempts 3
    expect(outcome.status).toBe('FAILED');
    if (outcome.status !== 'FAILED') return;
    expect(outcome.error).toBe('TransientError');
    // The Cause is what Lambda reports for a function error.
    expect(JSON.parse(outcome.cause)).toMatchObject({
      errorType: 'TransientError',
      errorMessage: 'throttled (call 4)',
    });
  });

  it('catches a non-retryable error by its name, without retrying it', async () => {
    const s = scriptedHandlers();
    const m = new LocalStateMachine(definition, { handlers: s.handlers, ...fast });
    const { outcome, events } = await run(m, { id: 'bad', fail: 'SpecInvalid' });
    expect(s.calls('bad')).toBe(1);
    const caught = ofType(events, 'StateCaught', 'Step');
    expect(caught).toHaveLength(1);
    expect(caught[0]?.type === 'StateCaught' && caught[0].catch.catcher.ErrorEquals).toEqual(['SpecInvalid']);
    expect(s.recorded).toHaveLength(1);
    const recorded = s.recorded[0] as { error: { Error: string; Cause: string } };
    expect(recorded.error.Error).toBe('SpecInvalid');
    expect(JSON.parse(recorded.error.Cause).errorMessage).toBe('spec of bad is invalid');
    expect(outcome).toMatchObject({ status: 'FAILED', error: 'SpecInvalid' });
  });

  it('sends other errors to the States.ALL catcher after one call', async () => {
    const s = scriptedHandlers();
    const m = new LocalStateMachine(definition, { handlers: s.handlers, ...fast });
    const { outcome, events } = await run(m, { id: 'p', fail: 'PermanentError' });
    expect(s.calls('p')).toBe(1);
    const caught = ofType(events, 'StateCaught', 'Step');
    expect(caught[0]?.type === 'StateCaught' && caught[0].catch.catcher.ErrorEquals).toEqual(['States.ALL']);
    expect(outcome).toMatchObject({ status: 'FAILED', error: 'PermanentError' });
  });

  it('accepts JitterStrategy FULL and clamps the backoff to MaxDelaySeconds without overrides', async () => {
    // IntervalSeconds 3600 would wait an hour; MaxDelaySeconds 1 caps it (FULL jitter: 0..1 s).
    const s = scriptedHandlers();
    const def = structuredClone(definition);
    Object.assign(def.States.Step.Retry[0]!, {
      IntervalSeconds: 3600,
      MaxDelaySeconds: 1,
      JitterStrategy: 'FULL',
    });
    const m = new LocalStateMachine(def, { handlers: s.handlers, waitScale: 0.001 });
    const { outcome, events } = await run(m, { id: 'j', transientFailures: 1 });
    expect(outcome.status).toBe('SUCCEEDED');
    expect(ofType(events, 'StateRetried', 'Step')).toHaveLength(1);
  });

  it('runs Tasks nested in Parallel branches and Map item processors', async () => {
    const seen: string[] = [];
    const fn = (n: string) => `arn:aws:lambda:us-east-1:111111111111:function:${n}`;
    const handlers = new Map<string, TaskHandler>([
      [fn('a'), async () => 'a'],
      [fn('b'), async () => 'b'],
      [
        fn('item'),
        async (i) => {
          seen.push(String(i));
          return `item-${String(i)}`;
        },
      ],
    ]);
    const def = {
      StartAt: 'Both',
      States: {
        Both: {
          Type: 'Parallel',
          Branches: [
            { StartAt: 'A', States: { A: { Type: 'Task', Resource: fn('a'), End: true } } },
            { StartAt: 'B', States: { B: { Type: 'Task', Resource: fn('b'), End: true } } },
          ],
          ResultPath: '$.parallel',
          Next: 'Each',
        },
        Each: {
          Type: 'Map',
          ItemsPath: '$.items',
          ItemProcessor: {
            StartAt: 'Item',
            States: { Item: { Type: 'Task', Resource: fn('item'), End: true } },
          },
          ResultPath: '$.mapped',
          End: true,
        },
      },
    };
    const m = new LocalStateMachine(def, { handlers });
    const { outcome } = await run(m, { items: [1, 2] });
    expect(outcome).toEqual({
      status: 'SUCCEEDED',
      output: { items: [1, 2], parallel: ['a', 'b'], mapped: ['item-1', 'item-2'] },
    });
    expect(seen.sort()).toEqual(['1', '2']);
  });

  it('refuses two Tasks with one name and different Resources across branches', () => {
    const t = (r: string) => ({ StartAt: 'T', States: { T: { Type: 'Task', Resource: r, End: true } } });
    const r1 = 'arn:aws:lambda:us-east-1:111111111111:function:one';
    const r2 = 'arn:aws:lambda:us-east-1:111111111111:function:two';
    const def = { StartAt: 'P', States: { P: { Type: 'Parallel', Branches: [t(r1), t(r2)], End: true } } };
    const handlers = new Map<string, TaskHandler>([
      [r1, async () => 1],
      [r2, async () => 2],
    ]);
    expect(() => new LocalStateMachine(def, { handlers })).toThrow(/used for two Resources/);
  });

  it('an abort during a retry backoff ends ABORTED and never calls the handler again', async () => {
    const controller = new AbortController();
    let calls = 0;
    const handlers = new Map<string, TaskHandler>([
      [
        STEP_ARN,
        async () => {
          calls++;
          setImmediate(() => controller.abort());
          const e = new Error('throttled');
          e.name = 'TransientError';
          throw e;
        },
      ],
      [RECORD_ARN, async () => ({})],
    ]);
    // A one-hour retry interval: only the abort can end this run.
    const m = new LocalStateMachine(definition, { handlers, retryIntervalMs: 3_600_000 });
    const { outcome } = await run(m, { id: 'stop' }, controller.signal);
    expect(outcome).toEqual({ status: 'ABORTED' });
    await new Promise((r) => setImmediate(r));
    expect(calls).toBe(1);
  });

  it('ends TIMED_OUT when the top-level TimeoutSeconds elapses', async () => {
    const s = scriptedHandlers();
    const m = new LocalStateMachine({ ...definition, TimeoutSeconds: 1 }, { handlers: s.handlers, ...fast });
    const { outcome } = await run(m, { id: 'slow', gate: 'never' });
    s.release('never');
    expect(outcome).toEqual({ status: 'TIMED_OUT' });
  });

  it('passes JSON across the handler boundary, as Lambda does, and exposes the Context object', async () => {
    const fn = 'arn:aws:lambda:us-east-1:111111111111:function:ctx';
    const handlers = new Map<string, TaskHandler>([
      [fn, async (i) => ({ got: i, when: new Date(0), missing: undefined })],
    ]);
    const def = {
      StartAt: 'T',
      States: { T: { Type: 'Task', Resource: fn, Parameters: { 'name.$': '$$.Execution.Name' }, End: true } },
    };
    const outcome = await new LocalStateMachine(def, { handlers }).run(
      {},
      { context: { Execution: { Name: 'n1' } } },
    );
    expect(outcome).toEqual({
      status: 'SUCCEEDED',
      output: { got: { name: 'n1' }, when: '1970-01-01T00:00:00.000Z' },
    });
  });
});
