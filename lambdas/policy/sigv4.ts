/**
 * AWS Signature Version 4 for a request without a body or query string: what the policy function's
 * one S3 GET needs, written out so that function does not load an SDK client to fetch one object
 * (see docs/performance.md, "Bundles"). Pure: the time and the credentials are inputs.
 * Checked against AWS's published S3 example and, in the tests, against a server that verifies
 * signatures with its own implementation.
 */
import { createHash, createHmac } from 'node:crypto';

export interface SigningCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string | undefined;
}

export interface UnsignedRequest {
  readonly method: 'GET' | 'HEAD';
  /** `host[:port]`, as the request's Host header carries it. */
  readonly host: string;
  /** The path as sent, already URI-encoded (see {@link encodeS3Key}). */
  readonly path: string;
  /** Headers to send and sign besides host, x-amz-date, x-amz-content-sha256 and the token. */
  readonly headers: Readonly<Record<string, string>>;
  readonly region: string;
  readonly service: string;
}

/** The SHA-256 of an empty payload: the body hash of every request signed here. */
export const EMPTY_PAYLOAD_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

const sha256Hex = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const hmac = (key: Buffer | string, s: string) => createHmac('sha256', key).update(s, 'utf8').digest();

/** `20130524T000000Z`: the form of x-amz-date. */
export function amzDate(now: Date): string {
  return now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

/**
 * An S3 object key as a URI path: each byte but RFC 3986's unreserved characters percent-encoded
 * (`encodeURIComponent` leaves `!'()*` alone, which S3 signs encoded), slashes kept.
 */
export function encodeS3Key(key: string): string {
  return key
    .split('/')
    .map((part) =>
      encodeURIComponent(part).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`),
    )
    .join('/');
}

/** The request's headers with `authorization` and the x-amz-* headers the signature covers. */
export function signRequest(
  req: UnsignedRequest,
  credentials: SigningCredentials,
  now: Date,
): Record<string, string> {
  const date = amzDate(now);
  const day = date.slice(0, 8);
  const headers: Record<string, string> = {
    ...Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k.toLowerCase(), v])),
    host: req.host,
    'x-amz-content-sha256': EMPTY_PAYLOAD_SHA256,
    'x-amz-date': date,
    ...(credentials.sessionToken ? { 'x-amz-security-token': credentials.sessionToken } : {}),
  };
  const names = Object.keys(headers).sort();
  const canonicalHeaders = names
    .map((n) => `${n}:${String(headers[n]).trim().replace(/\s+/g, ' ')}\n`)
    .join('');
  const signedHeaders = names.join(';');
  const canonicalRequest = [
    req.method,
    req.path,
    '',
    canonicalHeaders,
    signedHeaders,
    EMPTY_PAYLOAD_SHA256,
  ].join('\n');
  const scope = `${day}/${req.region}/${req.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', date, scope, sha256Hex(canonicalRequest)].join('\n');
  const key = hmac(
    hmac(hmac(hmac(`AWS4${credentials.secretAccessKey}`, day), req.region), req.service),
    'aws4_request',
  );
  const signature = createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex');
  headers['authorization'] =
    `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return headers;
}
