/**
 * One AWS call as a SigV4-signed HTTPS request, for the calls the Lambda bundles make without an SDK
 * client: the policy function's S3 GET, the sweep's Lambda Invoke, and DynamoDB's JSON protocol
 * (dynamodb-client.ts). An SDK client, with the SDK core, protocols and schemas it brings, was a
 * large part of their cold load (docs/performance.md, "Bundles"). EKS, Step Functions, SNS and
 * CloudWatch use the SDK.
 *
 * Like the SDK's standard retry mode: at most 3 attempts; throttling, server errors, timeouts and
 * cut connections are retried after a jittered wait whose ceiling doubles; each attempt has a
 * deadline, so the worst case is bounded (about 10 s with the defaults).
 */
import * as http from 'node:http';
import * as https from 'node:https';
import { exponentialCeilingMs, halfJitterMs } from '../core/backoff.js';
import { type SigningCredentials, signRequest } from './sigv4.js';

/** The service answered with an error, or no answer came; `code` is the service's or ours (`Timeout`). */
export class AwsRequestError extends Error {
  override readonly name = 'AwsRequestError';
  constructor(
    readonly code: string,
    readonly status: number | undefined,
    readonly retryable: boolean,
    /** The service's message, or what happened (the message adds the code and status). */
    readonly detail: string,
    opts?: { cause?: unknown; fields?: Readonly<Record<string, unknown>>; requestId?: string },
  ) {
    super(`${code}${status === undefined ? '' : ` (HTTP ${status})`}: ${detail}`, opts);
    this.fields = opts?.fields ?? {};
    this.requestId = opts?.requestId;
  }
  /** What else the service's error answer carried (DynamoDB's `Item` of a failed condition). */
  readonly fields: Readonly<Record<string, unknown>>;
  readonly requestId: string | undefined;
}

/** A service's error answer as its parser reads it. */
export interface ServiceError {
  readonly code: string;
  readonly message: string;
  readonly fields?: Readonly<Record<string, unknown>>;
}

export interface HttpAnswer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
}

export interface SignedHttpOptions {
  readonly region: string;
  readonly service: string;
  /** Read at every attempt, so rotated credentials are used at once. */
  readonly credentials: () => SigningCredentials;
  /** The answers that are not errors (S3's GET: 200 and 304; an asynchronous Invoke: 202). */
  readonly ok: (status: number) => boolean;
  /** The service's error code and message in an error answer. */
  readonly errorOf: (a: HttpAnswer) => ServiceError;
  /** Error codes retried whatever their status (S3's `RequestTimeout` is a 400). */
  readonly retryableCodes?: ReadonlySet<string>;
  readonly maxAttempts?: number;
  readonly baseDelayMs?: number;
  readonly capDelayMs?: number;
  readonly attemptTimeoutMs?: number;
  /** A larger successful answer is refused rather than buffered. */
  readonly maxBytes?: number;
  /** An error answer is cut there (64 KiB; DynamoDB's carries up to a whole item). */
  readonly maxErrorBytes?: number;
  readonly random?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly now?: () => Date;
}

type Limits =
  | 'maxAttempts'
  | 'baseDelayMs'
  | 'capDelayMs'
  | 'attemptTimeoutMs'
  | 'maxBytes'
  | 'maxErrorBytes';

export const SIGNED_HTTP_DEFAULTS: Readonly<Required<Pick<SignedHttpOptions, Limits>>> = {
  maxAttempts: 3,
  baseDelayMs: 100,
  capDelayMs: 5_000,
  attemptTimeoutMs: 3_000,
  maxBytes: 64 * 1024 * 1024,
  maxErrorBytes: 64 * 1024,
};

/** What CloudTrail records as the caller's user agent for these calls. */
const USER_AGENT = 'cloudorch (signed-http)';
const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);
/**
 * Server errors after which a request may have been applied: DynamoDB's request router answers 500
 * when the storage node it waited for did not answer in time; a gateway's 502 or 504 likewise.
 */
const OUTCOME_UNKNOWN_STATUS = new Set([500, 502, 504]);
const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

export interface SignedRequest {
  readonly method: 'GET' | 'POST';
  /** Already URI-encoded. */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: Uint8Array;
  /**
   * Whether sending it twice does no harm (default: yes). A request that is not (a conditional
   * write) is not sent again once it went out whole and no answer came, nor after a server error that
   * leaves its outcome unknown (500, 502, 504): the first may have been applied, and the second would
   * then fail its own condition.
   */
  readonly idempotent?: boolean;
}

export interface SignedHttpClient {
  /** The endpoint's host, e.g. to tell a virtual-hosted S3 bucket endpoint from a path-style one. */
  readonly hostname: string;
  /** Sends with retries; resolves with an `ok` answer, rejects with {@link AwsRequestError}. */
  send(req: SignedRequest): Promise<HttpAnswer>;
  /** Closes its connections. */
  destroy(): void;
}

/** The worst time `send` can take before it rejects: every attempt timing out, every wait at its ceiling. */
export function worstCaseMs(o: Partial<SignedHttpOptions> = {}): number {
  const { maxAttempts, attemptTimeoutMs, baseDelayMs, capDelayMs } = { ...SIGNED_HTTP_DEFAULTS, ...o };
  let waits = 0;
  for (let n = 1; n < maxAttempts; n++) waits += exponentialCeilingMs(n, baseDelayMs, capDelayMs);
  return maxAttempts * attemptTimeoutMs + waits;
}

/** The endpoint as a URL, or the reason it cannot be one (a typo here must not crash a cold start). */
export function parseEndpoint(endpoint: string): URL | string {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return `${JSON.stringify(endpoint)} is not a URL`;
  }
  if (url.pathname !== '/' || url.search || url.username)
    return `${endpoint} must be a scheme and a host only, e.g. https://s3.us-east-1.amazonaws.com`;
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && LOOPBACK.has(url.hostname)) return url;
  return `${endpoint} must be https:// (http:// only for this machine: the request carries credentials)`;
}

interface Context {
  readonly o: SignedHttpOptions & Required<Pick<SignedHttpOptions, Limits>>;
  readonly url: URL;
  readonly agent: http.Agent;
  readonly now: () => Date;
}

/** Collects an answer; a successful one longer than `maxBytes` is refused, an error's is cut short. */
function collect(
  c: Context,
  res: http.IncomingMessage,
  resolve: (a: HttpAnswer) => void,
  reject: (e: Error) => void,
  again: boolean,
): void {
  const status = res.statusCode ?? 0;
  const ok = c.o.ok(status);
  const limit = ok ? c.o.maxBytes : c.o.maxErrorBytes;
  const tooLarge = () =>
    new AwsRequestError('TooLarge', status, false, `the answer is larger than ${limit} bytes`);
  if (ok && Number(res.headers['content-length'] ?? 0) > limit) {
    res.destroy();
    reject(tooLarge());
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  res.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= limit) chunks.push(chunk);
    else if (ok) {
      res.destroy();
      reject(tooLarge());
    }
  });
  res.on('error', (e) =>
    reject(new AwsRequestError('ConnectionError', undefined, again, e.message, { cause: e })),
  );
  res.on('end', () => {
    const body = Buffer.concat(chunks);
    resolve({ status, headers: res.headers, body: ok ? body : body.subarray(0, limit) });
  });
}

function once(c: Context, req: SignedRequest): Promise<HttpAnswer> {
  const { url, o } = c;
  const body = req.body && req.body.length > 0 ? req.body : undefined;
  const unsigned = {
    method: req.method,
    host: url.host,
    path: req.path,
    headers: { ...req.headers, ...(body ? { 'content-length': String(body.length) } : {}) },
    body,
    region: o.region,
    service: o.service,
    contentSha256Header: o.service === 's3',
  };
  // Sent, not signed: proxies may rewrite a user agent (botocore leaves it out of the signature too).
  const headers = { ...signRequest(unsigned, o.credentials(), c.now()), 'user-agent': USER_AGENT };
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return new Promise<HttpAnswer>((resolve, reject) => {
    const send = url.protocol === 'https:' ? https.request : http.request;
    const options = { hostname, port: url.port, path: req.path, method: req.method, headers, agent: c.agent };
    // Whether it may be sent again when no whole answer came: yes until it went out whole, if not idempotent.
    let sent = false;
    let answered = false;
    const again = () => req.idempotent !== false || !sent;
    const r = send(options, (res) => {
      answered = true;
      collect(c, res, resolve, reject, again());
    });
    // A pooled connection the server closed while idle (as after a frozen Lambda thaws) is reset
    // before any answer: the server never read the request, so even a write goes out again (Node's
    // advice for keep-alive agents; the SDK does the same).
    const stale = (e: Error) =>
      !answered &&
      r.reusedSocket &&
      ['ECONNRESET', 'EPIPE'].includes((e as NodeJS.ErrnoException).code ?? '');
    r.on('finish', () => {
      sent = true;
    });
    const timer = setTimeout(
      () =>
        r.destroy(
          new AwsRequestError(
            'Timeout',
            undefined,
            again(),
            `no complete answer in ${o.attemptTimeoutMs} ms`,
          ),
        ),
      o.attemptTimeoutMs,
    );
    r.on('close', () => clearTimeout(timer));
    r.on('error', (e) =>
      reject(
        e instanceof AwsRequestError
          ? e
          : new AwsRequestError('ConnectionError', undefined, again() || stale(e), e.message, { cause: e }),
      ),
    );
    r.end(body);
  });
}

/** The JSON object an answer's body carries (read through `reviver`), or nothing: no body, not JSON, not an object. */
export function jsonObject(
  body: Buffer,
  reviver?: (key: string, value: unknown) => unknown,
): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(body.toString('utf8'), reviver);
    return typeof v === 'object' && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function decodeEntities(s: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  return s.replace(/&(amp|lt|gt|quot|apos);/g, (_, n: string) => named[n] ?? '');
}

/** An XML error document's `<Code>` and `<Message>` (S3's form). */
export function xmlError(a: HttpAnswer): { code: string; message: string } {
  const text = a.body.toString('utf8');
  const field = (name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(text)?.[1];
  const code = field('Code');
  return {
    code: code ? decodeEntities(code) : `HTTP${a.status}`,
    message: decodeEntities(field('Message') ?? 'no message'),
  };
}

/** The request id AWS gives an answer (in CloudTrail and support cases). */
export function requestIdOf(a: HttpAnswer): string | undefined {
  const id = a.headers['x-amzn-requestid'] ?? a.headers['x-amz-request-id'];
  return typeof id === 'string' ? id : undefined;
}

async function attempt(c: Context, req: SignedRequest): Promise<HttpAnswer> {
  const a = await once(c, req);
  if (c.o.ok(a.status)) return a;
  let parsed: ServiceError;
  try {
    parsed = c.o.errorOf(a);
  } catch {
    // An answer the service's parser cannot read is still that status's error.
    parsed = { code: `HTTP${a.status}`, message: 'unreadable error answer' };
  }
  const { code, message } = parsed;
  const unknown = req.idempotent === false && OUTCOME_UNKNOWN_STATUS.has(a.status);
  const retryable = (RETRYABLE_STATUS.has(a.status) && !unknown) || (c.o.retryableCodes?.has(code) ?? false);
  const requestId = requestIdOf(a);
  const id = requestId ? ` (request ${requestId})` : '';
  throw new AwsRequestError(code, a.status, retryable, `${message}${id}`, {
    ...(parsed.fields ? { fields: parsed.fields } : {}),
    ...(requestId ? { requestId } : {}),
  });
}

/**
 * A client for one endpoint, as {@link parseEndpoint} gave it (`https://host`, or `http://` on this
 * machine only: the requests carry credentials); parsing first makes a bad endpoint a configuration
 * error its caller names.
 */
export function signedHttpClient(url: URL, opts: SignedHttpOptions): SignedHttpClient {
  const o = { ...SIGNED_HTTP_DEFAULTS, ...opts };
  const agent =
    url.protocol === 'https:' ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
  const c: Context = { o, url, agent, now: o.now ?? (() => new Date()) };
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const random = o.random ?? Math.random;
  return {
    hostname: url.hostname,
    async send(req) {
      for (let n = 1; ; n++) {
        try {
          return await attempt(c, req);
        } catch (e) {
          if (!(e instanceof AwsRequestError) || !e.retryable || n >= o.maxAttempts) throw e;
          await sleep(halfJitterMs(exponentialCeilingMs(n, o.baseDelayMs, o.capDelayMs), random));
        }
      }
    },
    destroy: () => agent.destroy(),
  };
}
