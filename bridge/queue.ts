/**
 * A keyed work queue: a key is queued at most once, processed by one worker at a time, and a key
 * whose work failed comes back after an exponential, jittered delay. Keys are never dropped: the
 * mirror is level-triggered, so the next attempt reads the current state and does what is left.
 */
import { describeError } from './api-errors.js';
import { type BackoffOptions, backoffDelay } from './retry.js';

export interface QueueOptions {
  readonly work: (key: string) => Promise<void>;
  readonly backoff?: BackoffOptions;
  readonly concurrency?: number;
  readonly log?: (msg: string) => void;
}

export class WorkQueue {
  private readonly queued = new Set<string>();
  private readonly busy = new Set<string>();
  /** Keys that changed while being processed: they run again right after. */
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private running = false;
  private stopped = false;
  private active = 0;
  private readonly backoff: BackoffOptions;

  constructor(private readonly opts: QueueOptions) {
    this.backoff = opts.backoff ?? { attempts: Number.POSITIVE_INFINITY, baseMs: 200, capMs: 30_000 };
  }

  add(key: string): void {
    if (this.busy.has(key)) {
      this.dirty.add(key);
      return;
    }
    this.queued.add(key);
    this.pump();
  }

  /** Starts (or resumes) processing; keys added while stopped wait. */
  start(): void {
    this.running = true;
    this.pump();
  }

  /** Stops taking new work; work in progress finishes. */
  pause(): void {
    this.running = false;
  }

  /**
   * Stops for good: no new work, no retries, and resolves once the work in progress has finished
   * (bounded), so callers can close the clients that work uses without racing it.
   */
  async stop(maxWaitMs = 15_000): Promise<void> {
    this.running = false;
    this.stopped = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    const deadline = Date.now() + maxWaitMs;
    while (this.active > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  }

  /** Failed attempts of a key so far (0 after a success). */
  failureCount(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  private pump(): void {
    const limit = this.opts.concurrency ?? 2;
    while (this.running && this.active < limit) {
      const key = this.queued.values().next().value;
      if (key === undefined) break;
      this.queued.delete(key);
      this.busy.add(key);
      this.active++;
      void this.process(key);
    }
  }

  private async process(key: string): Promise<void> {
    try {
      await this.opts.work(key);
      this.failures.delete(key);
    } catch (err) {
      const n = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, n);
      const delay = backoffDelay(Math.min(n, 12), this.backoff) + 20;
      this.opts.log?.(`${key}: ${describeError(err)}; retry ${n} in ${delay} ms`);
      clearTimeout(this.timers.get(key));
      if (this.stopped) return;
      this.timers.set(
        key,
        setTimeout(() => {
          this.timers.delete(key);
          this.add(key);
        }, delay),
      );
    } finally {
      this.busy.delete(key);
      this.active--;
      if (this.dirty.delete(key)) this.queued.add(key);
      this.pump();
    }
  }
}
