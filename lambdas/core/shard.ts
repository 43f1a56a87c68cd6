/**
 * Sweep shards, pure. A shard is one (account, region): EKS rates and quotas are per account and
 * region, so a shard's clusters share one budget and one run at a time checks them. The dispatcher
 * groups records into shards and shards into runs; a run orders each shard's ids from where the last
 * run stopped (its cursor), and the cadence arithmetic says how often a cluster is really checked
 * when a shard cannot check all of its clusters in one window.
 */

/** The account of a shard whose records name none and whose stack's own id is unknown. */
export const OWN_ACCOUNT = 'own';
/**
 * The region of a record whose stored spec names none (it parses as a record but fails validation):
 * it still needs its decision (a pending deletion, a stale status), which makes no EKS call.
 */
export const NO_REGION = 'none';

export interface ShardKey {
  readonly accountId: string;
  readonly region: string;
  /**
   * The scan segment (`i/n`) when the sweep is segmented: each segment sees a part of an (account,
   * region)'s clusters, so each part has its own lease and cursor. Absent with one segment.
   */
  readonly segment?: string;
}

export interface Shard extends ShardKey {
  /** Record ids, sorted: the order a cursor refers to. */
  readonly ids: readonly string[];
}

/** What the shard key reads of a record: its stored spec, unvalidated (a malformed spec still has a shard). */
export interface Sharded {
  readonly id: string;
  readonly spec: { readonly accountId?: unknown; readonly region?: unknown };
}

const named = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The shard of a record: its target account (the stack's own when it names none) and region. */
export function shardKeyOf(r: Sharded, ownAccountId?: string): ShardKey {
  return {
    accountId: named(r.spec.accountId) ?? ownAccountId ?? OWN_ACCOUNT,
    region: named(r.spec.region) ?? NO_REGION,
  };
}

/** Key prefix of the shard items in the coordination table (the IAM grant matches `shard#*`). */
export const SHARD_KEY_PREFIX = 'shard#';

/** The shard's item id in the coordination table. */
export function shardItemId(k: ShardKey): string {
  return `${SHARD_KEY_PREFIX}${k.accountId}#${k.region}${k.segment ? `#${k.segment}` : ''}`;
}

/** The shards of one scan segment of `total` (a segment of one sweep keeps the plain keys). */
export function inSegment(shards: readonly Shard[], segment: number, total: number): Shard[] {
  return total > 1 ? shards.map((s) => ({ ...s, segment: `${segment}/${total}` })) : [...shards];
}

/** Records grouped by shard, shards and ids sorted so every dispatch sees the same order. */
export function groupShards(records: readonly Sharded[], ownAccountId?: string): Shard[] {
  const byKey = new Map<string, { key: ShardKey; ids: string[] }>();
  for (const r of records) {
    const key = shardKeyOf(r, ownAccountId);
    const item = shardItemId(key);
    const group = byKey.get(item) ?? { key, ids: [] };
    group.ids.push(r.id);
    byKey.set(item, group);
  }
  return [...byKey.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, g]) => ({ ...g.key, ids: [...g.ids].sort() }));
}

/** Bytes a shard adds to a run's JSON payload (ids, keys and punctuation; an upper bound). */
export function shardBytes(s: Shard): number {
  return s.accountId.length + s.region.length + 48 + s.ids.reduce((n, id) => n + id.length + 3, 0);
}

/**
 * Shards in runs of at most `perRun` shards and `maxBytes` of payload. One shard is never split
 * (its lease covers all of its clusters); one larger than `maxBytes` alone is returned apart.
 */
export function runsOf(
  shards: readonly Shard[],
  perRun: number,
  maxBytes: number,
): { runs: Shard[][]; oversized: Shard[] } {
  const runs: Shard[][] = [];
  const oversized: Shard[] = [];
  let run: Shard[] = [];
  let bytes = 0;
  for (const s of shards) {
    const b = shardBytes(s);
    if (b > maxBytes) {
      oversized.push(s);
      continue;
    }
    if (run.length >= Math.max(1, perRun) || bytes + b > maxBytes) {
      runs.push(run);
      run = [];
      bytes = 0;
    }
    run.push(s);
    bytes += b;
  }
  if (run.length > 0) runs.push(run);
  return { runs, oversized };
}

/**
 * A shard's ids in the order this run checks them: those after the cursor (the last id the previous
 * run checked) first, then from the start. Without a cursor, or one no longer present, the ids after
 * where it would sort still come first, so a removed cluster does not send the run back to the start.
 */
export function fromCursor(ids: readonly string[], cursor?: string): string[] {
  const sorted = [...ids].sort();
  if (cursor === undefined) return sorted;
  const at = sorted.findIndex((id) => id > cursor);
  return at <= 0 ? sorted : [...sorted.slice(at), ...sorted.slice(0, at)];
}

export interface Cadence {
  /** Every cluster was checked within the window. */
  readonly complete: boolean;
  /**
   * Seconds between two checks of one cluster at the rate this run achieved: the period when
   * complete; `period * clusters / checked` when not (each run continues from its cursor); undefined
   * when nothing was checked (no rate to speak of).
   */
  readonly effectiveSeconds?: number;
}

export function cadenceOf(clusters: number, checked: number, periodSeconds: number): Cadence {
  if (checked >= clusters) return { complete: true, effectiveSeconds: periodSeconds };
  if (checked <= 0) return { complete: false };
  return { complete: false, effectiveSeconds: (periodSeconds * clusters) / checked };
}

/**
 * The window a shard run checks in: the period less a margin for the checks in flight when it
 * closes, the cursor write and the lease release (a tenth of the period, at most 30 s).
 */
export function windowMs(periodSeconds: number): number {
  const periodMs = periodSeconds * 1000;
  return periodMs - Math.min(periodMs / 10, 30_000);
}
