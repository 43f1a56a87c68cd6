/**
 * on-change: DynamoDB stream records. Reacts only to spec, generation or deletion changes, so the
 * reconciler's own status writes never retrigger it. Duplicates are absorbed by execution names.
 * Such a change also cancels an execution's wait for approval of an older generation (its plan is
 * stale): that execution then reconciles the newest generation.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { APPROVAL_ERRORS } from '../contracts.js';
import { depsOf, type TaskCallbacks } from '../deps.js';
import { executionName } from '../execution-name.js';
import { emit, log, METRIC } from '../telemetry.js';

interface Image {
  id?: string;
  createdAt?: string;
  generation?: number;
  specHash?: string;
  deletionRequestedAt?: string;
  approval?: { token?: unknown; generation?: unknown };
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

type Change = NonNullable<ReturnType<typeof changeOf>>;

/** The pending wait this change makes stale, and why: the token to fail. */
export function staleWait(r: DynamoDBRecord, c: Change): { token: string; cause: string } | undefined {
  const a = image(r.dynamodb?.NewImage as Record<string, unknown> | undefined)?.approval;
  if (!a || typeof a.token !== 'string' || a.token === '' || typeof a.generation !== 'number')
    return undefined;
  if (c.trigger === 'delete')
    return { token: a.token, cause: `deletion was requested (the wait was for generation ${a.generation})` };
  if (c.generation !== a.generation)
    return { token: a.token, cause: `the spec changed to generation ${c.generation}` };
  return undefined;
}

/** Cancels the wait; one already over (answered, timed out) needs nothing. */
async function cancelWait(
  callbacks: Pick<TaskCallbacks, 'fail'>,
  id: string,
  wait: { token: string; cause: string },
): Promise<void> {
  const { open } = await callbacks.fail(wait.token, APPROVAL_ERRORS.cancelled, wait.cause);
  log().info('approval wait cancelled', { clusterId: id, cause: wait.cause, open });
}

export async function onChange(
  event: DynamoDBStreamEvent,
): Promise<{ started: number; absorbed: number; ignored: number }> {
  const { executions, callbacks } = depsOf('onChange');
  let started = 0;
  let absorbed = 0;
  let ignored = 0;
  for (const r of event.Records) {
    const c = changeOf(r);
    if (!c) {
      ignored += 1;
      continue;
    }
    const wait = staleWait(r, c);
    if (wait) await cancelWait(callbacks, c.id, wait);
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
