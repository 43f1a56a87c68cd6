/**
 * DynamoDB Streams for local mode. dynalite has no streams, yet the on-change Lambda consumes stream
 * records; this feed turns every write it is told about (by the client tap in write-tap.ts) into the
 * record a Lambda event would carry for a NEW_AND_OLD_IMAGES stream, and delivers it to subscribers
 * in the order the writes' responses arrive (not necessarily commit order, which streams keep). The shape is checked against DynamoDB Local's real stream in
 * test/store/stream-shape.test.ts.
 */
import { randomUUID } from 'node:crypto';
import type { AttributeValue as SdkAttributeValue } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import { InternalError } from '../../lambdas/core/errors.js';
import type { StoredItem } from '../../lambdas/store/record.js';
import { itemSizeBytes } from './item-size.js';

/** One successful write: the item exactly as it was before and after it (document form). */
export interface ItemChange {
  readonly keys: { readonly id: string };
  /** Absent for a create. */
  readonly oldImage?: StoredItem;
  /** Absent for a delete. */
  readonly newImage?: StoredItem;
}

export type ChangeListener = (record: DynamoDBRecord) => void | Promise<void>;
export type Unsubscribe = () => void;

export interface ChangeFeedOptions {
  readonly tableName: string;
  readonly region: string;
  /** The ARN Lambda puts on each record; defaults to a local-looking one for the table. */
  readonly streamArn?: string;
  /** Epoch milliseconds, for ApproximateCreationDateTime. */
  readonly clock?: () => number;
}

interface Subscriber {
  readonly listener: ChangeListener;
  readonly onError: (err: unknown, record: DynamoDBRecord) => void;
  /** Deliveries are chained so a subscriber sees records one at a time, in order. */
  tail: Promise<void>;
}

export class ChangeFeed {
  readonly tableName: string;
  private readonly subscribers = new Set<Subscriber>();
  private readonly region: string;
  private readonly streamArn: string;
  private readonly clock: () => number;
  private sequence = 0n;

  constructor(opts: ChangeFeedOptions) {
    this.tableName = opts.tableName;
    this.region = opts.region;
    this.streamArn =
      opts.streamArn ?? `arn:aws:dynamodb:${opts.region}:000000000000:table/${opts.tableName}/stream/local`;
    this.clock = opts.clock ?? Date.now;
  }

  /**
   * Listener failures go to `onError` and delivery goes on with the next record: unlike a Lambda
   * event source mapping, the feed does not retry.
   */
  subscribe(listener: ChangeListener, onError: (err: unknown, record: DynamoDBRecord) => void): Unsubscribe {
    const sub: Subscriber = { listener, onError, tail: Promise.resolve() };
    this.subscribers.add(sub);
    return () => this.subscribers.delete(sub);
  }

  /** Resolves once every record emitted so far was handed to every subscriber. */
  async drain(): Promise<void> {
    await Promise.all([...this.subscribers].map((s) => s.tail));
  }

  /** Told about each write after it succeeded, in the order the responses arrive. */
  onWrite(change: ItemChange): void {
    const record = this.toRecord(change);
    if (!record) return;
    for (const sub of this.subscribers) {
      sub.tail = sub.tail.then(async () => {
        try {
          await sub.listener(record);
        } catch (err) {
          sub.onError(err, record);
        }
      });
    }
  }

  /** The stream record for one write; undefined when the write changed nothing (Streams skip those). */
  toRecord(change: ItemChange): DynamoDBRecord | undefined {
    const oldImage = change.oldImage ? toImage(change.oldImage) : undefined;
    const newImage = change.newImage ? toImage(change.newImage) : undefined;
    if (!oldImage && !newImage) return undefined;
    if (oldImage && newImage && sameImage(oldImage, newImage)) return undefined;
    const keys = toImage(change.keys);
    this.sequence += 1n;
    return {
      eventID: randomUUID().replaceAll('-', ''),
      eventName: !oldImage ? 'INSERT' : !newImage ? 'REMOVE' : 'MODIFY',
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: this.region,
      eventSourceARN: this.streamArn,
      dynamodb: {
        // Lambda delivers whole seconds since the epoch.
        ApproximateCreationDateTime: Math.floor(this.clock() / 1000),
        Keys: keys,
        ...(newImage ? { NewImage: newImage } : {}),
        ...(oldImage ? { OldImage: oldImage } : {}),
        // Real sequence numbers are decimal strings that grow per shard; 21 digits like theirs.
        SequenceNumber: this.sequence.toString().padStart(21, '0'),
        SizeBytes: itemSizeBytes(keys) + itemSizeBytes(newImage) + itemSizeBytes(oldImage),
        StreamViewType: 'NEW_AND_OLD_IMAGES',
      },
    };
  }
}

type Image = Record<string, AttributeValue>;

function toImage(item: StoredItem): Image {
  const out: Image = {};
  for (const [k, v] of Object.entries(marshall(item, { removeUndefinedValues: true }))) out[k] = toLambda(v);
  return out;
}

/** The SDK's AttributeValue has binary as bytes; the Lambda event carries base64 strings. */
function toLambda(v: SdkAttributeValue): AttributeValue {
  if (v.S !== undefined) return { S: v.S };
  if (v.N !== undefined) return { N: v.N };
  if (v.BOOL !== undefined) return { BOOL: v.BOOL };
  if (v.NULL !== undefined) return { NULL: v.NULL };
  if (v.SS !== undefined) return { SS: v.SS };
  if (v.NS !== undefined) return { NS: v.NS };
  if (v.B !== undefined) return { B: Buffer.from(v.B).toString('base64') };
  if (v.BS !== undefined) return { BS: v.BS.map((b) => Buffer.from(b).toString('base64')) };
  if (v.L !== undefined) return { L: v.L.map(toLambda) };
  if (v.M !== undefined) {
    const m: Image = {};
    for (const [k, inner] of Object.entries(v.M)) m[k] = toLambda(inner);
    return { M: m };
  }
  // The SDK's marshaller produces only the members above.
  throw new InternalError(`unsupported attribute value: ${JSON.stringify(v)}`);
}

/** Map order does not matter to DynamoDB; list order does. */
function sameImage(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every(
    (k) =>
      Object.hasOwn(b, k) && sameImage((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
  );
}
