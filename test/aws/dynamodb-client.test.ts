/**
 * The DynamoDB client the Lambda bundles load in place of the SDK's (lambdas/aws/dynamodb-client.ts,
 * dynamodb-document.ts). Against moto with its access checks on (signatures verified by botocore's
 * implementation, IAM policies evaluated); against dynalite beside lib-dynamodb, for the same items
 * written and read; and against a stand-in, for DynamoDB's error answers and the retries.
 * test/aws/dynamodb-store.test.ts runs the store suites through it.
 */
import { CreateTableCommand, GetItemCommand, DynamoDBClient as SdkClient } from '@aws-sdk/client-dynamodb';
import * as sdkDoc from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConditionalCheckFailedException,
  DynamoDBClient,
  DynamoDBServiceException,
  dynamoException,
  UpdateItemCommand,
} from '../../lambdas/aws/dynamodb-client.js';
import {
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  ScanCommand,
} from '../../lambdas/aws/dynamodb-document.js';
import { AwsRequestError } from '../../lambdas/aws/signed-http.js';
import {
  classifyAwsError,
  InternalError,
  PermanentError,
  TransientError,
} from '../../lambdas/core/errors.js';
import { createTable } from '../../local/store/table.js';
import { type Moto, startMoto } from '../provider/support/moto.js';
import { type DynamoServer, startDynalite } from '../store/servers.js';
import { type Keys, userKeys } from './support/moto-iam.js';
import { type StandIn, startStandIn } from './support/stand-in.js';

const REGION = 'us-east-1';
const TABLE = 'items';
const LOCAL = { accessKeyId: 'local', secretAccessKey: 'local' };
const KEY_SCHEMA = {
  AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' as const }],
  KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' as const }],
  BillingMode: 'PAY_PER_REQUEST' as const,
};

describe('against DynamoDB with its access checks on (moto)', () => {
  /** CreateTable, then a user's CreateUser, CreateAccessKey and PutUserPolicy. */
  const SETUP_REQUESTS = 4;
  let moto: Moto;
  let keys: Keys;
  const client = (k: Keys) => new DynamoDBClient({ endpoint: moto.url, region: REGION, credentials: k });

  beforeAll(async () => {
    moto = await startMoto(process.env, { INITIAL_NO_AUTH_ACTION_COUNT: String(SETUP_REQUESTS) });
    const setup = new SdkClient({ endpoint: moto.url, region: REGION, credentials: LOCAL });
    await setup.send(new CreateTableCommand({ TableName: 'records', ...KEY_SCHEMA }));
    setup.destroy();
    const policy = {
      Version: '2012-10-17',
      Statement: [
        {
          Effect: 'Allow',
          Action: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
          // moto matches only S3's resources; for DynamoDB it checks the action against `*`.
          Resource: '*',
        },
      ],
    };
    keys = await userKeys(moto.url, 'writer', JSON.stringify(policy));
  }, 60_000);
  afterAll(async () => moto?.close());

  it('writes and reads with a user’s keys, and a wrong signature or an action not granted fails typed', async () => {
    const ok = DynamoDBDocumentClient.from(client(keys));
    await ok.send(new PutCommand({ TableName: 'records', Item: { id: 'a', n: 1, tags: new Set(['x']) } }));
    expect((await ok.send(new GetCommand({ TableName: 'records', Key: { id: 'a' } })))['Item']).toEqual({
      id: 'a',
      n: 1,
      tags: new Set(['x']),
    });
    const wrong = DynamoDBDocumentClient.from(
      client({ ...keys, secretAccessKey: `${keys.secretAccessKey}x` }),
    );
    const refused = await wrong
      .send(new GetCommand({ TableName: 'records', Key: { id: 'a' } }))
      .catch((e) => e);
    expect(refused).toBeInstanceOf(DynamoDBServiceException);
    // moto's code; DynamoDB's own is InvalidSignatureException. Either is permanent, not retried.
    expect(refused).toMatchObject({ name: 'SignatureDoesNotMatch', $metadata: { httpStatusCode: 403 } });
    expect(classifyAwsError(refused)).toBeInstanceOf(PermanentError);
    const denied = await ok.send(new ScanCommand({ TableName: 'records' })).catch((e) => e);
    // moto's code (in XML); DynamoDB's own is AccessDeniedException (in JSON). Both are permanent.
    expect(denied).toMatchObject({ name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });
    expect(classifyAwsError(denied)).toBeInstanceOf(PermanentError);
    ok.destroy();
    wrong.destroy();
  });
});

describe('the same items as lib-dynamodb (dynalite)', () => {
  let server: DynamoServer;
  let sdk: SdkClient;
  beforeAll(async () => {
    server = await startDynalite();
    sdk = new SdkClient({ endpoint: server.endpoint, region: REGION, credentials: LOCAL });
    await createTable(sdk, TABLE, { stream: false });
  });
  afterAll(async () => {
    sdk.destroy();
    await server.stop();
  });

  const DOCS: Record<string, unknown>[] = [
    { nested: { a: [1, 'two', { three: true }], empty: {}, list: [] }, s: '', none: null },
    { bytes: new Uint8Array([0, 1, 2, 255]), set: new Set([1, 2, 3]), strings: new Set(['a', 'b']) },
    { gone: undefined, kept: 'k', deep: { gone: undefined, n: -0.5 } },
    { big: Number.MAX_SAFE_INTEGER, unicode: 'café ☃ 🚀', bools: [true, false] },
  ];

  it.each(DOCS.map((d, i) => [i, d] as const))(
    'document %i: the same attributes written, the same value read',
    async (i, doc) => {
      const options = { marshallOptions: { removeUndefinedValues: true } };
      const ours = DynamoDBDocumentClient.from(
        new DynamoDBClient({ endpoint: server.endpoint, region: REGION, credentials: LOCAL }),
        options,
      );
      const theirs = sdkDoc.DynamoDBDocumentClient.from(sdk, options);
      await ours.send(new PutCommand({ TableName: TABLE, Item: { id: `ours-${i}`, ...doc } }));
      await theirs.send(new sdkDoc.PutCommand({ TableName: TABLE, Item: { id: `sdk-${i}`, ...doc } }));
      const raw = async (id: string) => {
        const item =
          (await sdk.send(new GetItemCommand({ TableName: TABLE, Key: { id: { S: id } } }))).Item ?? {};
        delete item['id'];
        return item;
      };
      expect(await raw(`ours-${i}`)).toEqual(await raw(`sdk-${i}`));
      const read = (await ours.send(new GetCommand({ TableName: TABLE, Key: { id: `sdk-${i}` } })))['Item'];
      const sdkRead = (
        await theirs.send(new sdkDoc.GetCommand({ TableName: TABLE, Key: { id: `sdk-${i}` } }))
      ).Item;
      expect(read).toEqual(sdkRead);
      ours.destroy();
    },
  );

  it('refuses legacy parameters rather than passing them untranslated', async () => {
    const ours = DynamoDBDocumentClient.from(
      new DynamoDBClient({ endpoint: server.endpoint, region: REGION, credentials: LOCAL }),
    );
    const e = await ours
      .send(new PutCommand({ TableName: TABLE, Item: { id: 'x' }, Expected: { id: { Exists: false } } }))
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InternalError);
    expect(String(e)).toContain('Expected');
    ours.destroy();
  });
});

describe("DynamoDB's answers (a stand-in)", () => {
  let standIn: StandIn;
  const answers: ((res: import('node:http').ServerResponse) => void)[] = [];
  const seen: { target: string | undefined; type: string | undefined; body: string }[] = [];
  beforeAll(async () => {
    standIn = await startStandIn((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c.toString();
      });
      req.on('end', () => {
        seen.push({ target: req.headers['x-amz-target'] as string, type: req.headers['content-type'], body });
        const answer = answers.shift();
        if (answer) answer(res);
        else res.writeHead(500).end();
      });
    });
  });
  afterAll(() => standIn.close());

  const error =
    (status: number, type: string, extra: object = {}) =>
    (res: import('node:http').ServerResponse) => {
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'REQ1' });
      res.end(
        JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${type}`, message: `${type}!`, ...extra }),
      );
    };
  const ok = (body: object) => (res: import('node:http').ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' });
    res.end(JSON.stringify(body));
  };
  const client = () => new DynamoDBClient({ endpoint: standIn.url, region: REGION, credentials: LOCAL });

  it('sends the JSON protocol, retries throttling, and reads binary values as bytes', async () => {
    seen.length = 0;
    answers.push(
      error(400, 'ProvisionedThroughputExceededException'),
      ok({ Attributes: { b: { B: 'AAEC' } } }),
    );
    const c = client();
    const out = await c.send(
      new UpdateItemCommand({
        TableName: TABLE,
        Key: { id: { S: 'k' } },
        ExpressionAttributeValues: { ':b': { B: new Uint8Array([9]) } },
      }),
    );
    expect(out['Attributes']).toEqual({ b: { B: new Uint8Array([0, 1, 2]) } });
    expect(out['$metadata']).toMatchObject({ httpStatusCode: 200 });
    expect(seen).toHaveLength(2);
    expect(seen[0]).toMatchObject({
      target: 'DynamoDB_20120810.UpdateItem',
      type: 'application/x-amz-json-1.0',
    });
    expect(JSON.parse(seen[0]?.body ?? '')).toMatchObject({
      ExpressionAttributeValues: { ':b': { B: 'CQ==' } },
    });
    c.destroy();
  });

  it('a failed condition carries the old item, whole, even past 64 KiB', async () => {
    seen.length = 0;
    const big = 'x'.repeat(200_000);
    answers.push(
      error(400, 'ConditionalCheckFailedException', { Item: { id: { S: 'k' }, big: { S: big } } }),
    );
    const c = client();
    const e = await c.send(new UpdateItemCommand({ TableName: TABLE })).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConditionalCheckFailedException);
    expect(e).toMatchObject({
      name: 'ConditionalCheckFailedException',
      message: 'ConditionalCheckFailedException!',
      $metadata: { httpStatusCode: 400, requestId: 'REQ1' },
      Item: { id: { S: 'k' }, big: { S: big } },
    });
    expect(seen).toHaveLength(1);
    c.destroy();
  });

  it('names errors as the SDK does, so classification reads them the same', async () => {
    answers.push(error(400, 'ResourceNotFoundException'));
    const c = client();
    const missing = await c.send(new UpdateItemCommand({ TableName: TABLE })).catch((x: unknown) => x);
    expect(missing).toMatchObject({ name: 'ResourceNotFoundException', $fault: 'client' });
    expect(classifyAwsError(missing).kind).toBe('NotFound');
    // An answer that is not DynamoDB's JSON: a proxy's XML error, a null body, a cut 200.
    answers.push(
      (res) => res.writeHead(503, { 'content-type': 'text/xml' }).end('<Error><Code>SlowDown</Code></Error>'),
      (res) => res.writeHead(503).end('null'),
      (res) => res.writeHead(503).end(),
    );
    await expect(c.send(new UpdateItemCommand({ TableName: TABLE }))).rejects.toMatchObject({
      name: 'HTTP503',
      $metadata: { httpStatusCode: 503 },
    });
    answers.push((res) => res.writeHead(200).end('{"Attributes":'));
    await expect(c.send(new UpdateItemCommand({ TableName: TABLE }))).rejects.toMatchObject({
      name: 'UnreadableAnswer',
    });
    c.destroy();
    const timeout = dynamoException(new AwsRequestError('Timeout', undefined, true, 'no answer in 3000 ms'));
    expect(timeout.name).toBe('TimeoutError');
    expect(classifyAwsError(timeout)).toBeInstanceOf(TransientError);
    const cut = dynamoException(new AwsRequestError('ConnectionError', undefined, true, 'socket hang up'));
    expect(classifyAwsError(cut)).toBeInstanceOf(TransientError);
    // The code once: it is the name, and the message says what happened.
    expect(classifyAwsError(cut).message).toBe('ConnectionError: socket hang up');
  });

  it('refuses an option it would ignore, and names the missing endpoint variable', () => {
    expect(() => new DynamoDBClient({ maxAttempts: 9 } as never)).toThrow(InternalError);
    const saved = { ...process.env };
    try {
      delete process.env['AWS_ENDPOINT_URL_DYNAMODB'];
      delete process.env['AWS_ENDPOINT_URL'];
      expect(() => new DynamoDBClient({ region: REGION })).toThrow(/AWS_ENDPOINT_URL_DYNAMODB is not set/);
      process.env['AWS_ENDPOINT_URL_DYNAMODB'] = 'http://dynamodb.example.com';
      expect(() => new DynamoDBClient({ region: REGION })).toThrow(/must be https/);
    } finally {
      process.env = saved;
    }
  });
});
