/**
 * Where the engine gets its bundle: a file in local mode, an S3 object in AWS. A source only fetches
 * and says whether the bundle changed; the engine decides when to ask and whether to accept it.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { GetObjectCommand, type GetObjectCommandOutput } from '@aws-sdk/client-s3';
import { BundleSourceError } from './errors.js';

export type FetchResult =
  | { readonly changed: false }
  | { readonly changed: true; readonly bytes: Uint8Array; readonly version: string };

export interface BundleSource {
  /** For health and logs, e.g. `file:policies/build/bundle.tar.gz`. */
  readonly description: string;
  /**
   * Fetches the bundle unless it is still `currentVersion`. Throws {@link BundleSourceError} when it
   * cannot be read.
   */
  fetch(currentVersion: string | undefined): Promise<FetchResult>;
}

function message(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}

/** A bundle file; its version is a hash of the content, so a rewrite with the same bytes is no change. */
export class FileBundleSource implements BundleSource {
  readonly description: string;
  constructor(private readonly path: string) {
    this.description = `file:${path}`;
  }

  async fetch(currentVersion: string | undefined): Promise<FetchResult> {
    let bytes: Uint8Array;
    try {
      bytes = await readFile(this.path);
    } catch (cause) {
      throw new BundleSourceError(`cannot read policy bundle ${this.path}: ${message(cause)}`, { cause });
    }
    const version = `sha256:${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}`;
    return version === currentVersion ? { changed: false } : { changed: true, bytes, version };
  }
}

/** The one S3 call this source makes; an `S3Client` satisfies it. */
export interface S3ObjectGetter {
  send(command: GetObjectCommand): Promise<GetObjectCommandOutput>;
}

function notModified(e: unknown): boolean {
  const err = e as { name?: unknown; $metadata?: { httpStatusCode?: unknown } } | null;
  return err?.$metadata?.httpStatusCode === 304 || err?.name === 'NotModified';
}

/**
 * An S3 object, versioned by its ETag. A conditional GET (`If-None-Match`) makes an unchanged
 * bundle a cheap 304 instead of a download.
 */
export class S3BundleSource implements BundleSource {
  readonly description: string;
  constructor(
    private readonly client: S3ObjectGetter,
    private readonly bucket: string,
    private readonly key: string,
  ) {
    this.description = `s3://${bucket}/${key}`;
  }

  async fetch(currentVersion: string | undefined): Promise<FetchResult> {
    let out: GetObjectCommandOutput;
    try {
      out = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: this.key, IfNoneMatch: currentVersion }),
      );
    } catch (e) {
      if (notModified(e)) return { changed: false };
      throw new BundleSourceError(`cannot get policy bundle ${this.description}: ${message(e)}`, {
        cause: e,
      });
    }
    if (!out.Body || !out.ETag)
      throw new BundleSourceError(`${this.description} returned no body or no ETag`);
    if (out.ETag === currentVersion) return { changed: false };
    try {
      return { changed: true, bytes: await out.Body.transformToByteArray(), version: out.ETag };
    } catch (cause) {
      throw new BundleSourceError(`cannot read policy bundle ${this.description}: ${message(cause)}`, {
        cause,
      });
    }
  }
}

/** No bundle configured: every fetch fails, so the engine stays degraded and denies. */
export class UnconfiguredSource implements BundleSource {
  readonly description = 'unconfigured';
  constructor(private readonly hint: string) {}

  async fetch(): Promise<FetchResult> {
    throw new BundleSourceError(`no policy bundle configured: ${this.hint}`);
  }
}
