/**
 * DynamoDB's JSON protocol as signed requests (signed-http.ts): what the Lambda bundles load in place
 * of `@aws-sdk/client-dynamodb` (infra/bundling/function-bundling.mjs, LAMBDA_REPLACEMENTS). The SDK
 * client, with its protocols, schemas and middleware, was about a sixth of the cold load of every
 * function that reads the tables (docs/performance.md, "Bundles"). The CLI, the bridge, `cloudorch
 * dev` and the tests keep the SDK; test/aws/dynamodb-client.test.ts runs the store through this client
 * against DynamoDB Local, and this module exports only what lambdas/ imports from the SDK's package
 * (the bundle build fails on any other name).
 *
 * Like the SDK in Lambda: the region is AWS_REGION, the credentials are the environment's, and the
 * endpoint is AWS_ENDPOINT_URL_DYNAMODB (the SDK's own variable; the stack sets it). An error is an
 * exception named by DynamoDB's code, with `$metadata`, as classifyAwsError reads the SDK's.
 */
import { ENV } from '../config.js';
import { InternalError, PermanentError } from '../core/errors.js';
import { environmentCredentials, MissingCredentialsError } from './env-credentials.js';
import {
  AwsRequestError,
  type HttpAnswer,
  jsonObject,
  parseEndpoint,
  requestIdOf,
  type ServiceError,
  type SignedHttpClient,
  signedHttpClient,
  xmlError,
} from './signed-http.js';
import type { SigningCredentials } from './sigv4.js';

/** The SDK's `$metadata`, as error classification and callers read it. */
export interface ResponseMetadata {
  readonly httpStatusCode?: number | undefined;
  readonly requestId?: string | undefined;
}

/** An error DynamoDB answered (named by its code), or no answer (`TimeoutError`, `ConnectionError`). */
export class DynamoDBServiceException extends Error {
  override readonly name: string;
  readonly $fault: 'client' | 'server';
  readonly $metadata: ResponseMetadata;
  constructor(code: string, message: string, metadata: ResponseMetadata, opts?: { cause?: unknown }) {
    super(message, opts);
    this.name = code;
    this.$metadata = metadata;
    this.$fault = (metadata.httpStatusCode ?? 500) >= 500 ? 'server' : 'client';
  }
}

/** A condition failed; `Item` is the item as it was, when the request asked for it (ALL_OLD). */
export class ConditionalCheckFailedException extends DynamoDBServiceException {
  readonly Item: Record<string, unknown> | undefined;
  constructor(message: string, metadata: ResponseMetadata, item: unknown, opts?: { cause?: unknown }) {
    super('ConditionalCheckFailedException', message, metadata, opts);
    this.Item = typeof item === 'object' && item !== null ? (item as Record<string, unknown>) : undefined;
  }
}

export const ReturnValue = {
  ALL_NEW: 'ALL_NEW',
  ALL_OLD: 'ALL_OLD',
  NONE: 'NONE',
  UPDATED_NEW: 'UPDATED_NEW',
  UPDATED_OLD: 'UPDATED_OLD',
} as const;

/** One operation of DynamoDB's API with its input, in DynamoDB's own JSON (attribute values typed). */
export class DynamoDBCommand {
  constructor(
    readonly operation: string,
    readonly input: object,
  ) {}
}

export class UpdateItemCommand extends DynamoDBCommand {
  constructor(input: object) {
    super('UpdateItem', input);
  }
}

/**
 * Operations sent again after a timeout, a cut connection or a server error. A write is not, once it
 * went out whole, nor after a 500 (its outcome is unknown): if the first was applied, a second would
 * fail its own condition, which the store would read as another writer's. Its error stays transient:
 * the step fails and is retried, reading afresh.
 */
const READS = new Set(['GetItem', 'BatchGetItem', 'Scan', 'Query']);

/** The SDK's standard retry mode retries these codes whatever their status (and 5xx, 429). */
const RETRYABLE_CODES = new Set([
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'ThrottlingException',
  'Throttling',
  'TooManyRequestsException',
  'TransactionInProgressException',
  'LimitExceededException',
  'RequestThrottled',
  'RequestThrottledException',
  'SlowDown',
  'RequestTimeout',
  'RequestTimeoutException',
]);

/** As the SDK reads a JSON protocol's error type: `ns#Code:uri` -> `Code`. */
function errorCode(type: string): string {
  const code = type.split(',')[0]?.split(':')[0] ?? '';
  return code.split('#').pop() ?? '';
}

/** The code of the x-amzn-errortype header (the SDK reads it first), else of the body's `__type`. */
export function dynamoError(a: HttpAnswer): ServiceError {
  const header = a.headers['x-amzn-errortype'];
  const body = jsonObject(a.body, binaryValues);
  const type = typeof header === 'string' && header ? header : body?.['__type'];
  // Not DynamoDB's JSON: a proxy's or a stand-in's XML error, or nothing readable.
  if (!body && typeof type !== 'string') return xmlError(a);
  const text = body?.['message'] ?? body?.['Message'];
  return {
    code: (typeof type === 'string' && errorCode(type)) || `HTTP${a.status}`,
    message: typeof text === 'string' ? text : 'no message',
    fields: body ?? {},
  };
}

/** Bytes from base64, as a plain Uint8Array (what the SDK gives, not a Buffer). */
function bytes(base64: string): Uint8Array {
  const b = Buffer.from(base64, 'base64');
  return new Uint8Array(b.buffer, b.byteOffset, b.length);
}

/** DynamoDB's JSON carries binary attribute values as base64; callers see bytes, as with the SDK. */
function binaryValues(key: string, value: unknown): unknown {
  if (key === 'B' && typeof value === 'string') return bytes(value);
  if (key === 'BS' && Array.isArray(value) && value.every((v) => typeof v === 'string'))
    return value.map((v: string) => bytes(v));
  return value;
}

function base64Bytes(this: Record<string, unknown>, key: string, value: unknown): unknown {
  const raw = this[key];
  return raw instanceof Uint8Array
    ? Buffer.from(raw.buffer, raw.byteOffset, raw.length).toString('base64')
    : value;
}

const ENDPOINT_VARIABLE = ENV.dynamodbEndpoint;
const CONFIG_KEYS = new Set(['region', 'endpoint', 'credentials']);

export interface DynamoDBClientConfig {
  readonly region?: string;
  /** Default: AWS_ENDPOINT_URL_DYNAMODB, then AWS_ENDPOINT_URL (the SDK's variables). */
  readonly endpoint?: string;
  /** Default: the environment's (Lambda's function role). */
  readonly credentials?: SigningCredentials;
}

function configured(config: DynamoDBClientConfig): {
  url: URL;
  region: string;
  credentials: () => SigningCredentials;
} {
  const unknown = Object.keys(config).filter((k) => !CONFIG_KEYS.has(k));
  // An option this client would ignore must not be ignored silently.
  if (unknown.length > 0)
    throw new InternalError(`the bundled DynamoDB client has no option ${unknown.join(', ')}`);
  const env = process.env;
  const endpoint = config.endpoint ?? env[ENDPOINT_VARIABLE] ?? env['AWS_ENDPOINT_URL'];
  const deploy = {
    remediation: `Deploy the function with the CloudOrch stack, which sets ${ENDPOINT_VARIABLE}.`,
  };
  if (!endpoint) throw new PermanentError(`${ENDPOINT_VARIABLE} is not set`, deploy);
  const url = parseEndpoint(endpoint);
  if (typeof url === 'string') throw new PermanentError(`${ENDPOINT_VARIABLE}: ${url}`, deploy);
  const region = config.region ?? env['AWS_REGION'];
  if (!region)
    throw new PermanentError('AWS_REGION is not set', { remediation: 'Lambda sets it; elsewhere, set it.' });
  const fixed = config.credentials;
  return { url, region, credentials: fixed ? () => fixed : environmentCredentials(env) };
}

/** The SDK's exception for a failed request: named by DynamoDB's code, or ours when no answer came. */
export function dynamoException(e: AwsRequestError): DynamoDBServiceException {
  const metadata = { httpStatusCode: e.status, requestId: e.requestId };
  const message = String(e.fields['message'] ?? e.fields['Message'] ?? e.detail);
  if (e.code === 'ConditionalCheckFailedException')
    return new ConditionalCheckFailedException(message, metadata, e.fields['Item'], { cause: e });
  // The SDK's name for a request that timed out, which classification treats as transient.
  const code = e.code === 'Timeout' ? 'TimeoutError' : e.code;
  // DynamoDB's message, as the SDK's (the code, status and request id are the name and $metadata).
  return new DynamoDBServiceException(code, message, metadata, { cause: e });
}

export class DynamoDBClient {
  readonly #http: SignedHttpClient;
  constructor(config: DynamoDBClientConfig = {}) {
    const { url, region, credentials } = configured(config);
    this.#http = signedHttpClient(url, {
      region,
      service: 'dynamodb',
      credentials,
      ok: (status) => status === 200,
      errorOf: dynamoError,
      retryableCodes: RETRYABLE_CODES,
      // A failed condition's answer carries the item (up to 400 KB) when asked for; its JSON can be
      // up to about 8.5 times larger (a map of one-character names, each escaped as \u0001, to BOOLs).
      maxErrorBytes: 4 * 1024 * 1024,
    });
  }

  async send(command: DynamoDBCommand): Promise<Record<string, unknown>> {
    let a: HttpAnswer;
    try {
      a = await this.#http.send({
        method: 'POST',
        path: '/',
        headers: {
          'content-type': 'application/x-amz-json-1.0',
          'x-amz-target': `DynamoDB_20120810.${command.operation}`,
        },
        body: Buffer.from(JSON.stringify(command.input, base64Bytes)),
        idempotent: READS.has(command.operation),
      });
    } catch (e) {
      if (e instanceof MissingCredentialsError)
        throw new PermanentError(e.message, {
          code: e.name,
          remediation: 'Lambda sets them for the function role; elsewhere, set them or use the CLI.',
          cause: e,
        });
      throw e instanceof AwsRequestError ? dynamoException(e) : e;
    }
    const $metadata = { httpStatusCode: a.status, requestId: requestIdOf(a) };
    const out = jsonObject(a.body, binaryValues);
    if (!out)
      throw new DynamoDBServiceException(
        'UnreadableAnswer',
        `${command.operation}: the answer is not a JSON object`,
        $metadata,
      );
    return { ...out, $metadata };
  }

  destroy(): void {
    this.#http.destroy();
  }
}
