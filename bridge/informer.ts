/**
 * List-then-watch cache of CloudClusters (or, given their API, CloudRollouts). The watch resumes from the last resourceVersion it saw
 * (bookmarks included), so a dropped connection or an API server restart loses nothing; when that
 * version has been compacted (410 Gone) it lists again and reports every key, so the level-triggered
 * mirror sees the current state of each object. It never gives up: failures back off with jitter.
 */

import { describeError, formatStatus, statusFromObject } from './api-errors.js';
import {
  asCloudCluster,
  type CloudClusterApi,
  type CloudClusterObject,
  isGone,
  type WatchEventType,
} from './kube.js';
import { type BackoffOptions, backoffDelay, sleep } from './retry.js';

export const keyOf = (o: CloudClusterObject): string => `${o.metadata.namespace}/${o.metadata.name}`;

export interface InformerHealth {
  /** The first list completed. */
  readonly synced: boolean;
  /** A watch connection is open now. */
  readonly watching: boolean;
  readonly lastError?: string;
  readonly relists: number;
}

export interface InformerOptions {
  readonly api: CloudClusterApi;
  /** Called for every key whose object changed, appeared or vanished. */
  readonly onChange: (key: string) => void;
  readonly backoff?: BackoffOptions;
  /** Server-side watch timeout; the watch then resumes from the last version. Default 300. */
  readonly watchTimeoutSeconds?: number;
  readonly log?: (msg: string) => void;
}

export class CloudClusterInformer {
  private readonly cache = new Map<string, CloudClusterObject>();
  private resourceVersion = '';
  private synced = false;
  private watching = false;
  private lastError: string | undefined;
  private relists = 0;
  private stopped = false;
  private readonly abort = new AbortController();
  private current: AbortController | undefined;
  private loop: Promise<void> | undefined;
  private readonly backoff: BackoffOptions;

  constructor(private readonly opts: InformerOptions) {
    this.backoff = opts.backoff ?? { attempts: Number.POSITIVE_INFINITY, baseMs: 200, capMs: 10_000 };
  }

  get(key: string): CloudClusterObject | undefined {
    return this.cache.get(key);
  }

  keys(): string[] {
    return [...this.cache.keys()];
  }

  health(): InformerHealth {
    return {
      synced: this.synced,
      watching: this.watching,
      relists: this.relists,
      ...(this.lastError ? { lastError: this.lastError } : {}),
    };
  }

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    this.current?.abort();
    await this.loop;
  }

  private async run(): Promise<void> {
    let failures = 0;
    let needList = true;
    while (!this.stopped) {
      try {
        if (needList) await this.relist();
        needList = false;
        const started = Date.now();
        const gone = await this.watchOnce();
        if (gone) needList = true;
        // A watch that ends at once (server shutting down) must not become a tight reconnect loop.
        if (Date.now() - started > 1_000) failures = 0;
        else await sleep(backoffDelay(Math.min(++failures, 10), this.backoff) + 50, this.abort.signal);
      } catch (err) {
        if (this.stopped) break;
        if (isGone(err)) needList = true;
        this.lastError = describeError(err);
        this.opts.log?.(`${this.opts.api.plural} watch failed (${this.lastError}); retrying`);
        failures++;
        await sleep(backoffDelay(Math.min(failures, 10), this.backoff) + 50, this.abort.signal);
      }
    }
  }

  /** Replaces the cache with a fresh list and reports every key that changed or vanished. */
  private async relist(): Promise<void> {
    const list = await this.opts.api.list();
    const seen = new Set<string>();
    for (const item of list.items) {
      const key = keyOf(item);
      seen.add(key);
      this.cache.set(key, item);
      this.opts.onChange(key);
    }
    for (const key of [...this.cache.keys()]) {
      if (!seen.has(key)) {
        this.cache.delete(key);
        this.opts.onChange(key);
      }
    }
    this.resourceVersion = list.resourceVersion;
    if (this.synced) this.relists++;
    this.synced = true;
  }

  /** Resolves when the watch ends: `true` when its resourceVersion is gone and a relist is due. */
  private watchOnce(): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      let gone = false;
      const onEvent = (type: WatchEventType, raw: unknown) => {
        if (type === 'ERROR') {
          const code = typeof raw === 'object' && raw !== null ? (raw as { code?: unknown }).code : undefined;
          if (code === 410) gone = true;
          const status = statusFromObject(raw);
          this.lastError = `watch ERROR event: ${status ? formatStatus(status) : JSON.stringify(raw).slice(0, 200)}`;
          return;
        }
        const rv = (raw as { metadata?: { resourceVersion?: unknown } } | null)?.metadata?.resourceVersion;
        if (type === 'BOOKMARK') {
          if (typeof rv === 'string') this.resourceVersion = rv;
          return;
        }
        const obj = asCloudCluster(raw);
        const key = keyOf(obj);
        if (type === 'DELETED') this.cache.delete(key);
        else this.cache.set(key, obj);
        this.resourceVersion = obj.metadata.resourceVersion;
        this.opts.onChange(key);
      };
      const done = (err: unknown) => {
        this.watching = false;
        this.current = undefined;
        if (err && !this.stopped) reject(err);
        else resolve(gone);
      };
      this.opts.api
        .watch(this.resourceVersion, onEvent, done, this.opts.watchTimeoutSeconds ?? 300)
        .then((controller) => {
          this.current = controller;
          // The client reports a failed connect through `done`; only a live one counts as watching.
          if (!controller.signal.aborted) this.watching = true;
          if (this.stopped) controller.abort();
        }, reject);
    });
  }
}
