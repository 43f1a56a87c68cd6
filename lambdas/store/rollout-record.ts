/**
 * Parses one stored rollout item, or says why it cannot: anyone with table access can write items,
 * and a rollout function must never act on a half-understood record. Only what the functions rely on
 * is checked; unknown extra attributes are kept for a newer writer.
 */
import { isRecordId } from '../core/record-id.js';
import type { RolloutStatus } from '../core/rollout/status.js';
import {
  atLeast,
  describeIssue,
  int,
  issuesOf,
  listOf,
  mapOf,
  oneOf,
  optional,
  shape,
  str,
} from './shape.js';

/** A stage waiting for `cloudorch rollout approve`: the token resumes the execution. */
export interface PendingApproval {
  readonly stage: string;
  readonly when: 'before' | 'after';
  readonly token: string;
  readonly requestedAt: string;
}

export interface RolloutRecord {
  readonly id: string;
  /** The spec as applied (validated on every use: the table can hold anything). */
  readonly spec: Readonly<Record<string, unknown>>;
  readonly generation: number;
  readonly version: number;
  /** Executions started for this generation: the first one and each resume. */
  readonly attempt: number;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly status?: RolloutStatus;
  readonly approval?: PendingApproval;
  readonly abortRequestedAt?: string;
  /** The execution running this generation (the latest attempt). */
  readonly executionArn?: string;
}

const text = str();
const whole = int();

const clusterShape = shape({ id: text, state: text });
const stageShape = shape({ name: text, state: text, clusters: listOf(clusterShape) });
const statusShape = shape({ phase: text, generation: whole, stages: listOf(stageShape) });

const itemShape = shape({
  id: str([isRecordId, 'must be <namespace>/<name> (two DNS labels)']),
  spec: mapOf(undefined),
  generation: int(atLeast(1)),
  version: int(atLeast(1)),
  attempt: int(atLeast(0)),
  createdAt: text,
  updatedAt: text,
  status: optional(statusShape),
  approval: optional(
    shape({ stage: text, when: oneOf(['before', 'after']), token: text, requestedAt: text }),
  ),
  abortRequestedAt: optional(text),
  executionArn: optional(text),
});

export type ParsedRollout = { ok: true; record: RolloutRecord } | { ok: false; reason: string };

export function parseRolloutItem(item: Readonly<Record<string, unknown>>): ParsedRollout {
  const [issue] = issuesOf(itemShape, item);
  if (!issue) return { ok: true, record: item as unknown as RolloutRecord };
  return { ok: false, reason: describeIssue(issue) };
}
