/**
 * Parses one stored item into a {@link ClusterRecord}, or says why it cannot. Items can be written
 * straight to the table by anyone with access, so every reader (sweep, triggers, steps, CLI, dev API,
 * bridge) goes through here, one item at a time: one malformed item is reported and skipped, and
 * never stops the others. Claim items (see claims.ts) share the table and are told apart by key.
 */
import * as z from 'zod/mini';
import { Reason } from '../core/conditions.js';
import { validateLabels } from '../core/labels.js';
import { isRecordId } from '../core/record-id.js';
import '../core/zod-locale.js';
import { isClaimId } from './claims.js';
import { RecordInvalidError } from './errors.js';
import type { ClusterRecord } from './types.js';

/** An item as the document client reads and writes it (attribute values unmarshalled). */
export type StoredItem = Readonly<Record<string, unknown>>;

const RECORD_INVALID: string = Reason.RecordInvalid;
const str = z.string();
const int = z.number().check(z.int());
const isoTime = str.check(
  z.refine((t) => !Number.isNaN(Date.parse(t)), 'must be a date and time (ISO 8601)'),
);

const conditionSchema = z.looseObject({
  type: str,
  status: z.enum(['True', 'False', 'Unknown']),
  reason: str,
  message: str,
  lastTransitionTime: str,
  observedGeneration: int,
});

const statusSchema = z.looseObject({
  conditions: z.array(conditionSchema),
  observedGeneration: int,
  ready: z.boolean(),
  synced: z.boolean(),
  updatedAt: str,
});

const historySchema = z.looseObject({
  at: str,
  kind: z.enum(['plan', 'policy', 'operation', 'error', 'status']),
  generation: int,
  summary: str,
});

const approvalEntrySchema = z.looseObject({ rule: str, operation: str, reason: str });

/** A pending wait: the CLI answers its token, on-change cancels it. */
const approvalSchema = z.looseObject({
  token: str.check(z.minLength(1)),
  generation: int.check(z.minimum(1)),
  approvals: z.array(approvalEntrySchema),
  requestedAt: isoTime,
  expiresAt: isoTime,
});

const approvedSchema = z.looseObject({
  generation: int.check(z.minimum(1)),
  keys: z.array(str),
  at: isoTime,
  by: z.optional(str),
});

const deniedSchema = z.looseObject({
  generation: int.check(z.minimum(1)),
  keys: z.array(str),
  reason: z.enum([Reason.ApprovalDenied, Reason.ApprovalTimedOut]),
  message: str,
  at: isoTime,
});

/** What readers rely on; unknown extra attributes are kept (a newer writer may add some). */
const recordSchema = z.looseObject({
  id: str.check(z.refine(isRecordId, 'must be <namespace>/<name> (two DNS labels)')),
  spec: z.record(str, z.unknown(), { error: 'must be a map' }),
  specHash: str,
  generation: int.check(z.minimum(1)),
  version: int.check(z.minimum(0)),
  createdAt: isoTime,
  labels: z.optional(
    z
      .record(str, str)
      .check(z.refine((l) => validateLabels(l).ok, 'must be Kubernetes labels (see core/labels.ts)')),
  ),
  deletionRequestedAt: z.optional(isoTime),
  rollout: z.optional(z.looseObject({ id: str, generation: int, stage: str })),
  status: z.optional(statusSchema),
  // An expiry beyond what a Date can hold is not one this store wrote (zod refuses Infinity and NaN).
  lease: z.optional(
    z.looseObject({
      owner: str,
      expiresAt: z.number().check(z.maximum(8.64e15)),
      executionArn: z.optional(str),
    }),
  ),
  intent: z.optional(z.looseObject({ operation: str, generation: int, at: str })),
  trackedUpdates: z.optional(z.array(z.looseObject({ id: str }))),
  history: z.optional(z.array(historySchema)),
  historyAppended: z.optional(int),
  applied: z.optional(z.looseObject({ generation: int, counts: z.record(str, int) })),
  failures: z.optional(
    z.looseObject({ generation: int, count: int.check(z.minimum(1)), lastAt: isoTime, retryAt: isoTime }),
  ),
  approval: z.optional(approvalSchema),
  approved: z.optional(approvedSchema),
  denied: z.optional(deniedSchema),
});

export type ParsedItem =
  | { readonly kind: 'record'; readonly record: ClusterRecord }
  | { readonly kind: 'claim' }
  | { readonly kind: 'invalid'; readonly invalid: InvalidItem };

/** An item that is not a record CloudOrch can work with. */
export interface InvalidItem {
  /** The item's key; `usable` says whether it is a record id a reconcile could be started for. */
  readonly id: string;
  readonly usable: boolean;
  /** The first problems found, each naming its attribute. */
  readonly reason: string;
  /** Its status already carries the RecordInvalid condition (written by an earlier run). */
  readonly marked: boolean;
}

/**
 * DynamoDB items hold at most 400 KB. A record needs room for its status and history (tens of KB),
 * so one already this large (measured as JSON, which is never smaller than DynamoDB's own count) can
 * never have a status written: it is invalid, and no run is started for it (each would fail).
 */
export const MAX_RECORD_JSON_BYTES = 360 * 1024;

export function parseItem(item: StoredItem): ParsedItem {
  const id = item['id'];
  if (typeof id === 'string' && isClaimId(id)) return { kind: 'claim' };
  const bytes = Buffer.byteLength(JSON.stringify(item));
  if (bytes > MAX_RECORD_JSON_BYTES) {
    const reason = `(item): about ${Math.round(bytes / 1024)} KB, too large to ever hold a status (DynamoDB items hold at most 400 KB)`;
    return { kind: 'invalid', invalid: { id: String(id), usable: false, reason, marked: false } };
  }
  const r = recordSchema.safeParse(item);
  if (r.success) return { kind: 'record', record: r.data as unknown as ClusterRecord };
  const reason = r.error.issues
    .slice(0, 3)
    .map((i) => `${i.path.map(String).join('.') || '(item)'}: ${i.message}`)
    .join('; ');
  return {
    kind: 'invalid',
    invalid: { id: String(id), usable: isRecordId(id), reason, marked: marked(item) },
  };
}

/** The item as a record; RecordInvalidError when it is malformed or a claim. */
export function toRecord(item: StoredItem): ClusterRecord {
  const p = parseItem(item);
  if (p.kind === 'record') return p.record;
  if (p.kind === 'invalid') throw new RecordInvalidError(p.invalid.id, p.invalid.reason);
  throw new RecordInvalidError(String(item['id']), 'a target claim, not a record');
}

function marked(item: StoredItem): boolean {
  const conds = (item['status'] as { conditions?: unknown } | undefined)?.conditions;
  return (
    Array.isArray(conds) &&
    conds.some(
      (c: { type?: unknown; reason?: unknown }) => c?.type === 'Ready' && c.reason === RECORD_INVALID,
    )
  );
}
