/**
 * The shared EKS budget as the provider's `beforeAttempt` hook: per process, one pool of claimed
 * slots per (account, region). A request takes the next slot in time order, sleeps until it and goes
 * out only within the slot's use window (core/rate-slots.ts proves why that bounds every 1-second
 * window); a slot whose window passed is forfeited. An empty pool claims a new batch, one claim in
 * flight per key, which every waiter shares.
 */
import { type ClaimSettings, forfeited, USE_WINDOW_MS } from '../core/rate-slots.js';

/** Claims k slots of one (account, region)'s budget; throws EksBudgetExhausted past the horizon. */
export type SlotClaim = (account: string, region: string, k: number, horizonMs: number) => Promise<number[]>;

export interface SlotPoolOptions extends ClaimSettings {
  readonly claim: SlotClaim;
  readonly useWindowMs?: number;
  readonly clock?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
  /** Time spent waiting for slots since the last report, once per claim (one metric line per write). */
  readonly onWait?: (account: string, region: string, seconds: number) => void;
  /**
   * Whether a claim's error is a refusal (the queue is past the horizon). A refusal is handed to
   * every take for a while (a quarter of the horizon, at most a second) without claiming again:
   * the queue cannot have shrunk much sooner, and each refused claim costs two writes.
   */
  readonly isRefusal?: (err: unknown) => boolean;
}

/** How long a refusal is remembered. */
export function refusalHoldMs(horizonMs: number): number {
  return Math.min(1000, horizonMs / 4);
}

class Pool {
  private slots: number[] = [];
  private inFlight: Promise<void> | undefined;
  private waitedMs = 0;
  private refused: { readonly err: unknown; readonly until: number } | undefined;

  constructor(
    private readonly account: string,
    private readonly region: string,
    private readonly o: Required<Omit<SlotPoolOptions, 'onWait' | 'isRefusal'>> &
      Pick<SlotPoolOptions, 'onWait' | 'isRefusal'>,
  ) {}

  /** Resolves when a request may go out: now is within the use window of a slot this caller owns. */
  async take(): Promise<void> {
    const started = this.o.clock();
    for (;;) {
      const slot = this.slots.shift();
      if (slot === undefined) {
        await this.refill();
        continue;
      }
      let now = this.o.clock();
      if (forfeited(slot, now, this.o.useWindowMs)) continue;
      // Until the clock reaches the slot: a timer may wake a millisecond before Date.now() does, and a
      // request before its slot would break the per-second bound the slots prove.
      while (now < slot) {
        await this.o.sleep(slot - now);
        now = this.o.clock();
      }
      // Checked again right before the attempt: a late wake-up forfeits the slot instead of using it.
      if (forfeited(slot, this.o.clock(), this.o.useWindowMs)) continue;
      this.waitedMs += this.o.clock() - started;
      return;
    }
  }

  /** One claim per key at a time: concurrent waiters share the one in flight. */
  private refill(): Promise<void> {
    if (this.refused && this.o.clock() < this.refused.until) return Promise.reject(this.refused.err);
    if (!this.inFlight) {
      const waited = this.waitedMs;
      this.waitedMs = 0;
      if (waited > 0) this.o.onWait?.(this.account, this.region, waited / 1000);
      this.inFlight = this.o
        .claim(this.account, this.region, this.o.claimSize, this.o.horizonMs)
        .then(
          (got) => {
            this.slots = [...this.slots, ...got].sort((a, b) => a - b);
          },
          (err: unknown) => {
            if (this.o.isRefusal?.(err))
              this.refused = { err, until: this.o.clock() + refusalHoldMs(this.o.horizonMs) };
            throw err;
          },
        )
        .finally(() => {
          this.inFlight = undefined;
        });
    }
    return this.inFlight;
  }
}

/** The `beforeAttempt` hook: a pool per (account, region), created on first use. */
export function slotPools(opts: SlotPoolOptions): (region: string, account: string) => Promise<void> {
  const full = {
    useWindowMs: USE_WINDOW_MS,
    clock: Date.now,
    sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
    ...opts,
  };
  const pools = new Map<string, Pool>();
  return (region, account) => {
    const key = `${account}#${region}`;
    let pool = pools.get(key);
    if (!pool) {
      pool = new Pool(account, region, full);
      pools.set(key, pool);
    }
    return pool.take();
  };
}
