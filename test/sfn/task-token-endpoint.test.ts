/**
 * The callback pattern through the local endpoint with the unmodified SFNClient: SendTaskSuccess,
 * SendTaskFailure and SendTaskHeartbeat with AWS's error codes, StopExecution dropping tokens, and
 * the task events of GetExecutionHistory.
 */
import {
  DescribeExecutionCommand,
  GetExecutionHistoryCommand,
  type HistoryEvent,
  SendTaskFailureCommand,
  SendTaskHeartbeatCommand,
  SendTaskSuccessCommand,
  type SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type LocalSfnEndpoint, startLocalSfnEndpoint } from '../../local/sfn/endpoint.js';
import { APPROVE_ARN, approver, CALLBACK_SM_ARN, callbackDefinition } from './callback-sample.js';
import { localSfnClient } from './sample.js';

let endpoint: LocalSfnEndpoint | undefined;
let sfn: SFNClient | undefined;

afterEach(async () => {
  vi.useRealTimers();
  sfn?.destroy();
  await endpoint?.close();
  endpoint = undefined;
  sfn = undefined;
});

async function setup(task: Record<string, unknown> = {}) {
  const a = approver();
  endpoint = await startLocalSfnEndpoint({
    stateMachines: [{ arn: CALLBACK_SM_ARN, definition: callbackDefinition(task), handlers: a.handlers }],
  });
  const client = localSfnClient(endpoint.url);
  sfn = client;
  const start = async (id: string) => {
    const { executionArn } = await client.send(
      new StartExecutionCommand({
        stateMachineArn: CALLBACK_SM_ARN,
        name: id,
        input: JSON.stringify({ id }),
      }),
    );
    return executionArn!;
  };
  return { a, ep: endpoint, sfn: client, start };
}

async function errorCode(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'no error';
  } catch (e) {
    return (e as Error).name;
  }
}

const types = (events: HistoryEvent[]) => events.map((e) => e.type);

describe('callback Tasks through SFNClient', () => {
  it('SendTaskSuccess completes the task; the history shows Scheduled, Started, Submitted, Succeeded', async () => {
    const { a, ep, sfn, start } = await setup();
    const arn = await start('ok');
    const { token } = await a.next();
    await sfn.send(new SendTaskHeartbeatCommand({ taskToken: token }));
    await sfn.send(new SendTaskSuccessCommand({ taskToken: token, output: '{"approved":true}' }));
    await ep.waitForExecution(arn);
    const d = await sfn.send(new DescribeExecutionCommand({ executionArn: arn }));
    expect(d.status).toBe('SUCCEEDED');
    expect(JSON.parse(d.output!)).toEqual({ id: 'ok', approval: { approved: true } });
    const { events } = await sfn.send(new GetExecutionHistoryCommand({ executionArn: arn }));
    expect(types(events!)).toEqual([
      'ExecutionStarted',
      'TaskStateEntered',
      'TaskScheduled',
      'TaskStarted',
      'TaskSubmitted',
      'TaskSucceeded',
      'TaskStateExited',
      'SucceedStateEntered',
      'SucceedStateExited',
      'ExecutionSucceeded',
    ]);
    const scheduled = events![2]!.taskScheduledEventDetails!;
    expect(scheduled).toMatchObject({ resourceType: 'lambda', resource: 'invoke.waitForTaskToken' });
    expect(JSON.parse(scheduled.parameters!)).toMatchObject({
      FunctionName: APPROVE_ARN,
      Payload: { token },
    });
    expect(JSON.parse(events![4]!.taskSubmittedEventDetails!.output!)).toEqual({ sent: true });
    expect(JSON.parse(events![5]!.taskSucceededEventDetails!.output!)).toEqual({ approved: true });
  });

  it('SendTaskFailure reaches the Catch; the history shows TaskFailed with error and cause', async () => {
    const { a, ep, sfn, start } = await setup();
    const arn = await start('no');
    const { token } = await a.next();
    await sfn.send(new SendTaskFailureCommand({ taskToken: token, error: 'Rejected', cause: 'not today' }));
    const s = await ep.waitForExecution(arn);
    expect(JSON.parse(s.output!)).toEqual({ id: 'no', error: { Error: 'Rejected', Cause: 'not today' } });
    const { events } = await sfn.send(new GetExecutionHistoryCommand({ executionArn: arn }));
    const failed = events!.find((e) => e.type === 'TaskFailed');
    expect(failed?.taskFailedEventDetails).toMatchObject({ error: 'Rejected', cause: 'not today' });
  });

  it('answers InvalidToken, TaskDoesNotExist, InvalidOutput and ValidationException like AWS', async () => {
    const { a, sfn, start } = await setup();
    await start('codes');
    const { token } = await a.next();
    const success = (taskToken: string, output: string) =>
      errorCode(sfn.send(new SendTaskSuccessCommand({ taskToken, output })));
    expect(await success('garbage', '{}')).toBe('InvalidToken');
    expect(await success('A'.repeat(64), '{}')).toBe('TaskDoesNotExist');
    expect(await success(token, '{nope')).toBe('InvalidOutput');
    expect(await success(token, `"${'x'.repeat(262_144)}"`)).toBe('ValidationException');
    expect(await errorCode(sfn.send(new SendTaskHeartbeatCommand({ taskToken: 'A'.repeat(64) })))).toBe(
      'TaskDoesNotExist',
    );
    const longError = sfn.send(new SendTaskFailureCommand({ taskToken: token, error: 'E'.repeat(257) }));
    expect(await errorCode(longError)).toBe('ValidationException');
    expect(await success(token, '{}')).toBe('no error');
    expect(await success(token, '{}')).toBe('TaskDoesNotExist');
  });

  it('answers TaskTimedOut once the heartbeat clock ran out', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { a, ep, sfn, start } = await setup({ HeartbeatSeconds: 30 });
    const arn = await start('late');
    const { token } = await a.next();
    await vi.advanceTimersByTimeAsync(30_000);
    const s = await ep.waitForExecution(arn);
    expect(s).toMatchObject({ status: 'FAILED', error: 'States.HeartbeatTimeout' });
    expect(await errorCode(sfn.send(new SendTaskSuccessCommand({ taskToken: token, output: '{}' })))).toBe(
      'TaskTimedOut',
    );
    const { events } = await sfn.send(new GetExecutionHistoryCommand({ executionArn: arn }));
    const timedOut = events!.find((e) => e.type === 'TaskTimedOut');
    expect(timedOut?.taskTimedOutEventDetails).toMatchObject({
      resourceType: 'lambda',
      error: 'States.HeartbeatTimeout',
    });
    expect(
      events!.find((e) => e.type === 'TaskScheduled')?.taskScheduledEventDetails?.heartbeatInSeconds,
    ).toBe(30);
  });

  it("StopExecution drops the execution's open tokens", async () => {
    const { a, ep, sfn, start } = await setup();
    const arn = await start('stopped');
    const { token } = await a.next();
    expect(ep.taskTokens.openTasks(arn)).toHaveLength(1);
    await sfn.send(new StopExecutionCommand({ executionArn: arn, cause: 'operator' }));
    expect(ep.taskTokens.openTasks()).toEqual([]);
    expect(await errorCode(sfn.send(new SendTaskSuccessCommand({ taskToken: token, output: '{}' })))).toBe(
      'TaskDoesNotExist',
    );
    expect((await ep.waitForExecution(arn)).status).toBe('ABORTED');
  });

  it('completes a token in-process through the endpoint helper', async () => {
    const { a, ep, start } = await setup();
    const arn = await start('inproc');
    const { token } = await a.next();
    expect(ep.taskTokens.openTasks(arn)).toMatchObject([
      { taskToken: token, executionArn: arn, state: 'Approve' },
    ]);
    ep.taskTokens.succeed(token, '"yes"');
    expect(JSON.parse((await ep.waitForExecution(arn)).output!)).toEqual({ id: 'inproc', approval: 'yes' });
  });
});
