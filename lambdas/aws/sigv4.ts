/**
 * AWS Signature Version 4 for a request without a query string: what the policy function's S3 GET
 * and the sweep's Lambda Invoke need, written out so those functions load no SDK client for one
 * call each (docs/performance.md, "Bundles"). Pure: the time and the credentials are inputs.
 * Checked against AWS's published examples and, in the tests, against botocore and a server that
 * verifies signatures with its own implementation.
 */
import { createHash, createHmac } from 'node:crypto';

export interface SigningCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string | undefined;
}

export interface UnsignedRequest {
  readonly method: 'GET' | 'POST';
  /** `host[:port]`, as the request's Host header carries it. */
  readonly host: string;
  /** The path as sent, already URI-encoded (see {@link encodeS3Key}). */
  readonly path: string;
  /** Headers to send and sign besides host, x-amz-date and the token. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: Uint8Array | undefined;
  readonly region: string;
  readonly service: string;
  /** S3 wants the payload's hash in `x-amz-content-sha256` too. */
  readonly contentSha256Header?: boolean;
}

/** The SHA-256 of an empty payload. */
export const EMPTY_PAYLOAD_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

const sha256Hex = (s: string | Uint8Array) => createHash('sha256').update(s).digest('hex');
const hmac = (key: Buffer | string, s: string) => createHmac('sha256', key).update(s, 'utf8').digest();

/** `20130524T000000Z`: the form of x-amz-date. */
export function amzDate(now: Date): string {
  return now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

/**
 * A path segment as SigV4 signs it: each byte but RFC 3986's unreserved characters percent-encoded
 * (`encodeURIComponent` leaves `!'()*` alone).
 */
export function encodeSegment(part: string): string {
  return encodeURIComponent(part).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** An S3 object key as a URI path: every segment encoded, slashes kept (S3 encodes once). */
export function encodeS3Key(key: string): string {
  return key.split('/').map(encodeSegment).join('/');
}

/** The request's headers with `authorization` and the x-amz-* headers the signature covers. */
export function signRequest(
  req: UnsignedRequest,
  credentials: SigningCredentials,
  now: Date,
): Record<string, string> {
  const date = amzDate(now);
  const day = date.slice(0, 8);
  const payloadHash = req.body && req.body.length > 0 ? sha256Hex(req.body) : EMPTY_PAYLOAD_SHA256;
  const headers: Record<string, string> = {
    ...Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k.toLowerCase(), v])),
    host: req.host,
    ...(req.contentSha256Header ? { 'x-amz-content-sha256': payloadHash } : {}),
    'x-amz-date': date,
    ...(credentials.sessionToken ? { 'x-amz-security-token': credentials.sessionToken } : {}),
  };
  const names = Object.keys(headers).sort();
  const canonicalHeaders = names
    .map((n) => `${n}:${String(headers[n]).trim().replace(/\s+/g, ' ')}\n`)
    .join('');
  const signedHeaders = names.join(';');
  // S3 signs the path as sent; every other service signs it encoded once more.
  const canonicalPath = req.service === 's3' ? req.path : req.path.split('/').map(encodeSegment).join('/');
  const canonicalRequest = [req.method, canonicalPath, '', canonicalHeaders, signedHeaders, payloadHash].join(
    '\n',
  );
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
