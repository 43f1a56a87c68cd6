/**
 * A server error DynamoDB answers to a write leaves its outcome unknown, as a timeout does: its request
 * router answers 500 when the storage node it waited for did not answer in time, and the write may
 * have been applied. Sent again, an applied conditional write fails its own condition, which the store
 * reads as another writer's; so the bundles' client (lambdas/aws/dynamodb-client.ts) does not send it
 * again, and the error stays transient (the step is retried and reads afresh). Throttling and
 * unavailability say the write was not applied: those are retried, as reads are.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDBClient, DynamoDBCommand, UpdateItemCommand } from '../../lambdas/aws/dynamodb-client.js';
import { classifyAwsError, TransientError } from '../../lambdas/core/errors.js';
import { type StandIn, startStandIn } from './support/stand-in.js';

type Answer = (res: ServerResponse) => void;

const error =
  (status: number, type: string): Answer =>
  (res) => {
    res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
    res.end(JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${type}`, message: type }));
  };
const ok: Answer = (res) => {
  res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
  res.end('{}');
};

describe('a server error answered to a write', () => {
  let standIn: StandIn;
  const answers: Answer[] = [];
  let requests = 0;
  beforeAll(async () => {
    standIn = await startStandIn((req: IncomingMessage, res) => {
      req.resume();
      req.on('end', () => {
        requests++;
        (answers.shift() ?? error(500, 'InternalServerError'))(res);
      });
    });
  });
  afterAll(() => standIn.close());

  const send = async (command: DynamoDBCommand, ...given: Answer[]) => {
    answers.length = 0;
    answers.push(...given);
    requests = 0;
    const c = new DynamoDBClient({
      endpoint: standIn.url,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    return c
      .send(command)
      .catch((e: unknown) => e)
      .finally(() => c.destroy());
  };
  const write = () =>
    new UpdateItemCommand({ TableName: 't', ConditionExpression: 'attribute_not_exists(id)' });

  it('is not sent again when its outcome is unknown (500, 504), and is transient', async () => {
    for (const status of [500, 504]) {
      const e = await send(
        write(),
        error(status, 'InternalServerError'),
        error(400, 'ConditionalCheckFailedException'),
      );
      expect(e, String(status)).toMatchObject({ name: 'InternalServerError' });
      expect(classifyAwsError(e)).toBeInstanceOf(TransientError);
      expect(requests, String(status)).toBe(1);
    }
  });

  it('is sent again after throttling or unavailability, which applied nothing; a read after any', async () => {
    expect(await send(write(), error(400, 'ThrottlingException'), ok)).toMatchObject({});
    expect(requests).toBe(2);
    expect(await send(write(), error(503, 'ServiceUnavailable'), ok)).toMatchObject({});
    expect(requests).toBe(2);
    expect(
      await send(new DynamoDBCommand('GetItem', { TableName: 't' }), error(500, 'InternalServerError'), ok),
    ).toMatchObject({});
    expect(requests).toBe(2);
  });
});
