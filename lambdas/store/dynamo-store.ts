/**
 * The desired-state store on DynamoDB: the `DesiredStateStore` contract over modules with one job
 * each (spec writes, claims, leases, status writes, deletion, scans). Only single-item conditional
 * writes, so dynalite (local mode) and DynamoDB behave the same; docs/store.md lists every call.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Labels } from '../core/labels.js';
import type { CloudClusterSpec } from '../core/spec/schema.js';
import type { ClusterStatus } from '../core/status.js';
import { awaitApproval, endApproval } from './approval-writes.js';
import { getMany, type ManyRecords } from './batch-get.js';
import { claimHolder, claimTarget } from './claim-store.js';
import type { Target } from './claims.js';
import { release, requestDeletion } from './deletion.js';
import { readParsed, readRecord, type Table } from './items.js';
import { writeLabels } from './label-writes.js';
import { type AcquireOptions, acquireLease, releaseLease, renewLease } from './lease-writes.js';
import type { ParsedItem } from './record.js';
import { type ScanOptions, scanSegment } from './scan.js';
import type { ApplyOptions } from './spec-writes.js';
import { markInvalid, recordIntent, writeStatus } from './status-writes.js';
import type {
  ApplyResult,
  ApprovalOutcome,
  ClusterRecord,
  DesiredStateStore,
  Intent,
  PendingApproval,
  ScanPage,
  StatusWrite,
} from './types.js';

export interface DynamoStoreOptions {
  readonly client: DynamoDBClient;
  readonly tableName: string;
  /** Attempts of a history append racing another write by the same lease holder. Default 3. */
  readonly maxStatusAttempts?: number;
}

export class DynamoDesiredStateStore implements DesiredStateStore {
  private readonly table: Table;
  private readonly maxStatusAttempts: number;

  constructor(opts: DynamoStoreOptions) {
    this.table = {
      doc: DynamoDBDocumentClient.from(opts.client, { marshallOptions: { removeUndefinedValues: true } }),
      name: opts.tableName,
    };
    this.maxStatusAttempts = opts.maxStatusAttempts ?? 3;
  }

  get(id: string): Promise<ClusterRecord | undefined> {
    return readRecord(this.table, id);
  }

  inspect(id: string): Promise<ParsedItem | undefined> {
    return readParsed(this.table, id);
  }

  /**
   * Loaded on first use: only the spec writers (`cloudorch apply`, the bridge) call it, and it brings
   * the spec schema, which a Lambda bundle then keeps in a chunk it loads only if this runs.
   */
  async applySpec(id: string, spec: CloudClusterSpec, opts: ApplyOptions = {}): Promise<ApplyResult> {
    const writes = await import('./spec-writes.js');
    return writes.applySpec(this.table, id, spec, opts);
  }

  writeLabels(id: string, labels: Labels): Promise<ClusterRecord> {
    return writeLabels(this.table, id, labels);
  }

  requestDeletion(id: string, now: Date = new Date()): Promise<ClusterRecord> {
    return requestDeletion(this.table, id, now);
  }

  acquireLease(
    id: string,
    owner: string,
    ttlMs: number,
    now: Date = new Date(),
    opts: AcquireOptions = {},
  ): Promise<void> {
    return acquireLease(this.table, id, owner, ttlMs, now, opts);
  }

  renewLease(id: string, owner: string, ttlMs: number, now: Date = new Date()): Promise<void> {
    return renewLease(this.table, id, owner, ttlMs, now);
  }

  releaseLease(id: string, owner: string): Promise<void> {
    return releaseLease(this.table, id, owner);
  }

  writeStatus(id: string, owner: string, write: StatusWrite): Promise<ClusterRecord> {
    return writeStatus(this.table, id, owner, write, this.maxStatusAttempts);
  }

  awaitApproval(
    id: string,
    owner: string,
    approval: PendingApproval,
    opts: { readonly leaseExpiresAt: number; readonly deleting: boolean },
  ): Promise<void> {
    return awaitApproval(this.table, id, owner, approval, opts);
  }

  endApproval(id: string, owner: string, outcome: ApprovalOutcome): Promise<void> {
    return endApproval(this.table, id, owner, outcome);
  }

  recordIntent(id: string, owner: string, intent: Intent): Promise<void> {
    return recordIntent(this.table, id, owner, intent);
  }

  markInvalid(id: string, owner: string, status: ClusterStatus): Promise<void> {
    return markInvalid(this.table, id, owner, status);
  }

  release(id: string, owner: string, target?: Target): Promise<void> {
    return release(this.table, id, owner, target);
  }

  claimTarget(target: Target, holder: string, now: Date = new Date()): Promise<boolean> {
    return claimTarget(this.table, target, holder, now);
  }

  claimHolder(target: Target, now: Date = new Date()): Promise<string | undefined> {
    return claimHolder(this.table, target, now);
  }

  scanSegment(segment: number, totalSegments: number, opts: ScanOptions = {}): Promise<ScanPage> {
    return scanSegment(this.table, segment, totalSegments, opts);
  }

  getMany(ids: readonly string[]): Promise<ManyRecords> {
    return getMany(this.table, ids);
  }
}
