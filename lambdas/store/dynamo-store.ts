/**
 * The desired-state store on DynamoDB. Only single-item conditional writes: no transactions and no
 * streams, so dynalite (local mode) and DynamoDB behave the same. Every update returns the item as
 * it was before (ALL_OLD); the item after is computed from it, which gives the write observer both
 * stream images without a second read.
 */
import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import type { CloudClusterSpec } from '../core/spec/schema.js';
import {
  ConflictError,
  DeletionInProgressError,
  LeaseHeldError,
  LeaseLostError,
  RecordNotFoundError,
} from './errors.js';
import type { StoredItem, WriteObserver } from './observer.js';
import { specHash } from './spec-hash.js';
import {
  type ApplyResult,
  type ClusterRecord,
  type DesiredStateStore,
  HISTORY_LIMIT,
  type Intent,
  type ScanPage,
  type StatusWrite,
} from './types.js';
import { applyMutation, attributeNames, type Expression, type Mutation, updateParams } from './update.js';

export interface DynamoStoreOptions {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  /** Told about every successful write (local change feed). */
  readonly observer?: WriteObserver;
  /** Attempts of a history append racing another write by the same lease holder. Default 3. */
  readonly maxStatusAttempts?: number;
}

const OWNED_BY_ME = '#lease.#owner = :me';

export class DynamoDesiredStateStore implements DesiredStateStore {
  private readonly doc: DynamoDBDocumentClient;
  private readonly table: string;
  private readonly observer: WriteObserver | undefined;
  private readonly maxStatusAttempts: number;

  constructor(opts: DynamoStoreOptions) {
    this.doc = DynamoDBDocumentClient.from(opts.client, { marshallOptions: { removeUndefinedValues: true } });
    this.table = opts.tableName;
    this.observer = opts.observer;
    this.maxStatusAttempts = opts.maxStatusAttempts ?? 3;
  }

  async get(id: string): Promise<ClusterRecord | undefined> {
    const out = await this.doc.send(
      new GetCommand({ TableName: this.table, Key: { id }, ConsistentRead: true }),
    );
    return out.Item ? toRecord(out.Item) : undefined;
  }

  async applySpec(
    id: string,
    spec: CloudClusterSpec,
    opts: { expectedVersion?: number; now?: Date } = {},
  ): Promise<ApplyResult> {
    const hash = specHash(spec);
    const expected = opts.expectedVersion;
    const current = await this.get(id);
    if (!current) {
      // A record that does not exist has version 0: expectedVersion 0 means "create only".
      if (expected !== undefined && expected !== 0) {
        throw new ConflictError(`${id}: expected version ${expected}, but there is no record`);
      }
      const item = normalize({
        id,
        spec,
        specHash: hash,
        generation: 1,
        version: 1,
        createdAt: (opts.now ?? new Date()).toISOString(),
      });
      try {
        await this.doc.send(
          new PutCommand({
            TableName: this.table,
            Item: item,
            ConditionExpression: 'attribute_not_exists(#id)',
            ExpressionAttributeNames: { '#id': 'id' },
          }),
        );
      } catch (err) {
        if (isConditionFailure(err)) return this.afterLostSpecRace(id, hash, expected);
        throw err;
      }
      this.emit(id, undefined, item);
      return { record: toRecord(item), changed: true, created: true };
    }
    if (current.deletionRequestedAt) throw new DeletionInProgressError(`${id}: deletion was requested`);
    if (expected !== undefined && current.version !== expected) {
      throw new ConflictError(`${id}: expected version ${expected}, found ${current.version}`);
    }
    if (current.specHash === hash) return { record: current, changed: false, created: false };
    // Status writes never touch `version`, so only another spec writer can fail this condition.
    const mutation: Mutation = { set: { spec, specHash: hash }, increment: { generation: 1, version: 1 } };
    const condition = {
      expression: '#version = :read AND attribute_not_exists(#deletionRequestedAt)',
      values: { ':read': current.version },
    };
    try {
      const after = await this.update(id, mutation, condition);
      return { record: toRecord(after), changed: true, created: false };
    } catch (err) {
      if (isConditionFailure(err)) return this.afterLostSpecRace(id, hash, expected);
      throw err;
    }
  }

  /** Another spec writer got in first: fine if it wrote what we wanted and we had no expectation. */
  private async afterLostSpecRace(id: string, hash: string, expected?: number): Promise<ApplyResult> {
    const now = await this.get(id);
    if (now?.deletionRequestedAt) throw new DeletionInProgressError(`${id}: deletion was requested`);
    if (now && expected === undefined && now.specHash === hash) {
      return { record: now, changed: false, created: false };
    }
    throw new ConflictError(
      `${id}: the spec was changed concurrently (now version ${now?.version ?? 'none'})`,
    );
  }

  async requestDeletion(id: string, now: Date = new Date()): Promise<ClusterRecord> {
    // Only the first request writes, so repeated requests produce no change events.
    const mutation: Mutation = { set: { deletionRequestedAt: now.toISOString() }, increment: { version: 1 } };
    const condition = { expression: 'attribute_exists(#id) AND attribute_not_exists(#deletionRequestedAt)' };
    try {
      return toRecord(await this.update(id, mutation, condition));
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
      const current = await this.get(id);
      if (!current) throw new RecordNotFoundError(`${id}: no such record`);
      return current;
    }
  }

  async acquireLease(
    id: string,
    owner: string,
    ttlMs: number,
    now: Date = new Date(),
  ): Promise<ClusterRecord> {
    const mutation: Mutation = { set: { lease: { owner, expiresAt: now.getTime() + ttlMs } } };
    const condition = {
      expression: `attribute_exists(#id) AND (attribute_not_exists(#lease) OR #lease.#expiresAt < :now OR ${OWNED_BY_ME})`,
      values: { ':now': now.getTime(), ':me': owner },
    };
    try {
      return toRecord(await this.update(id, mutation, condition));
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
      // DynamoDB returns the item that failed the check; dynalite does not, so read it then.
      const item = conditionFailureItem(err) ?? (await this.get(id));
      if (!item) throw new RecordNotFoundError(`${id}: no such record`);
      const holder = leaseOf(item)?.owner;
      throw new LeaseHeldError(`${id}: lease held by ${holder ?? 'nobody (released meanwhile)'}`, holder);
    }
  }

  async renewLease(id: string, owner: string, ttlMs: number, now: Date = new Date()): Promise<void> {
    const mutation: Mutation = { set: { lease: { owner, expiresAt: now.getTime() + ttlMs } } };
    try {
      await this.update(id, mutation, { expression: OWNED_BY_ME, values: { ':me': owner } });
    } catch (err) {
      if (isConditionFailure(err)) throw new LeaseLostError(`${id}: lease is no longer held by ${owner}`);
      throw err;
    }
  }

  async releaseLease(id: string, owner: string): Promise<void> {
    try {
      await this.update(id, { remove: ['lease'] }, { expression: OWNED_BY_ME, values: { ':me': owner } });
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
    }
  }

  async recordIntent(id: string, owner: string, intent: Intent): Promise<void> {
    try {
      await this.update(id, { set: { intent } }, { expression: OWNED_BY_ME, values: { ':me': owner } });
    } catch (err) {
      if (isConditionFailure(err)) throw new LeaseLostError(`${id}: lease is no longer held by ${owner}`);
      throw err;
    }
  }

  async writeStatus(id: string, owner: string, write: StatusWrite): Promise<ClusterRecord> {
    const mutation = statusMutation(write);
    if (!write.history?.length) {
      try {
        return toRecord(
          await this.update(id, mutation, { expression: OWNED_BY_ME, values: { ':me': owner } }),
        );
      } catch (err) {
        if (isConditionFailure(err)) throw new LeaseLostError(`${id}: lease is no longer held by ${owner}`);
        throw err;
      }
    }
    // History is read, trimmed and written back on the condition that nobody appended meanwhile.
    for (let attempt = 1; attempt <= this.maxStatusAttempts; attempt++) {
      const current = await this.get(id);
      if (current?.lease?.owner !== owner) throw new LeaseLostError(`${id}: lease is not held by ${owner}`);
      const history = [...(current.history ?? []), ...write.history].slice(-HISTORY_LIMIT);
      // A counter, not the list itself, detects a concurrent append: dynalite cannot compare lists.
      const seen = current.historyAppended ?? 0;
      const historyAppended = seen + write.history.length;
      const unchanged =
        current.historyAppended === undefined
          ? { expression: 'attribute_not_exists(#historyAppended)' }
          : { expression: '#historyAppended = :seen', values: { ':seen': seen } };
      try {
        const after = await this.update(
          id,
          { ...mutation, set: { ...mutation.set, history, historyAppended } },
          {
            expression: `${OWNED_BY_ME} AND ${unchanged.expression}`,
            values: { ':me': owner, ...unchanged.values },
          },
        );
        return toRecord(after);
      } catch (err) {
        if (!isConditionFailure(err)) throw err;
      }
    }
    throw new ConflictError(`${id}: history kept changing under ${this.maxStatusAttempts} status writes`);
  }

  async release(id: string, owner: string): Promise<void> {
    try {
      const out = await this.doc.send(
        new DeleteCommand({
          TableName: this.table,
          Key: { id },
          ConditionExpression: `attribute_exists(#deletionRequestedAt) AND ${OWNED_BY_ME}`,
          ExpressionAttributeNames: attributeNames(`#deletionRequestedAt ${OWNED_BY_ME}`),
          ExpressionAttributeValues: { ':me': owner },
          ReturnValues: 'ALL_OLD',
        }),
      );
      this.emit(id, out.Attributes, undefined);
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
      const current = await this.get(id);
      if (!current) return; // already released: a retried step must succeed
      if (!current.deletionRequestedAt) throw new ConflictError(`${id}: deletion was not requested`);
      throw new LeaseLostError(`${id}: lease is not held by ${owner}`);
    }
  }

  async scanSegment(
    segment: number,
    totalSegments: number,
    opts: { next?: string; limit?: number } = {},
  ): Promise<ScanPage> {
    const out = await this.doc.send(
      new ScanCommand({
        TableName: this.table,
        Segment: segment,
        TotalSegments: totalSegments,
        ...(opts.limit !== undefined ? { Limit: opts.limit } : {}),
        ...(opts.next !== undefined ? { ExclusiveStartKey: decodeNext(opts.next) } : {}),
      }),
    );
    const records = (out.Items ?? []).map(toRecord);
    return out.LastEvaluatedKey ? { records, next: encodeNext(out.LastEvaluatedKey) } : { records };
  }

  /** A conditional UpdateItem; returns the item after it and tells the observer. */
  private async update(id: string, mutation: Mutation, condition: Expression): Promise<StoredItem> {
    const out = await this.doc.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { id },
        ...updateParams(mutation, condition),
        ReturnValues: 'ALL_OLD',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    // Every update's condition requires the item to exist, so ALL_OLD is always present.
    const before = out.Attributes;
    if (!before) throw new Error(`${id}: update returned no previous item`);
    const after = normalize(applyMutation(before, mutation));
    this.emit(id, before, after);
    return after;
  }

  private emit(id: string, oldImage: StoredItem | undefined, newImage: StoredItem | undefined): void {
    this.observer?.onWrite({
      keys: { id },
      ...(oldImage ? { oldImage } : {}),
      ...(newImage ? { newImage } : {}),
    });
  }
}

function statusMutation(write: StatusWrite): Mutation {
  const set: Record<string, unknown> = { status: write.status };
  if (write.intent) set['intent'] = write.intent;
  if (write.trackedUpdates) set['trackedUpdates'] = write.trackedUpdates;
  if (write.applied) set['applied'] = write.applied;
  return write.intent === null ? { set, remove: ['intent'] } : { set };
}

export function isConditionFailure(err: unknown): err is ConditionalCheckFailedException {
  return (
    err instanceof ConditionalCheckFailedException ||
    (err instanceof Error && err.name === 'ConditionalCheckFailedException')
  );
}

function conditionFailureItem(err: ConditionalCheckFailedException): StoredItem | undefined {
  return err.Item ? unmarshall(err.Item) : undefined;
}

function leaseOf(item: { readonly lease?: unknown }): { owner?: string } | undefined {
  const lease = item.lease;
  return lease && typeof lease === 'object' ? (lease as { owner?: string }) : undefined;
}

/** The item exactly as DynamoDB stores it (undefined members dropped). */
function normalize(item: StoredItem): StoredItem {
  return unmarshall(marshall(item, { removeUndefinedValues: true }));
}

function toRecord(item: StoredItem): ClusterRecord {
  if (typeof item['id'] !== 'string' || typeof item['generation'] !== 'number' || !item['spec']) {
    throw new TypeError(`not a cluster record: ${JSON.stringify(item['id'])}`);
  }
  return item as unknown as ClusterRecord;
}

function encodeNext(key: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

function decodeNext(next: string): Record<string, unknown> {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(next, 'base64url').toString('utf8'));
  } catch {
    key = undefined;
  }
  if (!key || typeof key !== 'object' || typeof (key as { id?: unknown }).id !== 'string') {
    throw new TypeError('scanSegment: `next` is not a token this store returned');
  }
  return key as Record<string, unknown>;
}
