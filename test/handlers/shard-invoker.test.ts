/**
 * The sweep dispatcher's Invoke of the shard function, a signed POST of its own, against a stand-in
 * Lambda endpoint: what goes over the wire (checked against botocore's signature of the very request
 * received), Lambda's errors, and the wiring from the environment the stack sets.
 */
import { execFileSync } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '../../lambdas/config.js';
import { PermanentError } from '../../lambdas/core/errors.js';
import { lambdaShardInvoker } from '../../lambdas/handlers/clients/lambda.js';
import { compose } from '../../lambdas/handlers/compose.js';
import type { ShardRunPayload } from '../../lambdas/handlers/contracts.js';
import { type StandIn, startStandIn } from '../aws/support/stand-in.js';
import { MOTO_ENV } from '../provider/support/moto.js';

interface Received {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

let standIn: StandIn;
let url: string;
let answers: ((res: ServerResponse) => void)[] = [];
const received: Received[] = [];

beforeAll(async () => {
  standIn = await startStandIn((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      received.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers,
        body: Buffer.concat(chunks).toString(),
      });
      (answers.shift() ?? ((r: ServerResponse) => r.writeHead(202).end()))(res);
    });
  });
  url = standIn.url;
});
afterAll(() => standIn.close());

const ENV_OF = () => ({
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'secret',
  AWS_SESSION_TOKEN: 'token/+=',
  [ENV.sweepShardFunction]: 'cloudorch-SweepShard-1a2b',
  [ENV.lambdaEndpoint]: url,
});
const PAYLOAD: ShardRunPayload = { periodBucket: '2026-12-01T20:00', shards: [] };
const lambdaFault = (status: number, type: string, message: string) => (res: ServerResponse) =>
  res
    .writeHead(status, { 'x-amzn-errortype': type, 'content-type': 'application/json' })
    .end(JSON.stringify({ Type: 'User', message }));

/** botocore's signature for a request as the stand-in received it. */
function botocoreSignature(r: Received): string {
  const bin = process.env[MOTO_ENV];
  if (!bin) throw new Error(`${MOTO_ENV} is not set: run the tests through scripts/test.sh`);
  const c = {
    ...r,
    host: r.headers['host'],
    region: 'eu-west-1',
    service: 'lambda',
    accessKeyId: 'AKIDEXAMPLE',
    secretAccessKey: 'secret',
    sessionToken: 'token/+=',
  };
  const script = join(import.meta.dirname, '..', 'aws', 'support', 'botocore_sign.py');
  return (
    (
      JSON.parse(
        execFileSync(join(dirname(bin), 'python'), [script], { input: JSON.stringify([c]) }).toString(),
      ) as string[]
    )[0] ?? ''
  );
}

describe('the shard invoker', () => {
  it('queues an asynchronous Invoke of the shard function, signed as botocore signs it', async () => {
    received.length = 0;
    const { deps, close } = compose({ shardInvoker: lambdaShardInvoker }, { env: ENV_OF() });
    await deps.shardInvoker.invoke(PAYLOAD);
    close();
    const [r] = received;
    expect(r).toMatchObject({
      method: 'POST',
      path: '/2015-03-31/functions/cloudorch-SweepShard-1a2b/invocations',
      headers: {
        'x-amz-invocation-type': 'Event',
        'content-type': 'application/json',
        'x-amz-security-token': 'token/+=',
      },
    });
    expect(JSON.parse(r?.body ?? '')).toEqual(PAYLOAD);
    expect(r?.headers['authorization']).toContain('/eu-west-1/lambda/aws4_request');
    expect(r?.headers['authorization']?.split('Signature=')[1]).toBe(botocoreSignature(r as Received));
  });

  it("retries Lambda's throttling, and fails typed and at once on a missing function or an answer that is not 202", async () => {
    const { deps, close } = compose({ shardInvoker: lambdaShardInvoker }, { env: ENV_OF() });
    received.length = 0;
    answers = [lambdaFault(429, 'TooManyRequestsException', 'Rate exceeded')];
    await deps.shardInvoker.invoke(PAYLOAD);
    expect(received).toHaveLength(2);
    received.length = 0;
    answers = [
      lambdaFault(
        404,
        'ResourceNotFoundException:http://internal.amazon.com/coral/',
        'Function not found: x',
      ),
    ];
    await expect(deps.shardInvoker.invoke(PAYLOAD)).rejects.toMatchObject({
      code: 'ResourceNotFoundException',
      retryable: false,
      message: 'ResourceNotFoundException (HTTP 404): Function not found: x',
    });
    answers = [(res) => res.writeHead(200).end('{}')];
    await expect(deps.shardInvoker.invoke(PAYLOAD)).rejects.toMatchObject({ code: 'NotQueued', status: 200 });
    expect(received).toHaveLength(2);
    close();
  });

  it("reads Lambda's errors whatever their form, retrying only throttling and server faults", async () => {
    const { deps, close } = compose({ shardInvoker: lambdaShardInvoker }, { env: ENV_OF() });
    const attempt = async (...script: ((res: ServerResponse) => void)[]) => {
      received.length = 0;
      answers = script;
      const e = await deps.shardInvoker.invoke(PAYLOAD).then(
        () => undefined,
        (x: unknown) => x,
      );
      return { e, calls: received.length };
    };
    const raw = (status: number, body: string) => (res: ServerResponse) => res.writeHead(status).end(body);
    // A 500 and a body of JSON null are retried as the status says; then the run is queued.
    expect(await attempt(lambdaFault(500, 'ServiceException', 'x'), raw(503, 'null'))).toEqual({
      e: undefined,
      calls: 3,
    });
    expect(await attempt(lambdaFault(413, 'RequestTooLargeException', 'too big'))).toMatchObject({
      e: { code: 'RequestTooLargeException', retryable: false },
      calls: 1,
    });
    expect(
      await attempt(raw(400, '{"__type":"InvalidParameterValueException","message":"bad"}')),
    ).toMatchObject({
      e: {
        code: 'InvalidParameterValueException',
        message: 'InvalidParameterValueException (HTTP 400): bad',
      },
    });
    expect(
      await attempt(raw(403, '<Error><Code>SignatureDoesNotMatch</Code><Message>m</Message></Error>')),
    ).toMatchObject({
      e: { code: 'SignatureDoesNotMatch', status: 403 },
    });
    close();
  });

  it('refuses to compose without its endpoint, or with one that is not https, naming the variable', () => {
    const bad = (over: Record<string, string | undefined>) => () =>
      compose({ shardInvoker: lambdaShardInvoker }, { env: { ...ENV_OF(), ...over } });
    expect(bad({ [ENV.lambdaEndpoint]: undefined })).toThrow(PermanentError);
    expect(bad({ [ENV.lambdaEndpoint]: undefined })).toThrow(`${ENV.lambdaEndpoint} is not set`);
    expect(bad({ [ENV.lambdaEndpoint]: 'http://lambda.example.com' })).toThrow(
      `${ENV.lambdaEndpoint}: http://lambda.example.com must be https://`,
    );
  });
});
