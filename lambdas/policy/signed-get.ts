/**
 * The policy function's one S3 call, a conditional GetObject, as a SigV4-signed HTTPS GET: the S3
 * client (with the SDK core, XML protocol and checksums it brings) was most of that function's cold
 * load, for one request per bundle reload (docs/performance.md, "Bundles"). The bridge and the CLI,
 * which need the SDK's whole credential chain, use the client through sdk-object-getter.ts.
 *
 * Like the SDK's standard retry mode: at most 3 attempts, retrying throttling, server errors,
 * timeouts and dropped connections after a jittered wait whose ceiling doubles.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import { encodeS3Key, type SigningCredentials, signRequest } from './sigv4.js';
import type { ObjectGetter, ObjectResult } from './sources.js';

export interface SignedGetterOptions {
  /**
   * Where the bucket answers. When its host starts with `<bucket>.` (the bucket's regional domain
   * name, which the stack passes) the object is at `/<key>`; otherwise at `/<bucket>/<key>` (path
   * style, as S3-compatible servers serve it).
   */
  readonly endpoint: string;
  readonly region: string;
  /** Read at every attempt, so rotated credentials are used at once. */
  readonly credentials: () => SigningCredentials;
  readonly maxAttempts?: number;
  readonly baseDelayMs?: number;
  readonly capDelayMs?: number;
  readonly attemptTimeoutMs?: number;
  /** A larger object is refused rather than buffered. */
  readonly maxBytes?: number;
  readonly random?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly now?: () => Date;
}

export const SIGNED_GET_DEFAULTS = {
  maxAttempts: 3,
  baseDelayMs: 100,
  capDelayMs: 5_000,
  attemptTimeoutMs: 10_000,
  maxBytes: 64 * 1024 * 1024,
} as const;

/** S3 answered with an error, or no answer came; `code` is S3's (`NoSuchKey`) or ours (`Timeout`). */
export class S3GetError extends Error {
  override readonly name = 'S3GetError';
  constructor(
    readonly code: string,
    readonly status: number | undefined,
    readonly retryable: boolean,
    detail: string,
    opts?: { cause?: unknown },
  ) {
    super(`${code}${status === undefined ? '' : ` (HTTP ${status})`}: ${detail}`, opts);
  }
}

const RETRYABLE_CODES = new Set(['SlowDown', 'RequestTimeout', 'InternalError', 'ServiceUnavailable']);

/** The ceiling of the wait after the n-th failed attempt (n >= 1); the wait is half of it plus jitter. */
export function retryCeilingMs(n: number, baseMs: number, capMs: number): number {
  return Math.min(capMs, baseMs * 2 ** Math.min(n - 1, 30));
}

interface Response {
  readonly status: number;
  readonly etag: string | undefined;
  readonly body: Buffer;
}

function xmlField(body: string, name: string): string | undefined {
  return new RegExp(`<${name}>([^<]*)</${name}>`).exec(body)?.[1];
}

function errorOf(res: Response): S3GetError {
  const text = res.body.toString('utf8');
  const code = xmlField(text, 'Code') ?? `HTTP${res.status}`;
  const retryable = res.status >= 500 || res.status === 429 || RETRYABLE_CODES.has(code);
  return new S3GetError(code, res.status, retryable, xmlField(text, 'Message') ?? 'no message');
}

/** What one attempt needs: the options resolved, the endpoint parsed, one connection pool. */
interface Context {
  readonly o: Required<Omit<SignedGetterOptions, 'random' | 'sleep' | 'now'>>;
  readonly base: URL;
  readonly secure: boolean;
  readonly agent: http.Agent;
  readonly now: () => Date;
}

/** Collects a response, refusing one longer than `limit` (an error's XML is short; only 200 is kept). */
function collect(
  res: http.IncomingMessage,
  limit: number,
  resolve: (r: Response) => void,
  reject: (e: Error) => void,
) {
  const status = res.statusCode ?? 0;
  const chunks: Buffer[] = [];
  let size = 0;
  res.on('data', (c: Buffer) => {
    size += c.length;
    if (size <= limit) return void chunks.push(c);
    res.destroy();
    reject(new S3GetError('TooLarge', status, false, `the object is larger than ${limit} bytes`));
  });
  res.on('error', (e) => reject(new S3GetError('ConnectionError', undefined, true, e.message, { cause: e })));
  res.on('end', () => {
    const etag = res.headers.etag;
    resolve({ status, etag: typeof etag === 'string' ? etag : undefined, body: Buffer.concat(chunks) });
  });
}

function once(c: Context, bucket: string, key: string, ifNoneMatch: string | undefined): Promise<Response> {
  const virtualHosted = c.base.hostname.startsWith(`${bucket}.`);
  const path = `${virtualHosted ? '' : `/${encodeS3Key(bucket)}`}/${encodeS3Key(key)}`;
  const unsigned = {
    method: 'GET' as const,
    host: c.base.host,
    path,
    headers: ifNoneMatch === undefined ? {} : { 'if-none-match': ifNoneMatch },
    region: c.o.region,
    service: 's3',
  };
  const headers = signRequest(unsigned, c.o.credentials(), c.now());
  const { hostname, port, protocol } = c.base;
  return new Promise<Response>((resolve, reject) => {
    const limit = (status: number | undefined) => (status === 200 ? c.o.maxBytes : 64 * 1024);
    const req = (c.secure ? https.request : http.request)(
      { protocol, hostname, port, path, method: 'GET', headers, agent: c.agent },
      (res) => collect(res, limit(res.statusCode), resolve, reject),
    );
    const timer = setTimeout(
      () =>
        req.destroy(new S3GetError('Timeout', undefined, true, `no answer in ${c.o.attemptTimeoutMs} ms`)),
      c.o.attemptTimeoutMs,
    );
    req.on('close', () => clearTimeout(timer));
    req.on('error', (e) =>
      reject(
        e instanceof S3GetError
          ? e
          : new S3GetError('ConnectionError', undefined, true, e.message, { cause: e }),
      ),
    );
    req.end();
  });
}

async function attempt(
  c: Context,
  bucket: string,
  key: string,
  ifNoneMatch: string | undefined,
): Promise<ObjectResult> {
  const res = await once(c, bucket, key, ifNoneMatch);
  if (res.status === 304) return { notModified: true };
  if (res.status === 200) return { notModified: false, etag: res.etag, bytes: new Uint8Array(res.body) };
  throw errorOf(res);
}

export function signedObjectGetter(opts: SignedGetterOptions): ObjectGetter {
  const o = { ...SIGNED_GET_DEFAULTS, ...opts };
  const base = new URL(o.endpoint);
  const secure = base.protocol === 'https:';
  if (!secure && base.protocol !== 'http:')
    throw new TypeError(`S3 endpoint ${o.endpoint} is not an http(s) URL`);
  const agent = secure ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
  const c: Context = { o, base, secure, agent, now: o.now ?? (() => new Date()) };
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const random = o.random ?? Math.random;
  return {
    async getObject(bucket, key, ifNoneMatch) {
      for (let n = 1; ; n++) {
        try {
          return await attempt(c, bucket, key, ifNoneMatch);
        } catch (e) {
          if (!(e instanceof S3GetError) || !e.retryable || n >= o.maxAttempts) throw e;
          const ceiling = retryCeilingMs(n, o.baseDelayMs, o.capDelayMs);
          await sleep(ceiling / 2 + random() * (ceiling / 2));
        }
      }
    },
    destroy: () => agent.destroy(),
  };
}

/**
 * The credentials Lambda gives a function in its environment; a clear error when they are missing
 * (outside Lambda, set them or use a source with the SDK's whole chain).
 */
export function environmentCredentials(env: NodeJS.ProcessEnv): () => SigningCredentials {
  return () => {
    const accessKeyId = env['AWS_ACCESS_KEY_ID'];
    const secretAccessKey = env['AWS_SECRET_ACCESS_KEY'];
    if (!accessKeyId || !secretAccessKey)
      throw new S3GetError(
        'NoCredentials',
        undefined,
        false,
        'AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set (Lambda sets them for the function role)',
      );
    return { accessKeyId, secretAccessKey, sessionToken: env['AWS_SESSION_TOKEN'] };
  };
}
