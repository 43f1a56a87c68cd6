/**
 * Parses one stored rollout item, or says why it cannot: anyone with table access can write items,
 * and a rollout function must never act on a half-understood record. Only what the functions rely on
 * is checked; unknown extra attributes are kept for a newer writer.
 */
import '../core/zod-locale.js';
import * as z from 'zod/mini';
import { isRecordId } from '../core/record-id.js';
import type { RolloutStatus } from '../core/rollout/status.js';

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

const str = z.string();
const int = z.int();

const clusterSchema = z.looseObject({ id: str, state: str });
const stageSchema = z.looseObject({ name: str, state: str, clusters: z.array(clusterSchema) });
const statusSchema = z.looseObject({ phase: str, generation: int, stages: z.array(stageSchema) });

const itemSchema = z.looseObject({
  id: str.check(z.refine(isRecordId, 'must be <namespace>/<name> (two DNS labels)')),
  spec: z.record(str, z.unknown()),
  generation: int.check(z.minimum(1)),
  version: int.check(z.minimum(1)),
  attempt: int.check(z.minimum(0)),
  createdAt: str,
  updatedAt: str,
  status: z.optional(statusSchema),
  approval: z.optional(
    z.looseObject({ stage: str, when: z.enum(['before', 'after']), token: str, requestedAt: str }),
  ),
  abortRequestedAt: z.optional(str),
  executionArn: z.optional(str),
});

export type ParsedRollout = { ok: true; record: RolloutRecord } | { ok: false; reason: string };

export function parseRolloutItem(item: Readonly<Record<string, unknown>>): ParsedRollout {
  const r = itemSchema.safeParse(item);
  if (r.success) return { ok: true, record: r.data as unknown as RolloutRecord };
  const issue = r.error.issues[0];
  const path = issue?.path.map(String).join('.') || '(item)';
  return { ok: false, reason: `${path}: ${issue?.message ?? 'does not parse'}` };
}
