/**
 * Target claims: a cluster target (account, region, clusterName) belongs to exactly one record. The
 * claim is an item of its own in the table, key `claim#<account>#<region>#<clusterName>`, written
 * with a conditional put, so two concurrent applies naming one target cannot both win. Record ids
 * (`<namespace>/<name>`) never contain `#`, so claim keys and record keys cannot collide.
 */
import { DEFAULT_ACCOUNT, type Target } from '../core/target.js';

export { describeTarget, type Target } from '../core/target.js';

const PREFIX = 'claim#';

export function claimId(t: Target): string {
  return `${PREFIX}${t.accountId ?? DEFAULT_ACCOUNT}#${t.region}#${t.clusterName}`;
}

export function isClaimId(id: string): boolean {
  return id.startsWith(PREFIX);
}

/** The claim item's attributes besides `id`. */
export interface ClaimItem {
  readonly id: string;
  /** The record id holding the target. */
  readonly holder: string;
  readonly claimedAt: string;
}
