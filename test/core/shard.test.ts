/** Sweep shards, pure: the key of a record, grouping, runs, the cursor's order and the cadence. */
import { describe, expect, it } from 'vitest';
import {
  cadenceOf,
  fromCursor,
  groupShards,
  NO_REGION,
  OWN_ACCOUNT,
  runsOf,
  type Shard,
  shardBytes,
  shardItemId,
  shardKeyOf,
  windowMs,
} from '../../lambdas/core/shard.js';

const rec = (id: string, region?: unknown, accountId?: unknown) => ({
  id,
  spec: { ...(region !== undefined ? { region } : {}), ...(accountId !== undefined ? { accountId } : {}) },
});

describe('shard key', () => {
  it('is the target account (the own one when absent) and the region', () => {
    expect(shardKeyOf(rec('a/x', 'eu-west-1', '111111111111'), '999999999999')).toEqual({
      accountId: '111111111111',
      region: 'eu-west-1',
    });
    expect(shardKeyOf(rec('a/x', 'eu-west-1'), '999999999999')).toEqual({
      accountId: '999999999999',
      region: 'eu-west-1',
    });
    expect(shardKeyOf(rec('a/x', 'eu-west-1'))).toEqual({ accountId: OWN_ACCOUNT, region: 'eu-west-1' });
  });

  it('still shards a record whose stored spec names no region or a malformed one', () => {
    expect(shardKeyOf(rec('a/x'))).toEqual({ accountId: OWN_ACCOUNT, region: NO_REGION });
    expect(shardKeyOf(rec('a/x', 42, ['not', 'an', 'id']))).toEqual({
      accountId: OWN_ACCOUNT,
      region: NO_REGION,
    });
  });

  it('names the coordination item under shard#', () => {
    expect(shardItemId({ accountId: '111111111111', region: 'us-east-1' })).toBe(
      'shard#111111111111#us-east-1',
    );
  });
});

describe('grouping', () => {
  it('puts clusters of two accounts or two regions in two shards, sorted, ids sorted', () => {
    const shards = groupShards(
      [
        rec('t/c', 'us-east-1', '222222222222'),
        rec('t/b', 'us-east-1'),
        rec('t/a', 'us-east-1'),
        rec('t/d', 'eu-west-1'),
      ],
      '111111111111',
    );
    expect(shards).toEqual([
      { accountId: '111111111111', region: 'eu-west-1', ids: ['t/d'] },
      { accountId: '111111111111', region: 'us-east-1', ids: ['t/a', 't/b'] },
      { accountId: '222222222222', region: 'us-east-1', ids: ['t/c'] },
    ]);
  });

  it('runs hold at most shardsPerRun shards and stay under the payload bound; a shard is never split', () => {
    const shard = (n: number, ids = 1): Shard => ({
      accountId: '111111111111',
      region: `r-${n}`,
      ids: Array.from({ length: ids }, (_, i) => `ns/c-${n}-${i}`),
    });
    const nine = Array.from({ length: 9 }, (_, i) => shard(i));
    const byCount = runsOf(nine, 4, 1_000_000);
    expect(byCount.runs.map((r) => r.length)).toEqual([4, 4, 1]);
    expect(byCount.runs.flat()).toEqual(nine);
    const big = shard(100, 50);
    const bySize = runsOf([shard(1), big, shard(2)], 8, shardBytes(big) + 10);
    expect(bySize.runs.map((r) => r.map((s) => s.region))).toEqual([['r-1'], ['r-100'], ['r-2']]);
    const tooBig = runsOf([shard(1), big], 8, shardBytes(big) - 1);
    expect(tooBig.oversized).toEqual([big]);
    expect(tooBig.runs).toEqual([[shard(1)]]);
  });
});

describe('cursor order', () => {
  const ids = ['n/a', 'n/b', 'n/c', 'n/d'];
  it('continues after the last id checked, then wraps', () => {
    expect(fromCursor(ids)).toEqual(ids);
    expect(fromCursor(ids, 'n/b')).toEqual(['n/c', 'n/d', 'n/a', 'n/b']);
    expect(fromCursor(ids, 'n/d')).toEqual(ids);
  });
  it('a cursor whose cluster is gone still continues where it would sort', () => {
    expect(fromCursor(ids, 'n/bb')).toEqual(['n/c', 'n/d', 'n/a', 'n/b']);
    expect(fromCursor(['n/c', 'n/a', 'n/b'], 'n/0')).toEqual(['n/a', 'n/b', 'n/c']);
  });
});

describe('cadence', () => {
  it('is the period when a shard checks everything, longer in proportion when it cannot', () => {
    expect(cadenceOf(10, 10, 300)).toEqual({ complete: true, effectiveSeconds: 300 });
    expect(cadenceOf(0, 0, 300)).toEqual({ complete: true, effectiveSeconds: 300 });
    expect(cadenceOf(1000, 400, 300)).toEqual({ complete: false, effectiveSeconds: 750 });
    expect(cadenceOf(10, 0, 300)).toEqual({ complete: false });
  });
  it('the window leaves a tenth of the period, at most 30 s', () => {
    expect(windowMs(300)).toBe(270_000);
    expect(windowMs(900)).toBe(870_000);
    expect(windowMs(1)).toBe(900);
  });
});
