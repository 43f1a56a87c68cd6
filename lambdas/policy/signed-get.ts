/**
 * The policy function's one S3 call, a conditional GetObject, as a signed GET
 * (../aws/signed-http.ts): the S3 client, with the SDK core, XML protocol and checksums it brings,
 * was most of that function's cold load, for one request per bundle reload (docs/performance.md,
 * "Bundles"). The bridge and the CLI, which need the SDK's whole credential chain, use the client
 * through sdk-object-getter.ts.
 */

import { type SignedHttpOptions, signedHttpClient, xmlError } from '../aws/signed-http.js';
import { encodeS3Key } from '../aws/sigv4.js';
import type { ObjectGetter } from './sources.js';

/** S3's error codes retried whatever their status, as the SDK retries them. */
const S3_RETRYABLE = new Set(['SlowDown', 'RequestTimeout', 'InternalError', 'ServiceUnavailable']);

export type SignedGetterOptions = Omit<SignedHttpOptions, 'service' | 'ok' | 'errorOf' | 'retryableCodes'>;

/**
 * GetObject against `endpoint` (from `parseEndpoint`). When its host is the bucket's own
 * (`<bucket>.s3…`, the regional domain name the stack passes) the object is at `/<key>`; otherwise
 * at `/<bucket>/<key>` (path style, as S3-compatible servers serve it).
 */
export function signedObjectGetter(endpoint: URL, opts: SignedGetterOptions): ObjectGetter {
  const client = signedHttpClient(endpoint, {
    ...opts,
    service: 's3',
    ok: (status) => status === 200 || status === 304,
    errorOf: xmlError,
    retryableCodes: S3_RETRYABLE,
  });
  return {
    async getObject(bucket, key, ifNoneMatch) {
      const virtualHosted =
        client.hostname.startsWith(`${bucket}.s3.`) || client.hostname.startsWith(`${bucket}.s3-`);
      const path = `${virtualHosted ? '' : `/${encodeS3Key(bucket)}`}/${encodeS3Key(key)}`;
      const headers = ifNoneMatch === undefined ? {} : { 'if-none-match': ifNoneMatch };
      const a = await client.send({ method: 'GET', path, headers });
      if (a.status === 304) return { notModified: true };
      const etag = a.headers.etag;
      const bytes = new Uint8Array(a.body.buffer, a.body.byteOffset, a.body.length);
      return { notModified: false, etag: typeof etag === 'string' ? etag : undefined, bytes };
    },
    destroy: () => client.destroy(),
  };
}

/** A reader that refuses every GET, saying what is missing: the engine stays degraded and denies. */
export function unconfiguredGetter(detail: string): ObjectGetter {
  return {
    getObject: async () => {
      throw new UnconfiguredReaderError(detail);
    },
    destroy: () => {},
  };
}

/** The reader's configuration is missing or wrong (an endpoint, a region, credentials). */
export class UnconfiguredReaderError extends Error {
  override readonly name = 'UnconfiguredReaderError';
}
