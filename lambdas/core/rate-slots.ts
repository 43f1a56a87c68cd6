/**
 * Time-slot arithmetic of the shared EKS budget: R requests per second per (account, region), for
 * every Lambda instance together. Pure: the claim (a DynamoDB write) and the waiting live elsewhere.
 *
 * A slot is an instant. Every claim takes the next k slots of one shared sequence whose consecutive
 * slots are at least `d = ceil((1000 + U) / R)` ms apart, and a request may be sent only within its
 * slot's use window `[slot, slot + U)`; a slot whose window passed is forfeited, never used late.
 *
 * Proof that no half-open 1-second window holds more than R requests, whoever claimed the slots:
 * each slot is used at most once, so R + 1 requests use R + 1 distinct slots s_i < ... < s_j of the
 * sequence, j - i >= R, hence s_j - s_i >= R*d. The first request went out before s_i + U, the last
 * at or after s_j, so they are more than R*d - U >= (1000 + U) - U = 1000 ms apart: they cannot both
 * be in [t, t + 1000). The effective rate is 1000/d (4.5/s at R = 5): the price of the use window.
 * (The instants are the instances' clocks: skew between instances eats into the bound, which is why
 * it is exact only up to clock synchronisation, a millisecond or less in Lambda.)
 */

/** How long after its slot a request may still go out. */
export const USE_WINDOW_MS = 100;

/** Milliseconds between consecutive slots for R requests per second. */
export function slotSpacingMs(perSecond: number, useWindowMs = USE_WINDOW_MS): number {
  if (!(perSecond > 0)) throw new RangeError(`a budget needs a positive rate, got ${perSecond}`);
  return Math.ceil((1000 + useWindowMs) / perSecond);
}

/** Requests per second the slots really allow (below R by the use window's share). */
export function effectiveRate(perSecond: number, useWindowMs = USE_WINDOW_MS): number {
  return 1000 / slotSpacingMs(perSecond, useWindowMs);
}

/** The `nextMs` an idle budget (no item, or `nextMs` in the past) gets from a claim of k slots. */
export function idleNextMs(nowMs: number, k: number, spacingMs: number): number {
  return nowMs + k * spacingMs;
}

/**
 * The k slots a claim got, given the budget's `nextMs` after the claim: the claim moved it forward
 * by k*d, so its slots are `next - k*d, ..., next - d`, in time order.
 */
export function claimedSlots(nextMsAfter: number, k: number, spacingMs: number): number[] {
  return Array.from({ length: k }, (_, i) => nextMsAfter - (k - i) * spacingMs);
}

/** Whether a request may go out now on this slot: not before it, not after its use window. */
export function withinWindow(slotMs: number, nowMs: number, useWindowMs = USE_WINDOW_MS): boolean {
  return nowMs >= slotMs && nowMs < slotMs + useWindowMs;
}

/** Whether the slot's use window already passed (the slot is forfeited). */
export function forfeited(slotMs: number, nowMs: number, useWindowMs = USE_WINDOW_MS): boolean {
  return nowMs >= slotMs + useWindowMs;
}

/** How a function claims: k slots per claim, and how far ahead of now the queue may reach. */
export interface ClaimSettings {
  readonly claimSize: number;
  /** A claim is refused when the budget's queue already ends this far or more ahead of now. */
  readonly horizonMs: number;
}

/**
 * Per-function claim settings. Sweeps claim about four seconds of budget at once (4R slots: one write
 * per claim of a busy budget, so a sweep writes once per 4R requests) with a short horizon, so
 * they yield to reconciles when the queue is long (the next sweep checks again); reconcile steps and
 * drift-event lookups claim a few slots (few calls each, so few slots wasted when they stop early)
 * and wait up to 30 s before failing retryably. Unknown keys (a process hosting every function)
 * claim as a reconcile step does.
 */
export function claimSettings(functionKey: string | undefined, perSecond: number): ClaimSettings {
  switch (functionKey) {
    case 'sweep':
    case 'sweepShard':
      return { claimSize: Math.max(2, Math.ceil(4 * perSecond)), horizonMs: 2_000 };
    case 'apply':
    case 'driftEvent':
      return { claimSize: 2, horizonMs: 30_000 };
    default:
      return { claimSize: 4, horizonMs: 30_000 };
  }
}

/** Key prefix of the budget items in the coordination table (the IAM grant matches `budget#*`). */
export const BUDGET_KEY_PREFIX = 'budget#';

/** The coordination table item of one (account, region)'s budget. */
export function budgetKey(account: string, region: string): string {
  return `${BUDGET_KEY_PREFIX}${account}#${region}`;
}
