/**
 * The bundles' DynamoDB client (lambdas/aws/dynamodb-client.ts) against hostile answers from a
 * stand-in: error answers as large as DynamoDB's JSON can make them, throttling storms, answers that
 * drip or are cut off, writes answered late. Each case is one where the client behaves as the SDK's
 * client does, or, where it does not (fewer retries; no second send of a write), as docs/deploy.md says.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConditionalCheckFailedException,
  DynamoDBClient,
  DynamoDBCommand,
  UpdateItemCommand,
} from '../../lambdas/aws/dynamodb-client.js';
import { classifyAwsError, TransientError } from '../../lambdas/core/errors.js';
import { type StandIn, startStandIn } from './support/stand-in.js';

const REGION = 'us-east-1';
const LOCAL = { accessKeyId: 'local', secretAccessKey: 'local' };
type Answer = (res: ServerResponse, req: IncomingMessage) => void;

describe('hostile answers (a stand-in)', () => {
  let standIn: StandIn;
  const answers: Answer[] = [];
  let requests = 0;
  beforeAll(async () => {
    standIn = await startStandIn((req, res) => {
      req.resume();
      req.on('end', () => {
        requests++;
        const answer = answers.shift();
        if (answer) answer(res, req);
        else res.writeHead(500).end();
      });
    });
  });
  afterAll(() => standIn.close());

  const client = () => new DynamoDBClient({ endpoint: standIn.url, region: REGION, credentials: LOCAL });
  const json =
    (status: number, body: object): Answer =>
    (res) => {
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'R' });
      res.end(JSON.stringify(body));
    };
  const dynamoError = (type: string, extra: object = {}) =>
    json(400, { __type: `com.amazonaws.dynamodb.v20120810#${type}`, message: type, ...extra });

  it('a failed condition stays a ConditionalCheckFailedException when its old item is more than 1 MiB of JSON', async () => {
    // A legal item (about 200 KB stored): JSON escapes each control character in six bytes, so
    // DynamoDB's answer carrying it is about 1.2 MB. The store's lease refusal reads it (ALL_OLD).
    const text = '\u0001'.repeat(200_000);
    answers.length = 0;
    answers.push(
      dynamoError('ConditionalCheckFailedException', { Item: { id: { S: 'k' }, t: { S: text } } }),
    );
    const c = client();
    const e = await c.send(new UpdateItemCommand({ TableName: 't' })).catch((x: unknown) => x);
    c.destroy();
    expect(e).toBeInstanceOf(ConditionalCheckFailedException);
    expect((e as ConditionalCheckFailedException).Item).toEqual({ id: { S: 'k' }, t: { S: text } });
  });

  it('a throttling storm longer than its attempts fails transient, after 3 attempts', async () => {
    // Fewer and shorter waits than the SDK's DynamoDB retry (documented in docs/deploy.md): the step
    // fails transient and the state machine retries it with its own backoff.
    answers.length = 0;
    requests = 0;
    for (let i = 0; i < 4; i++) answers.push(dynamoError('ThrottlingException'));
    const c = client();
    const e = await c.send(new UpdateItemCommand({ TableName: 't' })).catch((x: unknown) => x);
    c.destroy();
    expect(e).toMatchObject({ name: 'ThrottlingException' });
    expect(classifyAwsError(e)).toBeInstanceOf(TransientError);
    expect(requests).toBe(3);
  });

  it('an answer cut off mid-body is retried, and one that drips past the deadline is a transient timeout', async () => {
    answers.length = 0;
    requests = 0;
    const cut: Answer = (res) => {
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0', 'content-length': '100' });
      res.write('{"Attributes":');
      setTimeout(() => res.socket?.destroy(), 20);
    };
    answers.push(cut, cut, json(200, { Item: { n: { N: '2' } } }));
    const c = client();
    const out = await c.send(new DynamoDBCommand('GetItem', { TableName: 't' }));
    expect(out['Item']).toEqual({ n: { N: '2' } });
    expect(requests).toBe(3);
    // A write cut off after it went out is not sent again (it may have been applied): transient.
    answers.push(cut, json(200, {}));
    const cutWrite = await c.send(new UpdateItemCommand({ TableName: 't' })).catch((x: unknown) => x);
    expect(cutWrite).toMatchObject({ name: 'ConnectionError' });
    expect(classifyAwsError(cutWrite)).toBeInstanceOf(TransientError);
    expect(requests).toBe(4);
    answers.length = 0;
    const drip: Answer = (res) => {
      res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
      const timer = setInterval(() => res.write(' '), 200);
      res.on('close', () => clearInterval(timer));
    };
    answers.push(drip, drip, drip);
    const started = Date.now();
    const e = await c.send(new DynamoDBCommand('Scan', { TableName: 't' })).catch((x: unknown) => x);
    c.destroy();
    expect(e).toMatchObject({ name: 'TimeoutError' });
    expect(classifyAwsError(e)).toBeInstanceOf(TransientError);
    expect(Date.now() - started).toBeLessThan(10_000);
  }, 20_000);

  it('reads an error code as the SDK does: the x-amzn-errortype header first, a `:uri` suffix left out', async () => {
    answers.length = 0;
    requests = 0;
    // The JSON protocols' error type may carry a URI after the code (Smithy's awsJson1_0 tests).
    const suffixed = json(400, {
      __type: 'com.amazon.coral.availability#ThrottlingException:http://internal.amazon.com/coral/',
      message: 'slow down',
    });
    const headerOnly: Answer = (res) =>
      res.writeHead(400, { 'x-amzn-errortype': 'ThrottlingException:http://internal.amazon.com/' }).end();
    answers.push(suffixed, headerOnly, json(200, { Attributes: { n: { N: '3' } } }));
    const c = client();
    const out = await c.send(new UpdateItemCommand({ TableName: 't' }));
    expect(out['Attributes']).toEqual({ n: { N: '3' } });
    expect(requests).toBe(3);
    answers.push(
      json(400, { __type: 'com.amazon.coral.validate#ValidationException:http://x/', message: 'bad' }),
    );
    const e = await c.send(new UpdateItemCommand({ TableName: 't' })).catch((x: unknown) => x);
    c.destroy();
    expect(e).toMatchObject({ name: 'ValidationException', $metadata: { httpStatusCode: 400 } });
  });

  it("an error's message is DynamoDB's, as the SDK's is: classification does not repeat the code", async () => {
    answers.length = 0;
    answers.push(
      dynamoError('ValidationException', { message: 'One or more parameter values were invalid' }),
    );
    const c = client();
    const e = await c.send(new UpdateItemCommand({ TableName: 't' })).catch((x: unknown) => x);
    c.destroy();
    expect(e).toMatchObject({
      name: 'ValidationException',
      message: 'One or more parameter values were invalid',
      $metadata: { httpStatusCode: 400, requestId: 'R' },
    });
    expect(classifyAwsError(e).message).toBe(
      'ValidationException: One or more parameter values were invalid',
    );
  });

  it('a conditional write answered late is not sent again (its own write would refuse it); a read is', async () => {
    // After the 3 s attempt deadline: the SDK sets none and would read the late answer. Sent again,
    // an applied write fails its own condition, which the store reads as another writer's; so it is
    // not, and its TimeoutError is transient: the step is retried and reads the record afresh.
    answers.length = 0;
    requests = 0;
    const late: Answer = (res, req) => setTimeout(() => json(200, {})(res, req), 3_500);
    answers.push(late, dynamoError('ConditionalCheckFailedException'));
    const c = client();
    const e = await c
      .send(new UpdateItemCommand({ TableName: 't', ConditionExpression: 'attribute_not_exists(id)' }))
      .catch((x: unknown) => x);
    expect(e).toMatchObject({ name: 'TimeoutError' });
    expect(classifyAwsError(e)).toBeInstanceOf(TransientError);
    expect(requests).toBe(1);
    answers.length = 0;
    answers.push(late, json(200, { Item: { id: { S: 'k' } } }));
    const read = await c.send(new DynamoDBCommand('GetItem', { TableName: 't' })).finally(() => c.destroy());
    expect(read['Item']).toEqual({ id: { S: 'k' } });
    expect(requests).toBe(3);
  }, 20_000);
});
