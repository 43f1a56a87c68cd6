/**
 * The signed request of the functions that sign their one call themselves, against a stand-in that
 * fails on purpose: retries, their growing jittered waits, timeouts, cut connections, limits, and
 * the worst case against the timeouts of the functions that use it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AwsRequestError,
  parseEndpoint,
  type SignedHttpOptions,
  type SignedRequest,
  signedHttpClient,
  worstCaseMs,
  xmlError,
} from '../../lambdas/aws/signed-http.js';
import { FUNCTIONS } from '../../lambdas/functions/catalog.js';
import { type StandIn, startStandIn } from './support/stand-in.js';

type Answer = (res: ServerResponse, req: IncomingMessage) => void;

let standIn: StandIn;
let url: string;
let answers: Answer[] = [];
let requests = 0;
const errorXml = (code: string, message = 'm') =>
  `<?xml version="1.0"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`;
const fail =
  (status: number, code: string, message?: string): Answer =>
  (res) =>
    res.writeHead(status).end(errorXml(code, message));
const ok =
  (body: string): Answer =>
  (res) =>
    res.writeHead(200, { etag: '"e"' }).end(body);

beforeAll(async () => {
  standIn = await startStandIn((req, res) => {
    requests++;
    (answers.shift() ?? fail(500, 'NoMoreAnswers'))(res, req);
  });
  url = standIn.url;
});
afterAll(() => standIn.close());

function run(
  script: Answer[],
  over: Partial<SignedHttpOptions> = {},
  req: SignedRequest = { method: 'GET', path: '/b/k' },
) {
  answers = [...script];
  requests = 0;
  const waits: number[] = [];
  const endpoint = parseEndpoint(url);
  if (typeof endpoint === 'string') throw new Error(endpoint);
  const client = signedHttpClient(endpoint, {
    region: 'us-east-1',
    service: 's3',
    credentials: () => ({ accessKeyId: 'k', secretAccessKey: 's' }),
    ok: (status) => status === 200,
    errorOf: xmlError,
    retryableCodes: new Set(['RequestTimeout']),
    sleep: async (ms) => void waits.push(ms),
    random: () => 0.5,
    ...over,
  });
  const result = client.send(req).finally(() => client.destroy());
  return { result, waits };
}

describe('signed HTTP request', () => {
  it('retries throttling and server errors after waits that grow, and succeeds', async () => {
    const { result, waits } = run([fail(503, 'SlowDown'), fail(500, 'InternalError'), ok('ok')]);
    expect((await result).body.toString()).toBe('ok');
    // Half the ceiling plus half of it times the draw (0.5): 75 ms, then 150 ms.
    expect(waits).toEqual([75, 150]);
    expect(requests).toBe(3);
  });

  it('gives up after its attempts with the last error, and never waits past the cap', async () => {
    const script = [fail(503, 'SlowDown'), fail(503, 'SlowDown'), fail(503, 'SlowDown')];
    const { result, waits } = run(script, { baseDelayMs: 1000, capDelayMs: 1500, random: () => 0.999 });
    await expect(result).rejects.toMatchObject({ code: 'SlowDown', status: 503, retryable: true });
    expect(requests).toBe(3);
    expect(waits[0]).toBeGreaterThan(990);
    expect(waits[1]).toBeLessThan(1500);
    expect(waits[1]).toBeGreaterThan(waits[0] as number);
  });

  it("does not retry a client error or 501, but retries a service's retryable code", async () => {
    const denied = run([fail(403, 'AccessDenied', 'Access Denied &amp; more'), ok('ok')]);
    const e = await denied.result.catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AwsRequestError);
    expect(e).toMatchObject({
      code: 'AccessDenied',
      retryable: false,
      message: 'AccessDenied (HTTP 403): Access Denied & more',
    });
    expect([requests, denied.waits.length]).toEqual([1, 0]);
    await expect(run([fail(501, 'NotImplemented')]).result).rejects.toMatchObject({ retryable: false });
    expect(requests).toBe(1);
    expect((await run([fail(400, 'RequestTimeout'), ok('ok')]).result).status).toBe(200);
    expect(requests).toBe(2);
  });

  it('times out an attempt that gets no answer and a connection cut mid-answer, and retries both', async () => {
    const silent: Answer = () => {};
    const cut: Answer = (res) => {
      res.writeHead(200, { 'content-length': '100' }).write('partial');
      setTimeout(() => res.socket?.destroy(), 10);
    };
    const drip: Answer = (res) => {
      res.writeHead(200, { 'content-length': '100' }).write('x');
      const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write('x')), 20);
    };
    const { result, waits } = run([silent, cut, ok('ok')], { attemptTimeoutMs: 200 });
    expect((await result).body.toString()).toBe('ok');
    expect([requests, waits.length]).toEqual([3, 2]);
    const never = run([silent, drip], { attemptTimeoutMs: 150, maxAttempts: 2 });
    await expect(never.result).rejects.toMatchObject({ code: 'Timeout', retryable: true });
  });

  it('refuses a successful answer larger than its limit at once, but reads a long error and retries it', async () => {
    await expect(run([ok('x'.repeat(2048))], { maxBytes: 1024 }).result).rejects.toMatchObject({
      code: 'TooLarge',
      retryable: false,
    });
    expect(requests).toBe(1);
    const longError: Answer = (res) => res.writeHead(500).end(errorXml('InternalError', 'y'.repeat(100_000)));
    expect((await run([longError, ok('ok')]).result).status).toBe(200);
    expect(requests).toBe(2);
  });

  it('signs and sends a body, with its length', async () => {
    let seen: { length: string | undefined; body: string; auth: string | undefined } = {
      length: undefined,
      body: '',
      auth: undefined,
    };
    const echo: Answer = (res, req) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen = {
          length: req.headers['content-length'],
          body: Buffer.concat(chunks).toString(),
          auth: req.headers.authorization,
        };
        res.writeHead(200).end();
      });
    };
    const body = Buffer.from('{"a":1}');
    await run([echo], { region: 'eu-west-1', service: 'lambda' }, { method: 'POST', path: '/p', body })
      .result;
    expect(seen).toMatchObject({ length: '7', body: '{"a":1}' });
    expect(seen.auth).toMatch(
      /^AWS4-HMAC-SHA256 Credential=k\/\d{8}\/eu-west-1\/lambda\/aws4_request, SignedHeaders=content-length;host;x-amz-date, /,
    );
  });

  it('takes an https endpoint, or http on this machine only, with no path', () => {
    expect(parseEndpoint('https://b.s3.us-east-1.amazonaws.com')).toBeInstanceOf(URL);
    expect(parseEndpoint('http://127.0.0.1:4566')).toBeInstanceOf(URL);
    expect(parseEndpoint('http://[::1]:4566')).toBeInstanceOf(URL);
    expect(parseEndpoint('b.s3.us-east-1.amazonaws.com')).toMatch(/is not a URL/);
    expect(parseEndpoint('http://s3.example.com')).toMatch(/must be https:\/\//);
    expect(parseEndpoint('ftp://127.0.0.1')).toMatch(/must be https:\/\//);
    expect(parseEndpoint('https://s3.example.com/prefix')).toMatch(/a scheme and a host only/);
  });

  it('fails within the timeout of every function that uses it, with room to spare', () => {
    // Three attempts of 3 s and two waits of at most 100 and 200 ms.
    expect(worstCaseMs()).toBe(9_300);
    for (const key of ['policy', 'sweep'] as const)
      expect(worstCaseMs()).toBeLessThan((FUNCTIONS[key].timeoutSeconds * 1000) / 2);
  });
});
