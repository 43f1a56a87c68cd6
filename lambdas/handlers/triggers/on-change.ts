/**
 * on-change: DynamoDB stream records. Reacts only to spec, generation or deletion changes, so the
 * reconciler's own status writes never retrigger it. Duplicates are absorbed by execution names.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { depsOf } from '../deps.js';
import { executionName } from '../execution-name.js';
import { emit, log, METRIC } from '../telemetry.js';

interface Image {
  id?: string;
  createdAt?: string;
  generation?: number;
  specHash?: string;
  deletionRequestedAt?: string;
}

function image(img: Record<string, unknown> | undefined): Image | undefined {
  return img ? (unmarshall(img as Record<string, AttributeValue>) as Image) : undefined;
}

/** What the change asks for, or nothing when only status (or the lease) changed. */
export function changeOf(
  r: DynamoDBRecord,
): { id: string; generation: number; trigger: 'change' | 'delete'; createdAt?: string } | undefined {
  if (r.eventName === 'REMOVE') return undefined;
  const next = image(r.dynamodb?.NewImage as Record<string, unknown> | undefined);
  const prev = image(r.dynamodb?.OldImage as Record<string, unknown> | undefined);
  if (!next?.id || next.generation === undefined) return undefined;
  const incarnation = typeof next.createdAt === 'string' ? { createdAt: next.createdAt } : {};
  if (next.deletionRequestedAt && !prev?.deletionRequestedAt)
    return { id: next.id, generation: next.generation, trigger: 'delete', ...incarnation };
  if (!prev || prev.generation !== next.generation || prev.specHash !== next.specHash)
    return { id: next.id, generation: next.generation, trigger: 'change', ...incarnation };
  return undefined;
}

export async function onChange(
  event: DynamoDBStreamEvent,
): Promise<{ started: number; absorbed: number; ignored: number }> {
  const { executions } = depsOf('onChange');
  let started = 0;
  let absorbed = 0;
  let ignored = 0;
  for (const r of event.Records) {
    const c = changeOf(r);
    if (!c) {
      ignored += 1;
      continue;
    }
    const res = await executions.start(executionName(c.id, c.generation, c.trigger, undefined, c.createdAt), {
      id: c.id,
      trigger: 'change',
    });
    if (res.started) {
      started += 1;
      emit(METRIC.ExecutionsStarted, 1, { Trigger: 'change' });
    } else absorbed += 1;
  }
  log().info('stream batch', { started, absorbed, ignored });
  return { started, absorbed, ignored };
}
