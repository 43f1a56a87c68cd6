/** Delivery rules of the local change feed; its record shape is proven in stream-shape.test.ts. */
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { ChangeFeed } from '../../local/store/change-feed.js';

const keys = { id: 'ns/a' };
const v1 = { id: 'ns/a', n: 1 };
const v2 = { id: 'ns/a', n: 2 };

function feed() {
  return new ChangeFeed({ tableName: 'records', region: 'eu-west-1', clock: () => 1_700_000_000_999 });
}

describe('ChangeFeed', () => {
  it('names the event by which images exist and skips writes that changed nothing', () => {
    const f = feed();
    expect(f.toRecord({ keys, newImage: v1 })?.eventName).toBe('INSERT');
    expect(f.toRecord({ keys, oldImage: v1, newImage: v2 })?.eventName).toBe('MODIFY');
    expect(f.toRecord({ keys, oldImage: v2 })?.eventName).toBe('REMOVE');
    expect(f.toRecord({ keys, oldImage: v2, newImage: { n: 2, id: 'ns/a' } })).toBeUndefined();
  });

  it('carries what a Lambda event carries: region, stream ARN and whole-second timestamps', () => {
    const record = feed().toRecord({ keys, newImage: v1 });
    expect(record).toMatchObject({
      eventSource: 'aws:dynamodb',
      awsRegion: 'eu-west-1',
      eventSourceARN: 'arn:aws:dynamodb:eu-west-1:000000000000:table/records/stream/local',
      dynamodb: {
        ApproximateCreationDateTime: 1_700_000_000,
        Keys: { id: { S: 'ns/a' } },
        NewImage: { id: { S: 'ns/a' }, n: { N: '1' } },
        StreamViewType: 'NEW_AND_OLD_IMAGES',
      },
    });
    expect(record?.dynamodb).not.toHaveProperty('OldImage');
  });

  it('delivers in write order, goes on after a failing listener, and stops after unsubscribe', async () => {
    const f = feed();
    const seen: string[] = [];
    const errors: string[] = [];
    const stop = f.subscribe(
      async (r: DynamoDBRecord) => {
        await Promise.resolve();
        seen.push(r.eventName ?? '');
        if (r.eventName === 'INSERT') throw new Error('listener failed');
      },
      (err, r) => errors.push(`${r.eventName}: ${(err as Error).message}`),
    );
    f.onWrite({ keys, newImage: v1 });
    f.onWrite({ keys, oldImage: v1, newImage: v2 });
    await f.drain();
    stop();
    f.onWrite({ keys, oldImage: v2 });
    await f.drain();
    expect(seen).toEqual(['INSERT', 'MODIFY']);
    expect(errors).toEqual(['INSERT: listener failed']);
  });
});
