/**
 * GetExecutionHistory and the state machine descriptions through the unmodified SFNClient, so the
 * shapes are the ones the AWS CLI and SDKs parse.
 */
import {
  DescribeStateMachineCommand,
  DescribeStateMachineForExecutionCommand,
  GetExecutionHistoryCommand,
  type HistoryEvent,
  ListActivitiesCommand,
  ListStateMachinesCommand,
  type SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type LocalSfnEndpoint, startLocalSfnEndpoint } from '../../local/sfn/endpoint.js';
import { definition, localSfnClient, SM_ARN, STEP_ARN, scriptedHandlers } from './sample.js';

const OTHER_ARN = 'arn:aws:states:us-east-1:111111111111:stateMachine:Other';
const DEFINITION = JSON.stringify(definition);

let endpoint: LocalSfnEndpoint;
let sfn: SFNClient;
let script: ReturnType<typeof scriptedHandlers>;

beforeEach(async () => {
  script = scriptedHandlers();
  endpoint = await startLocalSfnEndpoint({
    stateMachines: [
      { arn: SM_ARN, definition: DEFINITION, handlers: script.handlers },
      { arn: OTHER_ARN, definition, handlers: script.handlers },
    ],
    waitScale: 0.001,
    retryIntervalMs: 1,
  });
  sfn = localSfnClient(endpoint.url);
});

afterEach(async () => {
  sfn.destroy();
  await endpoint.close();
});

async function run(name: string, input: object): Promise<string> {
  const { executionArn } = await sfn.send(
    new StartExecutionCommand({ stateMachineArn: SM_ARN, name, input: JSON.stringify(input) }),
  );
  await endpoint.waitForExecution(executionArn!);
  return executionArn!;
}

async function history(executionArn: string, reverseOrder = false): Promise<HistoryEvent[]> {
  return (await sfn.send(new GetExecutionHistoryCommand({ executionArn, reverseOrder }))).events ?? [];
}

async function errorCode(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'no error';
  } catch (e) {
    return (e as Error).name;
  }
}

const SUCCESS_TYPES = [
  'ExecutionStarted',
  'TaskStateEntered',
  'LambdaFunctionScheduled',
  'LambdaFunctionStarted',
  'LambdaFunctionSucceeded',
  'TaskStateExited',
  'ChoiceStateEntered',
  'ChoiceStateExited',
  'SucceedStateEntered',
  'SucceedStateExited',
  'ExecutionSucceeded',
];

describe('GetExecutionHistory', () => {
  it('lists a run in order and reversed, with ids, timestamps and details in AWS shapes', async () => {
    const arn = await run('h1', { id: 'h1', doneAfter: 1 });
    const events = await history(arn);
    expect(events.map((e) => e.type)).toEqual(SUCCESS_TYPES);
    expect(events.map((e) => e.id)).toEqual(SUCCESS_TYPES.map((_, i) => i + 1));
    expect(events.map((e) => e.previousEventId)).toEqual(SUCCESS_TYPES.map((_, i) => i));
    for (const e of events) expect(e.timestamp).toBeInstanceOf(Date);
    expect(JSON.parse(events[0]!.executionStartedEventDetails!.input!)).toEqual({ id: 'h1', doneAfter: 1 });
    expect(events[1]!.stateEnteredEventDetails?.name).toBe('Step');
    expect(events[2]!.lambdaFunctionScheduledEventDetails?.resource).toBe(STEP_ARN);
    expect(JSON.parse(events[4]!.lambdaFunctionSucceededEventDetails!.output!)).toEqual({
      done: true,
      calls: 1,
    });
    const final = JSON.parse(events.at(-1)!.executionSucceededEventDetails!.output!);
    expect(final).toEqual({ id: 'h1', doneAfter: 1, result: { done: true, calls: 1 } });

    const reversed = await history(arn, true);
    expect(reversed).toEqual([...events].reverse());

    const bare = await sfn.send(
      new GetExecutionHistoryCommand({ executionArn: arn, includeExecutionData: false }),
    );
    expect(bare.events?.[0]?.executionStartedEventDetails?.input).toBeUndefined();
    expect(bare.events?.[0]?.executionStartedEventDetails?.inputDetails).toEqual({ truncated: false });
  });

  it('shows each retried attempt and a failure with its error and cause', async () => {
    const retried = await run('h2', { id: 'h2', transientFailures: 2 });
    const attempts = (await history(retried)).filter((e) => e.type?.startsWith('LambdaFunction'));
    expect(attempts.map((e) => e.type)).toEqual([
      ...['LambdaFunctionScheduled', 'LambdaFunctionStarted', 'LambdaFunctionFailed'],
      ...['LambdaFunctionScheduled', 'LambdaFunctionStarted', 'LambdaFunctionFailed'],
      ...['LambdaFunctionScheduled', 'LambdaFunctionStarted', 'LambdaFunctionSucceeded'],
    ]);
    expect(attempts[2]!.lambdaFunctionFailedEventDetails?.error).toBe('TransientError');

    const failed = await run('h3', { id: 'h3', fail: 'PermanentError' });
    const events = await history(failed);
    const taskFailed = events.find((e) => e.type === 'LambdaFunctionFailed')!;
    expect(taskFailed.lambdaFunctionFailedEventDetails?.error).toBe('PermanentError');
    expect(JSON.parse(taskFailed.lambdaFunctionFailedEventDetails!.cause!)).toMatchObject({
      errorType: 'PermanentError',
      errorMessage: 'access denied for h3',
    });
    expect(events.map((e) => e.type).slice(-2)).toEqual(['FailStateEntered', 'ExecutionFailed']);
    const end = events.at(-1)!.executionFailedEventDetails!;
    expect(end.error).toBe('PermanentError');
    expect(end.cause).toBe(taskFailed.lambdaFunctionFailedEventDetails?.cause);
  });

  it('ends a stopped execution with ExecutionAborted carrying the stop error and cause', async () => {
    const { executionArn } = await sfn.send(
      new StartExecutionCommand({ stateMachineArn: SM_ARN, name: 'h4', input: '{"id":"h4","gate":"g4"}' }),
    );
    await script.whenEntered('g4');
    const running = await history(executionArn!);
    expect(running.map((e) => e.type)).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      'LambdaFunctionScheduled',
      'LambdaFunctionStarted',
    ]);
    await sfn.send(new StopExecutionCommand({ executionArn, error: 'Manual', cause: 'by test' }));
    script.release('g4');
    const last = (await history(executionArn!)).at(-1)!;
    expect(last.type).toBe('ExecutionAborted');
    expect(last.executionAbortedEventDetails).toEqual({ error: 'Manual', cause: 'by test' });
  });

  it('pages with maxResults and nextToken, and refuses a foreign or broken token', async () => {
    const arn = await run('h5', { id: 'h5', doneAfter: 1 });
    for (const reverseOrder of [false, true]) {
      const all = await history(arn, reverseOrder);
      const paged: HistoryEvent[] = [];
      let nextToken: string | undefined;
      let pages = 0;
      do {
        const p = await sfn.send(
          new GetExecutionHistoryCommand({ executionArn: arn, maxResults: 4, reverseOrder, nextToken }),
        );
        paged.push(...(p.events ?? []));
        nextToken = p.nextToken;
        pages++;
      } while (nextToken);
      expect(paged).toEqual(all);
      expect(pages).toBe(3);
    }
    const first = await sfn.send(new GetExecutionHistoryCommand({ executionArn: arn, maxResults: 2 }));
    const other = await run('h6', { id: 'h6', doneAfter: 1 });
    const send = (executionArn: string, nextToken: string, reverseOrder = false) =>
      errorCode(sfn.send(new GetExecutionHistoryCommand({ executionArn, nextToken, reverseOrder })));
    expect(await send(other, first.nextToken!)).toBe('InvalidToken');
    expect(await send(arn, first.nextToken!, true)).toBe('InvalidToken');
    expect(await send(arn, 'garbage')).toBe('InvalidToken');
    expect(
      await errorCode(sfn.send(new GetExecutionHistoryCommand({ executionArn: arn, maxResults: 1001 }))),
    ).toBe('ValidationException');
  });

  it('answers unknown and malformed ARNs with the AWS error codes', async () => {
    const unknown = 'arn:aws:states:us-east-1:111111111111:execution:Reconcile:never';
    expect(await errorCode(history(unknown))).toBe('ExecutionDoesNotExist');
    expect(await errorCode(history('not-an-arn'))).toBe('InvalidArn');
    expect(
      await errorCode(sfn.send(new DescribeStateMachineForExecutionCommand({ executionArn: unknown }))),
    ).toBe('ExecutionDoesNotExist');
    const missing = 'arn:aws:states:us-east-1:111111111111:stateMachine:Missing';
    expect(await errorCode(sfn.send(new DescribeStateMachineCommand({ stateMachineArn: missing })))).toBe(
      'StateMachineDoesNotExist',
    );
    expect(await errorCode(sfn.send(new DescribeStateMachineCommand({ stateMachineArn: 'arn:nope' })))).toBe(
      'InvalidArn',
    );
    expect(await errorCode(sfn.send(new ListActivitiesCommand({})))).toBe('UnknownOperationException');
  });
});

describe('state machine descriptions', () => {
  it('DescribeStateMachine returns the definition the endpoint runs', async () => {
    const d = await sfn.send(new DescribeStateMachineCommand({ stateMachineArn: SM_ARN }));
    expect(d).toMatchObject({
      stateMachineArn: SM_ARN,
      name: 'Reconcile',
      status: 'ACTIVE',
      type: 'STANDARD',
    });
    expect(d.definition).toBe(DEFINITION);
    expect(d.creationDate).toBeInstanceOf(Date);
    const other = await sfn.send(new DescribeStateMachineCommand({ stateMachineArn: OTHER_ARN }));
    expect(JSON.parse(other.definition!)).toEqual(definition);
  });

  it('ListStateMachines lists every configured machine, paged', async () => {
    const all = await sfn.send(new ListStateMachinesCommand({}));
    expect(all.stateMachines?.map((m) => [m.name, m.stateMachineArn, m.type])).toEqual([
      ['Reconcile', SM_ARN, 'STANDARD'],
      ['Other', OTHER_ARN, 'STANDARD'],
    ]);
    expect(all.nextToken).toBeUndefined();
    const first = await sfn.send(new ListStateMachinesCommand({ maxResults: 1 }));
    expect(first.stateMachines?.map((m) => m.name)).toEqual(['Reconcile']);
    const second = await sfn.send(
      new ListStateMachinesCommand({ maxResults: 1, nextToken: first.nextToken }),
    );
    expect(second.stateMachines?.map((m) => m.name)).toEqual(['Other']);
    expect(second.nextToken).toBeUndefined();
    expect(await errorCode(sfn.send(new ListStateMachinesCommand({ nextToken: 'garbage' })))).toBe(
      'InvalidToken',
    );
  });

  it('DescribeStateMachineForExecution names the machine that ran the execution', async () => {
    const arn = await run('h7', { id: 'h7', doneAfter: 1 });
    const d = await sfn.send(new DescribeStateMachineForExecutionCommand({ executionArn: arn }));
    expect(d).toMatchObject({ stateMachineArn: SM_ARN, name: 'Reconcile', definition: DEFINITION });
    expect(d.updateDate).toBeInstanceOf(Date);
  });
});
