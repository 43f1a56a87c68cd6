/**
 * on-change cancels an approval wait that a change made stale: a new generation, or a deletion
 * requested. The wait's token is read from the stream record's new image.
 */
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, type Deps, setDeps } from '../../../lambdas/handlers/deps.js';
import { changeOf, onChange, staleWait } from '../../../lambdas/handlers/triggers/on-change.js';

const base = { id: 'team/a', createdAt: '2026-11-30T00:00:00Z', generation: 2, specHash: 'h2' };
const waitFor = (generation: number) => ({ token: 'tok-1', generation });

function rec(prev: Record<string, unknown>, next: Record<string, unknown>): DynamoDBRecord {
  return {
    eventName: 'MODIFY',
    dynamodb: {
      OldImage: marshall(prev) as NonNullable<DynamoDBRecord['dynamodb']>['OldImage'],
      NewImage: marshall(next) as NonNullable<DynamoDBRecord['dynamodb']>['NewImage'],
    },
  };
}

const cases = [
  {
    why: 'a new generation while generation 2 waits',
    r: rec(
      { ...base, approval: waitFor(2) },
      { ...base, generation: 3, specHash: 'h3', approval: waitFor(2) },
    ),
    cause: 'the spec changed to generation 3',
  },
  {
    why: 'deletion requested while generation 2 waits',
    r: rec({ ...base, approval: waitFor(2) }, { ...base, deletionRequestedAt: 'now', approval: waitFor(2) }),
    cause: 'deletion was requested (the wait was for generation 2)',
  },
  { why: 'a new generation with nothing waiting', r: rec(base, { ...base, generation: 3, specHash: 'h3' }) },
];

describe('on-change: stale approval waits', () => {
  afterEach(() => setDeps(undefined));

  it.each(cases)('$why', ({ r, cause }) => {
    const c = changeOf(r);
    expect(c).toBeDefined();
    expect(staleWait(r, c!)).toEqual(cause ? { token: 'tok-1', cause } : undefined);
  });

  it('a status-only write (the wait itself being stored) cancels nothing and starts nothing', () => {
    expect(changeOf(rec(base, { ...base, approval: waitFor(2) }))).toBeUndefined();
  });

  it('sends ApprovalCancelled with the cause, then starts the reconcile; a wait already over is fine', async () => {
    const failed: unknown[] = [];
    const started: string[] = [];
    setDeps({
      now: () => new Date(),
      config: DEFAULT_CONFIG,
      executions: {
        start: async (name: string) => {
          started.push(name);
          return { started: true };
        },
      },
      callbacks: {
        fail: async (...args: unknown[]) => {
          failed.push(args);
          return { open: false };
        },
      },
    } as unknown as Deps);
    const out = await onChange({ Records: [cases[0]!.r] });
    expect(failed).toEqual([['tok-1', 'ApprovalCancelled', 'the spec changed to generation 3']]);
    expect(out).toEqual({ started: 1, absorbed: 0, ignored: 0 });
    expect(started).toHaveLength(1);
  });
});
