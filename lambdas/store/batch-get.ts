/**
 * Records by id in batches (BatchGetItem, at most 100 keys each), every item parsed on its own as the
 * scan does: a malformed one is returned apart with why and never hides the others. Keys DynamoDB
 * leaves unprocessed (throttling) are asked again a bounded number of times with backoff and jitter.
 */
import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { TransientError } from '../core/errors.js';
import type { Table } from './items.js';
import { type InvalidItem, parseItem, type StoredItem } from './record.js';
import type { ClusterRecord } from './types.js';

const BATCH = 100;
const ATTEMPTS = 5;
const BASE_DELAY_MS = 50;

export interface ManyRecords {
  readonly records: ClusterRecord[];
  readonly invalid: InvalidItem[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function batch(t: Table, ids: readonly string[]): Promise<StoredItem[]> {
  const items: StoredItem[] = [];
  let keys: Record<string, unknown>[] = ids.map((id) => ({ id }));
  for (let attempt = 0; keys.length > 0; attempt++) {
    if (attempt >= ATTEMPTS)
      throw new TransientError(
        `BatchGetItem left ${keys.length} keys unprocessed after ${ATTEMPTS} attempts`,
        {
          remediation: 'Nothing to do: the next sweep period reads them again.',
        },
      );
    if (attempt > 0) await sleep(Math.random() * BASE_DELAY_MS * 2 ** attempt);
    // Eventually consistent, as the sweep's scan is (half the read units): a decision on a record a
    // moment old is harmless, since the run it starts reads the record again under its lease.
    const out = await t.doc.send(
      new BatchGetCommand({ RequestItems: { [t.name]: { Keys: keys, ConsistentRead: false } } }),
    );
    items.push(...(out.Responses?.[t.name] ?? []));
    keys = out.UnprocessedKeys?.[t.name]?.Keys ?? [];
  }
  return items;
}

/** The records of `ids` that exist (deleted ones are absent), and the malformed items among them. */
export async function getMany(t: Table, ids: readonly string[]): Promise<ManyRecords> {
  const records: ClusterRecord[] = [];
  const invalid: InvalidItem[] = [];
  const unique = [...new Set(ids)];
  for (let i = 0; i < unique.length; i += BATCH) {
    for (const item of await batch(t, unique.slice(i, i + BATCH))) {
      const p = parseItem(item);
      if (p.kind === 'record') records.push(p.record);
      else if (p.kind === 'invalid') invalid.push(p.invalid);
    }
  }
  return { records, invalid };
}
