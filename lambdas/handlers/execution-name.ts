/**
 * Execution names. Standard workflows refuse a second execution with the same name, so a name derived
 * from (record, generation, trigger[, time bucket]) absorbs duplicate triggers: two stream records
 * for one spec change start one execution. Names: 1-80 of [A-Za-z0-9_-].
 */
import { shortHash } from '../core/plan/tokens.js';
import type { Trigger } from './contracts.js';

export function executionName(
  id: string,
  generation: number,
  trigger: Trigger | 'delete',
  bucket?: string,
  /**
   * The record's `createdAt`: a record deleted and applied again starts at generation 1 again, and
   * Step Functions keeps names for 90 days, so without it the new record's first run would be
   * absorbed as a duplicate of the old one's.
   */
  incarnation = '',
): string {
  const slug = id.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 40);
  const hash = shortHash(incarnation ? [id, incarnation] : [id], 8);
  const parts = [slug, hash, `g${generation}`, trigger, ...(bucket ? [bucket] : [])];
  return parts.join('-').slice(0, 80);
}

/** A time bucket, so that a periodic trigger can start again in the next period but not twice in one. */
export function timeBucket(at: Date, periodSeconds: number): string {
  return String(Math.floor(at.getTime() / 1000 / periodSeconds));
}
