/**
 * The sweep shard function, invoked asynchronously: the client of capability `lambda:invoke-shard`.
 * The dispatcher's one Lambda call is a signed POST of its own (../../aws/signed-http.ts): the SDK's
 * Lambda client, with its schemas and event-stream support, was about a sixth of the dispatcher's
 * cold load (docs/performance.md, "Bundles").
 */
import { environmentCredentials } from '../../aws/env-credentials.js';
import {
  type HttpAnswer,
  jsonObject,
  parseEndpoint,
  signedHttpClient,
  xmlError,
} from '../../aws/signed-http.js';
import { encodeSegment } from '../../aws/sigv4.js';
import { ENV } from '../../config.js';
import { PermanentError } from '../../core/errors.js';
import { required, type Wiring } from '../compose.js';
import type { ShardInvoker } from '../deps.js';

/**
 * Lambda's error answer: the code in `x-amzn-errortype` (before any `:`) or the body's `__type`, the
 * text in the JSON body's `message`; an XML error (from a proxy or a stand-in) is read as such.
 */
export function lambdaError(a: HttpAnswer): { code: string; message: string } {
  if (a.status < 300)
    return {
      code: 'NotQueued',
      message: `Lambda answered ${a.status}, not 202: it did not queue the run as asked`,
    };
  if (a.status < 400)
    return { code: 'NotQueued', message: `Lambda answered ${a.status}, not 202: the run was not queued` };
  const body = jsonObject(a.body);
  if (!body) return xmlError(a);
  const header = a.headers['x-amzn-errortype'];
  const type = typeof header === 'string' ? header : typeof body['__type'] === 'string' ? body['__type'] : '';
  const text = body['message'] ?? body['Message'];
  const reason = typeof body['Reason'] === 'string' ? ` (${body['Reason']})` : '';
  return {
    code: type.split(':')[0]?.split('#').pop() || `HTTP${a.status}`,
    message: `${typeof text === 'string' ? text : 'no message'}${reason}`,
  };
}

export function lambdaShardInvoker(w: Wiring): ShardInvoker {
  const functionName = required(w.env, ENV.sweepShardFunction);
  const endpoint = parseEndpoint(required(w.env, ENV.lambdaEndpoint));
  if (typeof endpoint === 'string')
    throw new PermanentError(`${ENV.lambdaEndpoint}: ${endpoint}`, {
      remediation: `Deploy the function with the CloudOrch stack, which sets ${ENV.lambdaEndpoint}.`,
    });
  const local = w.endpoints?.credentials;
  const client = w.own(
    signedHttpClient(endpoint, {
      region: w.endpoints?.region ?? required(w.env, 'AWS_REGION'),
      service: 'lambda',
      credentials: local ? () => local : environmentCredentials(w.env),
      // An accepted asynchronous invocation answers 202; anything else was not queued.
      ok: (status) => status === 202,
      errorOf: lambdaError,
    }),
  );
  const path = `/2015-03-31/functions/${encodeSegment(functionName)}/invocations`;
  // A timed-out Invoke is retried though Lambda may have queued it: a second run of a shard is
  // harmless (each shard has a lease, and the executions a run starts are named per period), and
  // Lambda's asynchronous delivery is at least once anyway.
  return {
    async invoke(payload) {
      await client.send({
        method: 'POST',
        path,
        headers: { 'x-amz-invocation-type': 'Event', 'content-type': 'application/json' },
        body: Buffer.from(JSON.stringify(payload)),
      });
    },
  };
}
