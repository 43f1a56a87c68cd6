/**
 * Where the engine gets its bundle: a file in local mode, an S3 object in AWS. A source only fetches
 * and says whether the bundle changed; the engine decides when to ask and whether to accept it.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
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

/** What a conditional GetObject answers: 304 (the version is current) or the object. */
export type ObjectResult =
  | { readonly notModified: true }
  | { readonly notModified: false; readonly etag: string | undefined; readonly bytes: Uint8Array };

/**
 * The one S3 call this source makes: GetObject, with `If-None-Match` when a version is given. The
 * policy function signs it itself (signed-get.ts); the bridge and the CLI go through the SDK's client
 * (sdk-object-getter.ts), for its whole credential chain.
 */
export interface ObjectGetter {
  getObject(bucket: string, key: string, ifNoneMatch: string | undefined): Promise<ObjectResult>;
  /** Closes its connections. */
  destroy(): void;
}

/**
 * An S3 object, versioned by its ETag. A conditional GET (`If-None-Match`) makes an unchanged
 * bundle a cheap 304 instead of a download.
 */
export class S3BundleSource implements BundleSource {
  readonly description: string;
  constructor(
    private readonly getter: ObjectGetter,
    private readonly bucket: string,
    private readonly key: string,
  ) {
    this.description = `s3://${bucket}/${key}`;
  }

  async fetch(currentVersion: string | undefined): Promise<FetchResult> {
    let out: ObjectResult;
    try {
      out = await this.getter.getObject(this.bucket, this.key, currentVersion);
    } catch (e) {
      throw new BundleSourceError(`cannot get policy bundle ${this.description}: ${message(e)}`, {
        cause: e,
      });
    }
    if (out.notModified) return { changed: false };
    if (!out.etag) throw new BundleSourceError(`${this.description} returned no ETag`);
    if (out.etag === currentVersion) return { changed: false };
    return { changed: true, bytes: out.bytes, version: out.etag };
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
