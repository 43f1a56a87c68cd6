/**
 * How a reader sees a lease: free, expired, implausible (expiring further ahead than any lease this
 * store writes: forged or corrupt, so it counts as free) or live. One definition for the store's
 * acquire condition (LEASE_FREE in lease-writes.ts states the same rule as a DynamoDB condition),
 * the sweep, `cloudorch reconcile` and `cloudorch describe`.
 */
import { MAX_APPROVAL_TIMEOUT_SECONDS } from '../core/status-approval.js';
import type { Lease } from './types.js';

/** Clock skew tolerated between writers before a lease's expiry counts as implausible. */
const LEASE_CLOCK_SLACK_MS = 60_000;

export type LeaseView = 'free' | 'expired' | 'implausible' | 'live';

/**
 * `awaiting`: the record holds a pending approval, whose execution stretched its lease over the
 * wait (up to MAX_APPROVAL_TIMEOUT_SECONDS further).
 */
export function leaseView(lease: Lease | undefined, now: Date, ttlMs: number, awaiting = false): LeaseView {
  if (!lease) return 'free';
  if (isPastExpiry(lease.expiresAt, now)) return 'expired';
  if (lease.expiresAt > latestPlausibleExpiry(now, ttlMs, awaiting)) return 'implausible';
  return 'live';
}

/**
 * A lease holds through its `expiresAt` millisecond and is expired only after it (the acquire
 * condition's `#expiresAt < :now`): at the boundary the holder keeps it rather than two executions
 * both believing they hold it.
 */
function isPastExpiry(expiresAt: number, now: Date): boolean {
  return expiresAt < now.getTime();
}

export function latestPlausibleExpiry(now: Date, ttlMs: number, awaiting = false): number {
  const wait = awaiting ? MAX_APPROVAL_TIMEOUT_SECONDS * 1000 : 0;
  return now.getTime() + ttlMs + wait + LEASE_CLOCK_SLACK_MS;
}
