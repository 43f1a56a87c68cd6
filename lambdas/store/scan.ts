/** One page of one scan segment, records and malformed items apart; claims are skipped. */
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { InternalError } from '../core/errors.js';
import type { Table } from './items.js';
import { type InvalidItem, parseItem } from './record.js';
import type { ClusterRecord, ScanPage } from './types.js';

export interface ScanOptions {
  /** A token a previous page returned. */
  readonly next?: string;
  readonly limit?: number;
}

export async function scanSegment(
  t: Table,
  segment: number,
  totalSegments: number,
  opts: ScanOptions,
): Promise<ScanPage> {
  const out = await t.doc.send(
    new ScanCommand({
      TableName: t.name,
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

/** The LastEvaluatedKey as base64url JSON: opaque to callers. */
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
    // Only CloudOrch passes tokens, and only ones a page returned.
    throw new InternalError('scanSegment: `next` is not a token this store returned');
  }
  return key as Record<string, unknown>;
}
