/**
 * The HTTP layer of the local Step Functions endpoint: AWS JSON 1.0 over loopback. It maps
 * `X-Amz-Target: AWSStepFunctions.<Operation>` to a handler and every thrown error to the
 * `{"__type", "message"}` body the SDK turns into a named error; it knows nothing of executions.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { refuseBrowserRequests } from '../runtime/browser-guard.js';
import { type Body, SfnServiceError } from './wire.js';

/** One API operation, already bound to whatever state it serves. */
export type Handler = (body: Body) => Body;

export interface SfnHttpServer {
  url: string;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
const MAX_BODY_BYTES = 1024 * 1024;
const TARGET_PREFIX = 'AWSStepFunctions.';
const CONTENT_TYPE = 'application/x-amz-json-1.0';

/** Refuses any host but loopback: the endpoint has no authentication. */
export function checkLoopbackHost(host: string): void {
  if (!LOOPBACK.has(host))
    throw new RangeError(`the local Step Functions endpoint binds loopback only, not ${host}`);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > MAX_BODY_BYTES) throw new SfnServiceError('ValidationException', 'request body too large');
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function readJsonObject(req: IncomingMessage): Promise<Body> {
  const raw = await readBody(req);
  let body: unknown;
  try {
    body = raw === '' ? {} : JSON.parse(raw);
  } catch {
    throw new SfnServiceError('SerializationException', 'request body is not JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new SfnServiceError('SerializationException', 'request body must be a JSON object');
  }
  return body as Body;
}

function send(res: ServerResponse, status: number, payload: Body): void {
  const text = JSON.stringify(payload);
  res.writeHead(status, {
    'content-type': CONTENT_TYPE,
    'content-length': Buffer.byteLength(text),
    'x-amzn-requestid': randomUUID(),
  });
  res.end(text);
}

async function handle(
  handlers: Readonly<Record<string, Handler>>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  try {
    const target = req.headers['x-amz-target'];
    const op =
      typeof target === 'string' && target.startsWith(TARGET_PREFIX)
        ? target.slice(TARGET_PREFIX.length)
        : '';
    // Own properties only: `AWSStepFunctions.constructor` is an unknown operation, not Object's.
    const handler = req.method === 'POST' && Object.hasOwn(handlers, op) ? handlers[op] : undefined;
    if (!handler) {
      throw new SfnServiceError(
        'UnknownOperationException',
        `Operation '${op || String(target)}' is not implemented by the local Step Functions endpoint`,
      );
    }
    send(res, 200, handler(await readJsonObject(req)));
  } catch (e) {
    const err =
      e instanceof SfnServiceError ? e : new SfnServiceError('InternalFailure', (e as Error).message, 500);
    send(res, err.httpStatus, { __type: err.code, message: err.message });
  }
}

/** Listens on `host:port` (0 picks a free port) and serves `handlers` by operation name. */
export async function serveSfnApi(
  host: string,
  port: number,
  handlers: Readonly<Record<string, Handler>>,
): Promise<SfnHttpServer> {
  checkLoopbackHost(host);
  const server = createServer((req, res) => {
    void handle(handlers, req, res);
  });
  refuseBrowserRequests(server, 'the local Step Functions endpoint');
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${urlHost}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
