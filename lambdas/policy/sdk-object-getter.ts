/**
 * GetObject through the SDK's S3 client, for the bridge and the CLI: they read the bundle with the
 * SDK's whole credential chain (pod identity, profiles, SSO). The policy function signs its GET
 * itself (signed-get.ts) and never loads this module.
 */
import { GetObjectCommand, type GetObjectCommandOutput, type S3Client } from '@aws-sdk/client-s3';
import { BundleSourceError } from './errors.js';
import type { ObjectGetter } from './sources.js';

/** The one call used; an `S3Client` satisfies it. */
export interface S3ObjectClient {
  send(command: GetObjectCommand): Promise<GetObjectCommandOutput>;
  destroy(): void;
}

function notModified(e: unknown): boolean {
  const err = e as { name?: unknown; $metadata?: { httpStatusCode?: unknown } } | null;
  return err?.$metadata?.httpStatusCode === 304 || err?.name === 'NotModified';
}

export function sdkObjectGetter(client: S3ObjectClient | S3Client): ObjectGetter {
  return {
    async getObject(bucket, key, ifNoneMatch) {
      let out: GetObjectCommandOutput;
      try {
        out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key, IfNoneMatch: ifNoneMatch }));
      } catch (e) {
        if (notModified(e)) return { notModified: true };
        throw e;
      }
      if (!out.Body) throw new BundleSourceError(`s3://${bucket}/${key}: GetObject returned no body`);
      return { notModified: false, etag: out.ETag, bytes: await out.Body.transformToByteArray() };
    },
    destroy: () => client.destroy(),
  };
}
