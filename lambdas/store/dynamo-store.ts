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
import { applyKey } from '../core/plan/tokens.js';
import type { CloudClusterSpec } from '../core/spec/schema.js';
import { type ClusterStatus, ownedArnOf } from '../core/status.js';
import { type ClaimItem, claimId, describeTarget, type Target } from './claims.js';
import {
  ConflictError,
  DeletionInProgressError,
  LeaseHeldError,
  LeaseLostError,
  RecordInvalidError,
  RecordNotFoundError,
  TargetChangeError,
  TargetClaimedError,
} from './errors.js';
import { foldHistory } from './history.js';
import { latestPlausibleExpiry } from './lease.js';
import type { StoredItem, WriteObserver } from './observer.js';
import { type InvalidItem, type ParsedItem, parseItem } from './record.js';
import { specHash } from './spec-hash.js';
import type {
  ApplyResult,
  ClusterRecord,
  DesiredStateStore,
  Intent,
  ScanPage,
  StatusWrite,
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
/**
 * A lease nobody holds: absent, expired, not the shape this store writes, or expiring further ahead
 * than any lease it writes (see lease.ts).
 */
const LEASE_FREE =
  'attribute_not_exists(#lease) OR NOT attribute_type(#lease, :map) OR NOT attribute_type(#lease.#expiresAt, :num) OR #lease.#expiresAt < :now OR #lease.#expiresAt > :max';
/**
 * A claim whose holder record is gone is taken over only after this long: the holder may be a
 * concurrent apply that claimed and has not written its record yet.
 */
const STALE_CLAIM_MS = 60_000;

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
    const item = await this.raw(id);
    return item ? toRecord(item) : undefined;
  }

  async inspect(id: string): Promise<ParsedItem | undefined> {
    const item = await this.raw(id);
    return item ? parseItem(item) : undefined;
  }

  private async raw(id: string): Promise<StoredItem | undefined> {
    const out = await this.doc.send(
      new GetCommand({ TableName: this.table, Key: { id }, ConsistentRead: true }),
    );
    return out.Item;
  }

  async applySpec(
    id: string,
    spec: CloudClusterSpec,
    opts: { expectedVersion?: number; now?: Date } = {},
  ): Promise<ApplyResult> {
    const hash = specHash(spec);
    const expected = opts.expectedVersion;
    const current = await this.get(id);
    if (current?.deletionRequestedAt) throw new DeletionInProgressError(`${id}: deletion was requested`);
    // A record that does not exist has version 0: expectedVersion 0 means "create only".
    if (expected !== undefined && (current?.version ?? 0) !== expected) {
      throw new ConflictError(
        `${id}: expected version ${expected}, ${current ? `found ${current.version}` : 'but there is no record'}`,
      );
    }
    if (current?.specHash === hash) return { record: current, changed: false, created: false };
    const moved = current !== undefined && claimId(current.spec) !== claimId(spec);
    // A record that has (or may have) created or owned its cluster cannot point at another one:
    // that would orphan the first.
    const owned = moved ? mayOwnCluster(current) : undefined;
    if (moved && owned)
      throw new TargetChangeError(
        `${id}: manages cluster ${describeTarget(current.spec)} (${owned}); a record's cluster cannot be renamed or moved. Delete the record (deletionPolicy Retain keeps the cluster) and apply a new one.`,
      );
    // The target first: a record is written only once its cluster is known to be nobody else's.
    const took = await this.claimTarget(spec, id, opts.now);
    try {
      const result = current
        ? await this.updateSpec(id, current, spec, hash, expected)
        : await this.createRecord(id, spec, hash, expected, opts.now);
      if (moved) await this.releaseClaim(current.spec, id);
      return result;
    } catch (err) {
      // Nothing of this write landed: a claim it took is given back, unless a concurrent write of the
      // same record (which shares the holder id) now names that target and needs it.
      if (took) {
        const now = await this.inspect(id);
        if (!(now?.kind === 'record' && claimId(now.record.spec) === claimId(spec)))
          await this.releaseClaim(spec, id);
      }
      throw err;
    }
  }

  private async createRecord(
    id: string,
    spec: CloudClusterSpec,
    hash: string,
    expected: number | undefined,
    now: Date = new Date(),
  ): Promise<ApplyResult> {
    const item = normalize({
      id,
      spec,
      specHash: hash,
      generation: 1,
      version: 1,
      createdAt: now.toISOString(),
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

  private async updateSpec(
    id: string,
    current: ClusterRecord,
    spec: CloudClusterSpec,
    hash: string,
    expected: number | undefined,
  ): Promise<ApplyResult> {
    // Status writes never touch `version`, so only another spec writer can fail this condition.
    const mutation: Mutation = { set: { spec, specHash: hash }, increment: { generation: 1, version: 1 } };
    const condition = {
      expression: '#version = :read AND attribute_not_exists(#deletionRequestedAt)',
      values: { ':read': current.version },
    };
    try {
      return { record: toRecord(await this.update(id, mutation, condition)), changed: true, created: false };
    } catch (err) {
      if (isConditionFailure(err)) return this.afterLostSpecRace(id, hash, expected);
      throw err;
    }
  }

  /**
   * Claims `target` for `holder`; true when this call wrote the claim. A claim is stale, and taken
   * over, when its holder record is gone (and was not created in the last minute: it may be an apply
   * on its way) or no longer names this target (a rename, or a crash between the two writes).
   */
  async claimTarget(target: Target, holder: string, now: Date = new Date()): Promise<boolean> {
    const item = { id: claimId(target), holder, claimedAt: now.toISOString() };
    // Read first: a record reconciling its own target (every Observe) writes nothing.
    let claim = await this.raw(item.id);
    if (!claim) {
      if (await this.putClaim(item, 'attribute_not_exists(#id)')) return true;
      claim = await this.raw(item.id);
    }
    const other = typeof claim?.['holder'] === 'string' ? claim['holder'] : undefined;
    if (other === holder) return false;
    if (other !== undefined && !(await this.claimIsStale(claim ?? {}, other, target, now)))
      throw new TargetClaimedError(describeTarget(target), other);
    const condition = other === undefined ? 'attribute_not_exists(#holder)' : '#holder = :other';
    if (!(await this.putClaim(item, condition, other === undefined ? undefined : { ':other': other })))
      throw new TargetClaimedError(describeTarget(target), 'another record (claimed concurrently)');
    return true;
  }

  private async claimIsStale(claim: StoredItem, holder: string, target: Target, now: Date): Promise<boolean> {
    const parsed = await this.inspect(holder);
    if (parsed && parsed.kind !== 'record') return false; // a malformed holder may still be fixed
    if (parsed?.kind === 'record' && claimId(parsed.record.spec) === claimId(target)) return false;
    // The holder is gone or names another target: stale, unless it claimed within the last minute
    // (an apply, or a rename, on its way between its claim and its record write).
    const since = typeof claim['claimedAt'] === 'string' ? Date.parse(claim['claimedAt']) : Number.NaN;
    return !(now.getTime() - since < STALE_CLAIM_MS);
  }

  /** A conditional put of a claim; false when the condition failed. */
  private async putClaim(
    item: ClaimItem,
    condition: string,
    values?: Record<string, string>,
  ): Promise<boolean> {
    try {
      const out = await this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: item,
          ConditionExpression: condition,
          ExpressionAttributeNames: attributeNames(condition),
          ...(values ? { ExpressionAttributeValues: values } : {}),
          ReturnValues: 'ALL_OLD',
        }),
      );
      this.emit(item.id, out.Attributes, { ...item });
      return true;
    } catch (err) {
      if (isConditionFailure(err)) return false;
      throw err;
    }
  }

  /** The record id holding a target, when that claim is live (its holder exists and still names it). */
  async claimHolder(target: Target, now: Date = new Date()): Promise<string | undefined> {
    const claim = await this.raw(claimId(target));
    const holder = typeof claim?.['holder'] === 'string' ? claim['holder'] : undefined;
    if (!claim || holder === undefined) return undefined;
    return (await this.claimIsStale(claim, holder, target, now)) ? undefined : holder;
  }

  /** Gives up a claim, only if `holder` still holds it. */
  private async releaseClaim(target: Target, holder: string): Promise<void> {
    try {
      const out = await this.doc.send(
        new DeleteCommand({
          TableName: this.table,
          Key: { id: claimId(target) },
          ConditionExpression: '#holder = :holder',
          ExpressionAttributeNames: { '#holder': 'holder' },
          ExpressionAttributeValues: { ':holder': holder },
          ReturnValues: 'ALL_OLD',
        }),
      );
      this.emit(claimId(target), out.Attributes, undefined);
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
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
    opts: { executionArn?: string; takeOverFrom?: string } = {},
  ): Promise<void> {
    const lease = {
      owner,
      expiresAt: now.getTime() + ttlMs,
      ...(opts.executionArn ? { executionArn: opts.executionArn } : {}),
    };
    const takeOver = opts.takeOverFrom !== undefined ? ' OR #lease.#owner = :dead' : '';
    const condition = {
      expression: `attribute_exists(#id) AND (${LEASE_FREE} OR ${OWNED_BY_ME}${takeOver})`,
      values: {
        ':now': now.getTime(),
        ':max': latestPlausibleExpiry(now, ttlMs),
        ':me': owner,
        ':map': 'M',
        ':num': 'N',
        ...(opts.takeOverFrom !== undefined ? { ':dead': opts.takeOverFrom } : {}),
      },
    };
    try {
      await this.update(id, { set: { lease } }, condition);
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
      // DynamoDB returns the item that failed the check; dynalite does not, so read it then.
      const item = conditionFailureItem(err) ?? (await this.raw(id));
      if (!item) throw new RecordNotFoundError(`${id}: no such record`);
      const held = leaseOf(item);
      throw new LeaseHeldError(
        `${id}: lease held by ${held?.owner ?? 'nobody (released meanwhile)'}`,
        held?.owner,
        held?.executionArn,
      );
    }
  }

  async renewLease(id: string, owner: string, ttlMs: number, now: Date = new Date()): Promise<void> {
    // Only the expiry: the lease keeps naming its execution.
    await this.updateAsHolder(id, owner, { set: { 'lease.expiresAt': now.getTime() + ttlMs } });
  }

  /** An update made only while `owner` holds the lease; LeaseLostError otherwise. */
  private async updateAsHolder(id: string, owner: string, mutation: Mutation): Promise<StoredItem> {
    try {
      return await this.update(id, mutation, { expression: OWNED_BY_ME, values: { ':me': owner } });
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
    await this.updateAsHolder(id, owner, { set: { intent } });
  }

  async writeStatus(id: string, owner: string, write: StatusWrite): Promise<ClusterRecord> {
    const mutation = statusMutation(write);
    if (!write.history?.length) return toRecord(await this.updateAsHolder(id, owner, mutation));
    // History is read, trimmed and written back on the condition that nobody appended meanwhile.
    for (let attempt = 1; attempt <= this.maxStatusAttempts; attempt++) {
      const current = await this.get(id);
      if (current?.lease?.owner !== owner) throw new LeaseLostError(`${id}: lease is not held by ${owner}`);
      const history = foldHistory(current.history ?? [], write.history);
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

  async markInvalid(id: string, owner: string, status: ClusterStatus): Promise<void> {
    await this.updateAsHolder(id, owner, { set: { status } });
  }

  async release(id: string, owner: string, target?: Target): Promise<void> {
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
      const current = await this.raw(id);
      if (current) {
        if (current['deletionRequestedAt'] === undefined)
          throw new ConflictError(`${id}: deletion was not requested`);
        throw new LeaseLostError(`${id}: lease is not held by ${owner}`);
      }
      // Already released: a retried step must succeed, and still gives up the claim.
    }
    if (target) await this.releaseClaim(target, id);
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
    const records: ClusterRecord[] = [];
    const invalid: InvalidItem[] = [];
    for (const item of out.Items ?? []) {
      const p = parseItem(item);
      if (p.kind === 'record') records.push(p.record);
      else if (p.kind === 'invalid') invalid.push(p.invalid);
    }
    return out.LastEvaluatedKey
      ? { records, invalid, next: encodeNext(out.LastEvaluatedKey) }
      : { records, invalid };
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

/**
 * The cluster this record has, or may have, created or owned: seen owned in status, a create
 * recorded as intended or applied, or one in its history. Read before a spec write; a status written
 * between that read and the write is not seen (a window of milliseconds).
 */
function mayOwnCluster(r: ClusterRecord): string | undefined {
  const owned = ownedArnOf(r.status);
  if (owned) return owned;
  const created =
    r.intent?.operation === 'CreateCluster' ||
    Object.keys(r.applied?.counts ?? {}).some((k) => k.startsWith(applyKey('CreateCluster', ''))) ||
    (r.history ?? []).some((h) => h.operation === 'CreateCluster');
  return created ? 'a cluster it created' : undefined;
}

function statusMutation(write: StatusWrite): Mutation {
  const set: Record<string, unknown> = { status: write.status };
  const remove: string[] = [];
  if (write.intent) set['intent'] = write.intent;
  if (write.trackedUpdates) set['trackedUpdates'] = write.trackedUpdates;
  if (write.applied) set['applied'] = write.applied;
  if (write.failures) set['failures'] = write.failures;
  if (write.intent === null) remove.push('intent');
  if (write.failures === null) remove.push('failures');
  return remove.length > 0 ? { set, remove } : { set };
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

function leaseOf(item: StoredItem): { owner?: string; executionArn?: string } | undefined {
  const lease = item['lease'];
  if (!lease || typeof lease !== 'object') return undefined;
  const { owner, executionArn } = lease as { owner?: unknown; executionArn?: unknown };
  return {
    ...(typeof owner === 'string' ? { owner } : {}),
    ...(typeof executionArn === 'string' ? { executionArn } : {}),
  };
}

/** The item exactly as DynamoDB stores it (undefined members dropped). */
function normalize(item: StoredItem): StoredItem {
  return unmarshall(marshall(item, { removeUndefinedValues: true }));
}

function toRecord(item: StoredItem): ClusterRecord {
  const p = parseItem(item);
  if (p.kind === 'record') return p.record;
  if (p.kind === 'invalid') throw new RecordInvalidError(p.invalid.id, p.invalid.reason);
  throw new RecordInvalidError(String(item['id']), 'a target claim, not a record');
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
