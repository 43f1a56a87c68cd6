/**
 * Copies the pipeline's status from the record to the CR's `/status`: conditions (with generations
 * translated to the CR's), observedGeneration, observed state, estimated cost, remediation and
 * violations. `ready`/`synced` are not copied: the printer columns read the conditions. A patch is
 * sent only when something differs, conditional on the resourceVersion it was computed from.
 */
import type { Condition } from '../lambdas/core/conditions.js';
import type { ClusterStatus } from '../lambdas/core/status.js';
import { type BridgeEvent, type EventSink, NO_EVENTS } from './events.js';
import type { GenerationMap } from './generations.js';
import type { CloudClusterApi, CloudClusterObject } from './kube.js';

/** The `/status` fields the bridge owns. Anything else there is left alone. */
export const OWNED_FIELDS = [
  'conditions',
  'observedGeneration',
  'observed',
  'estimatedMonthlyCost',
  'remediation',
  'violations',
] as const;

export type CrStatus = Partial<Record<(typeof OWNED_FIELDS)[number], unknown>>;

/**
 * The CR status a record status maps to, or undefined while the record's status describes a
 * record generation the bridge cannot place (it then waits for the pipeline's next write).
 */
export function crStatusFor(
  status: ClusterStatus,
  translate: (recordGeneration: number) => number | undefined,
): CrStatus | undefined {
  const observedGeneration = translate(status.observedGeneration);
  if (observedGeneration === undefined) return undefined;
  const conditions = status.conditions.map((c: Condition) => {
    const g = translate(c.observedGeneration);
    const { observedGeneration: _record, ...rest } = c;
    return g === undefined ? rest : { ...rest, observedGeneration: g };
  });
  return {
    conditions,
    observedGeneration,
    ...(status.observed ? { observed: status.observed } : {}),
    ...(status.estimatedMonthlyCost !== undefined
      ? { estimatedMonthlyCost: status.estimatedMonthlyCost }
      : {}),
    ...(status.remediation ? { remediation: status.remediation } : {}),
    ...(status.violations ? { violations: status.violations } : {}),
  };
}

/** Canonical JSON (sorted keys) so equal content compares equal whatever the key order. */
function canonical(x: unknown): string {
  if (Array.isArray(x)) return `[${x.map(canonical).join(',')}]`;
  if (x && typeof x === 'object') {
    const entries = Object.entries(x as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(x);
}

/**
 * The merge patch from the CR's current status to `next`, or undefined when nothing differs.
 * `fields` are the ones the bridge owns on this kind (a CloudRollout owns others).
 */
export function statusPatch(
  current: Record<string, unknown> | undefined,
  next: Readonly<Record<string, unknown>>,
  fields: readonly string[] = OWNED_FIELDS,
): Record<string, unknown> | undefined {
  const patch: Record<string, unknown> = {};
  for (const field of fields) {
    const want = next[field];
    const have = current?.[field];
    if (want === undefined) {
      if (have !== undefined) patch[field] = null;
    } else if (canonical(want) !== canonical(have)) patch[field] = want;
  }
  return Object.keys(patch).length > 0 ? patch : undefined;
}

type ConditionLike = { type: string; status: string; reason?: string; message?: string };

function conditionsOf(x: unknown): ConditionLike[] {
  if (!Array.isArray(x)) return [];
  return x.filter(
    (c): c is ConditionLike =>
      typeof c === 'object' && c !== null && typeof c.type === 'string' && typeof c.status === 'string',
  );
}

/** A condition that is bad news when it is not in its good state (Drifted is good when False). */
const isBad = (c: ConditionLike) => (c.type === 'Drifted' ? c.status === 'True' : c.status === 'False');

/** One event per condition whose status or reason changed between two `/status` values. */
export function conditionTransitions(before: unknown, after: unknown): BridgeEvent[] {
  const old = new Map(conditionsOf(before).map((c) => [c.type, c]));
  return conditionsOf(after)
    .filter((c) => old.get(c.type)?.status !== c.status || old.get(c.type)?.reason !== c.reason)
    .map((c) => ({
      type: isBad(c) ? 'Warning' : 'Normal',
      reason: c.reason || c.type,
      action: 'WriteStatus',
      note: `${c.type} ${old.get(c.type)?.status ?? 'unset'} -> ${c.status}${c.message ? `: ${c.message}` : ''}`,
    }));
}

/** Patches `/status` and records an event per condition transition the patch made. */
export async function patchStatusWithEvents(
  api: CloudClusterApi,
  obj: CloudClusterObject,
  patch: Record<string, unknown>,
  events: EventSink,
): Promise<CloudClusterObject> {
  const written = await api.patchStatus(obj, patch);
  for (const e of conditionTransitions(obj.status?.['conditions'], written.status?.['conditions']))
    events.record(written, e);
  return written;
}

export type WritebackResult = 'written' | 'unchanged' | 'no-status' | 'unknown-generation';

/** One write-back attempt; a 409 surfaces to the caller, which re-reads and retries. */
export async function writeBack(
  api: CloudClusterApi,
  obj: CloudClusterObject,
  status: ClusterStatus | undefined,
  generations: GenerationMap,
  key: string,
  events: EventSink = NO_EVENTS,
): Promise<{ result: WritebackResult; object: CloudClusterObject }> {
  if (!status) return { result: 'no-status', object: obj };
  const next = crStatusFor(status, (g) => generations.crGeneration(key, obj.metadata.uid, g));
  if (!next) return { result: 'unknown-generation', object: obj };
  const patch = statusPatch(obj.status, next);
  if (!patch) return { result: 'unchanged', object: obj };
  return { result: 'written', object: await patchStatusWithEvents(api, obj, patch, events) };
}
