/**
 * CloudRollout records and the cluster locks that keep two rollouts off one cluster, on the rollout
 * table. A rollout item (id `<namespace>/<name>`) holds the raw spec, its generation, the status the
 * rollout functions write and, while a stage waits for approval, the task token that resumes it. A
 * lock item (`lock#<cluster id>`) names the rollout holding that cluster: taken by one conditional
 * write, so two rollouts planned at once cannot both hold a cluster.
 *
 * Status writes read, change and write back under a version condition: the iterations of a stage
 * update one record concurrently, and a lost update would lose a cluster's result. Items can be
 * written straight to the table, so every read parses and names what is wrong.
 */
import { type DynamoDBClient, ReturnValue } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  PutCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { rolloutActive } from '../core/rollout/status.js';
import { ConflictError, RecordInvalidError, RolloutActiveError } from './errors.js';
import { isConditionFailure, readItem } from './items.js';
import { parseRolloutItem, type RolloutRecord } from './rollout-record.js';
import { canonicalJson } from './spec-hash.js';

export type { PendingApproval, RolloutRecord } from './rollout-record.js';

const LOCK_PREFIX = 'lock#';
const lockId = (cluster: string) => `${LOCK_PREFIX}${cluster}`;

/** Attempts of a read-change-write before giving up (each waits a growing, jittered while). */
const UPDATE_ATTEMPTS = 8;

export type RolloutChange = Partial<
  Pick<RolloutRecord, 'status' | 'approval' | 'abortRequestedAt' | 'attempt' | 'executionArn'>
> & { readonly clear?: readonly ('approval' | 'abortRequestedAt')[] };

export interface RolloutPut {
  readonly record: RolloutRecord;
  readonly changed: boolean;
  readonly created: boolean;
}

export interface RolloutStore {
  get(id: string): Promise<RolloutRecord | undefined>;
  /**
   * Writes the spec; a changed spec is a new generation, whose status starts afresh. While the rollout
   * is active (planned, not Completed or Aborted) a changed spec is refused: RolloutActiveError.
   */
  put(id: string, spec: Readonly<Record<string, unknown>>, now: Date): Promise<RolloutPut>;
  /** Reads, applies `change` (undefined: nothing to write) and writes back if nobody wrote between. */
  update(
    id: string,
    change: (r: RolloutRecord) => RolloutChange | undefined,
    now: Date,
  ): Promise<RolloutRecord>;
  list(): Promise<{ records: RolloutRecord[]; invalid: { id: string; reason: string }[] }>;
  /** Locks every cluster for `rollout`, or none: the first cluster another rollout holds is named. */
  lock(
    rollout: string,
    clusters: readonly string[],
    now: Date,
  ): Promise<{ held?: { cluster: string; by: string } }>;
  unlock(rollout: string, clusters: readonly string[]): Promise<void>;
  holder(cluster: string): Promise<string | undefined>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class DynamoRolloutStore implements RolloutStore {
  private readonly doc: DynamoDBDocumentClient;

  constructor(
    client: DynamoDBClient,
    private readonly tableName: string,
  ) {
    this.doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  }

  private get table() {
    return { doc: this.doc, name: this.tableName };
  }

  async get(id: string): Promise<RolloutRecord | undefined> {
    const item = await readItem(this.table, id);
    if (!item) return undefined;
    const parsed = parseRolloutItem(item);
    if (!parsed.ok) throw new RecordInvalidError(id, parsed.reason);
    return parsed.record;
  }

  async put(id: string, spec: Readonly<Record<string, unknown>>, now: Date): Promise<RolloutPut> {
    const old = await this.get(id);
    // Key order is no change: the CLI keeps the file's order, the Kubernetes API server sorts.
    if (old && canonicalJson(old.spec) === canonicalJson(spec))
      return { record: old, changed: false, created: false };
    // Decided on the read the write is conditioned on: a status written meanwhile fails the write.
    if (old && rolloutActive(old.status)) throw new RolloutActiveError(id, old.status?.phase ?? 'Running');
    const at = now.toISOString();
    const record: RolloutRecord = {
      id,
      spec,
      generation: (old?.generation ?? 0) + 1,
      version: (old?.version ?? 0) + 1,
      attempt: 0,
      createdAt: old?.createdAt ?? at,
      updatedAt: at,
    };
    await this.write(record, old?.version);
    return { record, changed: true, created: !old };
  }

  async update(
    id: string,
    change: (r: RolloutRecord) => RolloutChange | undefined,
    now: Date,
  ): Promise<RolloutRecord> {
    for (let attempt = 1; ; attempt++) {
      const old = await this.get(id);
      if (!old) throw new RecordInvalidError(id, 'the rollout record is gone');
      const c = change(old);
      if (!c) return old;
      const { clear, ...fields } = c;
      const next: Record<string, unknown> = {
        ...old,
        ...fields,
        version: old.version + 1,
        updatedAt: now.toISOString(),
      };
      for (const k of clear ?? []) delete next[k];
      try {
        await this.write(next as unknown as RolloutRecord, old.version);
        return next as unknown as RolloutRecord;
      } catch (err) {
        if (!(err instanceof ConflictError) || attempt >= UPDATE_ATTEMPTS) throw err;
        // Full jitter over a ceiling that doubles: concurrent iterations spread out.
        await sleep(Math.random() * 10 * 2 ** attempt);
      }
    }
  }

  private async write(record: RolloutRecord, expectedVersion: number | undefined): Promise<void> {
    try {
      await this.doc.send(
        new PutCommand({
          TableName: this.tableName,
          Item: record,
          ConditionExpression:
            expectedVersion === undefined ? 'attribute_not_exists(#id)' : '#version = :version',
          ExpressionAttributeNames:
            expectedVersion === undefined ? { '#id': 'id' } : { '#version': 'version' },
          ...(expectedVersion === undefined
            ? {}
            : { ExpressionAttributeValues: { ':version': expectedVersion } }),
        }),
      );
    } catch (err) {
      if (isConditionFailure(err)) throw new ConflictError(`rollout ${record.id} was written meanwhile`);
      throw err;
    }
  }

  async list(): Promise<{ records: RolloutRecord[]; invalid: { id: string; reason: string }[] }> {
    const records: RolloutRecord[] = [];
    const invalid: { id: string; reason: string }[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const out = await this.doc.send(
        new ScanCommand({ TableName: this.tableName, ConsistentRead: true, ExclusiveStartKey: start }),
      );
      for (const item of out.Items ?? []) {
        if (typeof item['id'] === 'string' && item['id'].startsWith(LOCK_PREFIX)) continue;
        const parsed = parseRolloutItem(item);
        if (parsed.ok) records.push(parsed.record);
        else invalid.push({ id: String(item['id']), reason: parsed.reason });
      }
      start = out.LastEvaluatedKey;
    } while (start);
    return { records: records.sort((a, b) => a.id.localeCompare(b.id)), invalid };
  }

  async lock(
    rollout: string,
    clusters: readonly string[],
    now: Date,
  ): Promise<{ held?: { cluster: string; by: string } }> {
    const taken: string[] = [];
    for (const cluster of clusters) {
      try {
        await this.doc.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: { id: lockId(cluster) },
            UpdateExpression: 'SET #holder = :holder, #at = if_not_exists(#at, :at)',
            ConditionExpression: 'attribute_not_exists(#holder) OR #holder = :holder',
            ExpressionAttributeNames: { '#holder': 'holder', '#at': 'lockedAt' },
            ExpressionAttributeValues: { ':holder': rollout, ':at': now.toISOString() },
            ReturnValues: ReturnValue.NONE,
          }),
        );
        taken.push(cluster);
      } catch (err) {
        if (!isConditionFailure(err)) throw err;
        // All or none: the locks taken so far go back before the refusal.
        await this.unlock(rollout, taken);
        return { held: { cluster, by: (await this.holder(cluster)) ?? 'another rollout' } };
      }
    }
    return {};
  }

  async unlock(rollout: string, clusters: readonly string[]): Promise<void> {
    for (const cluster of clusters) {
      try {
        await this.doc.send(
          new DeleteCommand({
            TableName: this.tableName,
            Key: { id: lockId(cluster) },
            ConditionExpression: '#holder = :holder',
            ExpressionAttributeNames: { '#holder': 'holder' },
            ExpressionAttributeValues: { ':holder': rollout },
          }),
        );
      } catch (err) {
        // Held by another rollout (or already gone): not ours to remove.
        if (!isConditionFailure(err)) throw err;
      }
    }
  }

  async holder(cluster: string): Promise<string | undefined> {
    const item = await readItem(this.table, lockId(cluster));
    return typeof item?.['holder'] === 'string' ? item['holder'] : undefined;
  }
}
