import {
  DescribeExecutionCommand,
  ListActivitiesCommand,
  ListExecutionsCommand,
  SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type LocalSfnEndpoint, startLocalSfnEndpoint } from '../../local/sfn/endpoint.js';
import { definition, localSfnClient, SM_ARN, scriptedHandlers } from './sample.js';

const EXEC_PREFIX = 'arn:aws:states:us-east-1:111111111111:execution:Reconcile:';

let endpoint: LocalSfnEndpoint;
let sfn: SFNClient;
let script: ReturnType<typeof scriptedHandlers>;

beforeEach(async () => {
  script = scriptedHandlers();
  endpoint = await startLocalSfnEndpoint({
    stateMachines: [{ arn: SM_ARN, definition: JSON.stringify(definition), handlers: script.handlers }],
    waitScale: 0.001,
    retryIntervalMs: 1,
  });
  sfn = localSfnClient(endpoint.url);
});

afterEach(async () => {
  sfn.destroy();
  await endpoint.close();
});

const start = (name: string | undefined, input: object) =>
  sfn.send(
    new StartExecutionCommand({
      stateMachineArn: SM_ARN,
      ...(name !== undefined ? { name } : {}),
      input: JSON.stringify(input),
    }),
  );

/** The AWS error code the SDK surfaced (its `name`), or 'no error'. */
async function errorCode(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'no error';
  } catch (e) {
    return (e as Error).name;
  }
}

describe('local Step Functions endpoint through SFNClient', () => {
  it('runs an execution to convergence and describes it like AWS', async () => {
    const { executionArn, startDate } = await start('c1', { id: 'c1', doneAfter: 3 });
    expect(executionArn).toBe(`${EXEC_PREFIX}c1`);
    expect(startDate).toBeInstanceOf(Date);
    await endpoint.waitForExecution(executionArn!);
    const d = await sfn.send(new DescribeExecutionCommand({ executionArn }));
    expect(d.status).toBe('SUCCEEDED');
    expect(d.name).toBe('c1');
    expect(d.stateMachineArn).toBe(SM_ARN);
    expect(JSON.parse(d.input!)).toEqual({ id: 'c1', doneAfter: 3 });
    expect(JSON.parse(d.output!)).toEqual({ id: 'c1', doneAfter: 3, result: { done: true, calls: 3 } });
    expect(d.startDate?.getTime()).toBe(startDate?.getTime());
    expect(d.stopDate!.getTime()).toBeGreaterThanOrEqual(d.startDate!.getTime());
    expect(d.error).toBeUndefined();
    expect(script.calls('c1')).toBe(3);
    expect(endpoint.counts()).toEqual({
      started: 1,
      running: 0,
      succeeded: 1,
      failed: 0,
      timedOut: 0,
      aborted: 0,
    });
  });

  it('retries a TransientError and succeeds; reports a caught error as FAILED with its name', async () => {
    const t = await start('transient', { id: 't', transientFailures: 2 });
    const bad = await start('spec-invalid', { id: 'bad', fail: 'SpecInvalid' });
    await endpoint.waitForIdle();
    const dt = await sfn.send(new DescribeExecutionCommand({ executionArn: t.executionArn }));
    expect(dt.status).toBe('SUCCEEDED');
    expect(endpoint.events(t.executionArn!).filter((e) => e.type === 'StateRetried')).toHaveLength(2);
    const db = await sfn.send(new DescribeExecutionCommand({ executionArn: bad.executionArn }));
    expect(db.status).toBe('FAILED');
    expect(db.error).toBe('SpecInvalid');
    expect(JSON.parse(db.cause!)).toMatchObject({
      errorType: 'SpecInvalid',
      errorMessage: 'spec of bad is invalid',
    });
    expect(db.output).toBeUndefined();
    expect(script.calls('bad')).toBe(1);
    expect(script.recorded).toHaveLength(1);
    expect(endpoint.counts()).toMatchObject({ started: 2, succeeded: 1, failed: 1 });
  });

  it('is idempotent for the same name and input while RUNNING; otherwise ExecutionAlreadyExists', async () => {
    const input = { id: 'i', gate: 'g1' };
    const first = await start('same', input);
    await script.whenEntered('g1');
    const again = await start('same', input);
    expect(again.executionArn).toBe(first.executionArn);
    expect(again.startDate?.getTime()).toBe(first.startDate?.getTime());
    expect(endpoint.counts().started).toBe(1);
    expect(await errorCode(start('same', { id: 'i', gate: 'g1', other: true }))).toBe(
      'ExecutionAlreadyExists',
    );

    script.release('g1');
    const done = await endpoint.waitForExecution(first.executionArn!);
    expect(done.status).toBe('SUCCEEDED');
    expect(await errorCode(start('same', input))).toBe('ExecutionAlreadyExists');
    expect(script.calls('i')).toBe(1);
  });

  it('gives a name-less start a UUID name', async () => {
    const { executionArn } = await start(undefined, { id: 'anon' });
    const name = executionArn!.slice(EXEC_PREFIX.length);
    expect(name).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect((await endpoint.waitForExecution(executionArn!)).name).toBe(name);
  });

  it('rejects invalid names (InvalidName for characters, ValidationException for length) and accepts AWS-legal ones', async () => {
    for (const name of ['has space', 'a/b', 'x:y', 'br{ace}', 'tab\there', 'star*', 'ctl\u0085']) {
      expect(await errorCode(start(name, { id: name })), name).toBe('InvalidName');
    }
    expect(await errorCode(start('x'.repeat(81), { id: 'long' }))).toBe('ValidationException');
    expect(await errorCode(start('', { id: 'empty' }))).toBe('ValidationException');
    const ok = await start('cluster.prod+1_a-b', { id: 'ok' });
    expect(ok.executionArn).toBe(`${EXEC_PREFIX}cluster.prod+1_a-b`);
    expect((await start('y'.repeat(80), { id: 'max' })).executionArn).toBe(`${EXEC_PREFIX}${'y'.repeat(80)}`);
    await endpoint.waitForIdle();
    expect(endpoint.counts().started).toBe(2);
  });

  it('rejects input that is not JSON', async () => {
    const bad = sfn.send(
      new StartExecutionCommand({ stateMachineArn: SM_ARN, name: 'bad-input', input: '{nope' }),
    );
    expect(await errorCode(bad)).toBe('InvalidExecutionInput');
  });

  it('StopExecution aborts a running execution; the late handler result does not change it', async () => {
    const { executionArn } = await start('to-stop', { id: 's', gate: 'g2', doneAfter: 1 });
    await script.whenEntered('g2');
    const stop = await sfn.send(
      new StopExecutionCommand({ executionArn, error: 'Manual', cause: 'operator' }),
    );
    expect(stop.stopDate).toBeInstanceOf(Date);
    const d = await sfn.send(new DescribeExecutionCommand({ executionArn }));
    expect(d).toMatchObject({ status: 'ABORTED', error: 'Manual', cause: 'operator' });
    expect(d.stopDate?.getTime()).toBe(stop.stopDate?.getTime());

    script.release('g2');
    await new Promise((r) => setImmediate(r));
    expect((await sfn.send(new DescribeExecutionCommand({ executionArn }))).status).toBe('ABORTED');
    expect(script.recorded).toHaveLength(0);
    expect(endpoint.counts()).toMatchObject({ started: 1, aborted: 1, running: 0 });

    // Stopping a closed execution leaves it as it is.
    const again = await sfn.send(new StopExecutionCommand({ executionArn }));
    expect(again.stopDate?.getTime()).toBe(stop.stopDate?.getTime());
    expect(await errorCode(start('to-stop', { id: 's', gate: 'g2', doneAfter: 1 }))).toBe(
      'ExecutionAlreadyExists',
    );
  });

  it('ListExecutions filters by status and paginates newest first', async () => {
    const names = ['l1', 'l2', 'l3'];
    for (const n of names) await start(n, { id: n });
    await start('l-fail', { id: 'lf', fail: 'PermanentError' });
    await endpoint.waitForIdle();
    await start('l-run', { id: 'lr', gate: 'g3' });
    await script.whenEntered('g3');

    const all = await sfn.send(new ListExecutionsCommand({ stateMachineArn: SM_ARN }));
    expect(all.executions?.map((e) => e.name)).toEqual(['l-run', 'l-fail', 'l3', 'l2', 'l1']);
    expect(all.nextToken).toBeUndefined();
    expect(all.executions?.[0]).toMatchObject({ status: 'RUNNING', stateMachineArn: SM_ARN });
    expect(all.executions?.[0]?.stopDate).toBeUndefined();
    expect(all.executions?.[1]?.stopDate).toBeInstanceOf(Date);

    const running = await sfn.send(
      new ListExecutionsCommand({ stateMachineArn: SM_ARN, statusFilter: 'RUNNING' }),
    );
    expect(running.executions?.map((e) => e.name)).toEqual(['l-run']);
    const failed = await sfn.send(
      new ListExecutionsCommand({ stateMachineArn: SM_ARN, statusFilter: 'FAILED' }),
    );
    expect(failed.executions?.map((e) => e.name)).toEqual(['l-fail']);

    const seen: string[] = [];
    let nextToken: string | undefined;
    let pages = 0;
    do {
      const page = await sfn.send(
        new ListExecutionsCommand({
          stateMachineArn: SM_ARN,
          statusFilter: 'SUCCEEDED',
          maxResults: 2,
          nextToken,
        }),
      );
      pages++;
      seen.push(...(page.executions ?? []).map((e) => e.name!));
      nextToken = page.nextToken;
    } while (nextToken);
    expect(pages).toBe(2);
    expect(seen).toEqual(['l3', 'l2', 'l1']);

    const first = await sfn.send(new ListExecutionsCommand({ stateMachineArn: SM_ARN, maxResults: 1 }));
    expect(
      await errorCode(
        sfn.send(
          new ListExecutionsCommand({
            stateMachineArn: SM_ARN,
            statusFilter: 'FAILED',
            nextToken: first.nextToken,
          }),
        ),
      ),
    ).toBe('InvalidToken');
    expect(
      await errorCode(sfn.send(new ListExecutionsCommand({ stateMachineArn: SM_ARN, nextToken: 'garbage' }))),
    ).toBe('InvalidToken');
    expect(
      await errorCode(sfn.send(new ListExecutionsCommand({ stateMachineArn: SM_ARN, maxResults: 1001 }))),
    ).toBe('ValidationException');

    expect(endpoint.executions({ status: 'SUCCEEDED' }).map((e) => e.name)).toEqual(['l3', 'l2', 'l1']);
    script.release('g3');
  });

  it('answers unknown ARNs and unknown operations with the AWS error codes', async () => {
    const unknownExec = `${EXEC_PREFIX}never-started`;
    const otherSm = 'arn:aws:states:us-east-1:111111111111:stateMachine:Other';
    expect(await errorCode(sfn.send(new DescribeExecutionCommand({ executionArn: unknownExec })))).toBe(
      'ExecutionDoesNotExist',
    );
    expect(await errorCode(sfn.send(new StopExecutionCommand({ executionArn: unknownExec })))).toBe(
      'ExecutionDoesNotExist',
    );
    expect(await errorCode(sfn.send(new DescribeExecutionCommand({ executionArn: 'not-an-arn' })))).toBe(
      'InvalidArn',
    );
    expect(
      await errorCode(
        sfn.send(new StartExecutionCommand({ stateMachineArn: otherSm, name: 'x', input: '{}' })),
      ),
    ).toBe('StateMachineDoesNotExist');
    expect(await errorCode(sfn.send(new ListExecutionsCommand({ stateMachineArn: otherSm })))).toBe(
      'StateMachineDoesNotExist',
    );
    expect(
      await errorCode(sfn.send(new StartExecutionCommand({ stateMachineArn: 'arn:nope', input: '{}' }))),
    ).toBe('InvalidArn');
    expect(await errorCode(sfn.send(new ListActivitiesCommand({})))).toBe('UnknownOperationException');
  });

  it('speaks AWS JSON 1.0 on the wire: 400 with __type and message for errors', async () => {
    const post = (target: string, body: string) =>
      fetch(endpoint.url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': target },
        body,
      });
    const unknown = await post('AWSStepFunctions.CreateStateMachine', '{}');
    expect(unknown.status).toBe(400);
    expect(unknown.headers.get('content-type')).toBe('application/x-amz-json-1.0');
    expect(await unknown.json()).toMatchObject({ __type: 'UnknownOperationException' });
    // Names of Object's own members are not operations either.
    for (const name of ['constructor', 'toString', '__proto__']) {
      const r = await post(`AWSStepFunctions.${name}`, '{}');
      expect({ name, status: r.status }).toEqual({ name, status: 400 });
      expect(await r.json()).toMatchObject({ __type: 'UnknownOperationException' });
    }
    const notJson = await post('AWSStepFunctions.DescribeExecution', '{');
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ __type: 'SerializationException' });
    const missing = await post('AWSStepFunctions.DescribeExecution', '{}');
    expect(await missing.json()).toMatchObject({ __type: 'ValidationException' });
    const ok = await post('AWSStepFunctions.ListExecutions', JSON.stringify({ stateMachineArn: SM_ARN }));
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ executions: [] });
  });

  it('runs executions concurrently', async () => {
    const arns = await Promise.all(
      Array.from({ length: 8 }, (_, i) => start(`par-${i}`, { id: `p${i}`, doneAfter: 2, gate: 'g4' })),
    );
    await script.whenEntered('g4');
    expect(endpoint.counts().running).toBe(8);
    script.release('g4');
    await endpoint.waitForIdle();
    for (const { executionArn } of arns) {
      expect((await sfn.send(new DescribeExecutionCommand({ executionArn }))).status).toBe('SUCCEEDED');
    }
    expect(endpoint.counts()).toMatchObject({ started: 8, succeeded: 8, running: 0 });
  });

  it('close() aborts what is still running', async () => {
    const { executionArn } = await start('left-running', { id: 'lr2', gate: 'never' });
    await script.whenEntered('never');
    await endpoint.close();
    const s = await endpoint.waitForExecution(executionArn!);
    expect(s).toMatchObject({ status: 'ABORTED', cause: 'endpoint closed' });
    script.release('never');
  });
});

describe('endpoint configuration', () => {
  it('binds loopback only and refuses a definition it cannot run', async () => {
    const s = scriptedHandlers();
    await expect(
      startLocalSfnEndpoint({
        host: '0.0.0.0',
        stateMachines: [{ arn: SM_ARN, definition, handlers: s.handlers }],
      }),
    ).rejects.toThrow(/loopback/);
    await expect(
      startLocalSfnEndpoint({ stateMachines: [{ arn: SM_ARN, definition, handlers: new Map() }] }),
    ).rejects.toThrow(/no handler/);
  });

  it('keeps a bounded number of closed executions and event logs', async () => {
    const s = scriptedHandlers();
    const ep = await startLocalSfnEndpoint({
      stateMachines: [{ arn: SM_ARN, definition, handlers: s.handlers }],
      maxClosedExecutions: 2,
      maxClosedEventLogs: 1,
    });
    const client = new SFNClient({
      endpoint: ep.url,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    try {
      for (const n of ['a', 'b', 'c']) {
        const { executionArn } = await client.send(
          new StartExecutionCommand({ stateMachineArn: SM_ARN, name: n, input: `{"id":"${n}"}` }),
        );
        await ep.waitForExecution(executionArn!);
      }
      expect(ep.executions().map((e) => e.name)).toEqual(['c', 'b']);
      expect(ep.events(`${EXEC_PREFIX}c`).some((e) => e.type === 'ExecutionSucceeded')).toBe(true);
      expect(() => ep.events(`${EXEC_PREFIX}b`)).toThrow(/dropped/);
      expect(ep.counts()).toMatchObject({ started: 3, succeeded: 3 });
    } finally {
      client.destroy();
      await ep.close();
    }
  });
});
