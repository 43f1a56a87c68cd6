/**
 * Parses one stored item into a {@link ClusterRecord}, or says why it cannot. Items can be written
 * straight to the table by anyone with access, so every reader (sweep, triggers, steps, CLI, dev API,
 * bridge) goes through here, one item at a time: one malformed item is reported and skipped, and
 * never stops the others. Claim items (see claims.ts) share the table and are told apart by key.
 */
import { Reason } from '../core/conditions.js';
import { validateLabels } from '../core/labels.js';
import { isRecordId } from '../core/record-id.js';
import { isClaimId } from './claims.js';
import { RecordInvalidError } from './errors.js';
import {
  atLeast,
  atMost,
  bool,
  type Check,
  describeIssue,
  int,
  issuesOf,
  listOf,
  mapOf,
  nonEmpty,
  num,
  oneOf,
  optional,
  type Refinement,
  shape,
  str,
} from './shape.js';
import type { ClusterRecord } from './types.js';

/** An item as the document client reads and writes it (attribute values unmarshalled). */
export type StoredItem = Readonly<Record<string, unknown>>;

const RECORD_INVALID: string = Reason.RecordInvalid;
const isTime: Refinement<string> = [
  (t) => !Number.isNaN(Date.parse(t)),
  'must be a date and time (ISO 8601)',
];
const text = str();
const whole = int();
const generation = int(atLeast(1));
const time = str(isTime);
const labelMap = mapOf(text);

const conditionShape = shape({
  type: text,
  status: oneOf(['True', 'False', 'Unknown']),
  reason: text,
  message: text,
  lastTransitionTime: text,
  observedGeneration: whole,
});

const statusShape = shape({
  conditions: listOf(conditionShape),
  observedGeneration: whole,
  ready: bool,
  synced: bool,
  updatedAt: text,
});

const historyShape = shape({
  at: text,
  kind: oneOf(['plan', 'policy', 'operation', 'error', 'status']),
  generation: whole,
  summary: text,
});

/** A pending wait: the CLI answers its token, on-change cancels it. */
const approvalShape = shape({
  token: str(nonEmpty),
  generation,
  approvals: listOf(shape({ rule: text, operation: text, reason: text })),
  requestedAt: time,
  expiresAt: time,
});

const approvedShape = shape({ generation, keys: listOf(text), at: time, by: optional(text) });

const deniedShape = shape({
  generation,
  keys: listOf(text),
  reason: oneOf([Reason.ApprovalDenied, Reason.ApprovalTimedOut]),
  message: text,
  at: time,
});

/** What readers rely on; unknown extra attributes are kept (a newer writer may add some). */
const recordShape: Check = shape({
  id: str([isRecordId, 'must be <namespace>/<name> (two DNS labels)']),
  spec: mapOf(undefined, 'must be a map'),
  specHash: text,
  generation,
  version: int(atLeast(0)),
  createdAt: time,
  labels: optional((v, path, issues) => {
    const before = issues.length;
    labelMap(v, path, issues);
    if (issues.length === before && !validateLabels(v as Record<string, string>).ok)
      issues.push({ path, message: 'must be Kubernetes labels (see core/labels.ts)' });
  }),
  deletionRequestedAt: optional(time),
  rollout: optional(shape({ id: text, generation: whole, stage: text })),
  status: optional(statusShape),
  // An expiry beyond what a Date can hold is not one this store wrote.
  lease: optional(shape({ owner: text, expiresAt: num(atMost(8.64e15)), executionArn: optional(text) })),
  intent: optional(shape({ operation: text, generation: whole, at: text })),
  trackedUpdates: optional(listOf(shape({ id: text }))),
  history: optional(listOf(historyShape)),
  historyAppended: optional(whole),
  applied: optional(shape({ generation: whole, counts: mapOf(whole) })),
  failures: optional(shape({ generation: whole, count: int(atLeast(1)), lastAt: time, retryAt: time })),
  approval: optional(approvalShape),
  approved: optional(approvedShape),
  denied: optional(deniedShape),
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
  const issues = issuesOf(recordShape, item);
  // The spec itself is checked where it is used (core/spec/validate.ts): a record is a map here.
  if (issues.length === 0) return { kind: 'record', record: item as unknown as ClusterRecord };
  const reason = issues.slice(0, 3).map(describeIssue).join('; ');
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
