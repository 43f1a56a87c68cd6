/**
 * Mirrors one CloudRollout into the rollout table and back. Level-triggered like the CloudCluster
 * mirror: each call reads the object and the record and does what is left.
 * - A valid spec is written with RolloutStore.put (a changed spec is a new rollout generation),
 *   unless the stored rollout is still going (planned, not Completed or Aborted) and the spec
 *   differs: that is refused on the CR, as the CLI refuses it: abort it first.
 * - A generation no execution has planned yet gets one: startRollout, whose execution name (id,
 *   generation, attempt) makes a repeated start the same execution.
 * - The record's progress is written to `/status` when it differs.
 * A deleted CloudRollout is not acted on: no finalizer, the record and its execution stay as they
 * are (see docs/bridge.md). Deleting a CR must never be what stops or changes clusters.
 */

import { ExecutionAlreadyExists } from '@aws-sdk/client-sfn';
import { isRecordId } from '../lambdas/core/record-id.js';
import { validateRolloutSpec } from '../lambdas/core/rollout/schema.js';
import { formatIssues } from '../lambdas/core/spec/validate.js';
import { type RolloutControl, startRollout } from '../lambdas/handlers/rollout/control.js';
import { RecordInvalidError } from '../lambdas/store/errors.js';
import type { RolloutRecord } from '../lambdas/store/rollouts.js';
import { canonicalJson } from '../lambdas/store/spec-hash.js';
import { type EventSink, NO_EVENTS } from './events.js';
import type { GenerationMap } from './generations.js';
import { type CloudClusterApi, type CloudClusterObject, isConflict } from './kube.js';
import { type BackoffOptions, withRetry } from './retry.js';
import { ROLLOUT_NAME_RULE } from './rollout-admission.js';
import {
  approveCommand,
  isActive,
  ROLLOUT_OWNED_FIELDS,
  RolloutReason,
  rolloutCrStatus,
  type SyncedCondition,
  syncedCondition,
} from './rollout-status.js';
import { statusPatch } from './status-writeback.js';

export type RolloutMirrorResult = 'absent' | 'deleting' | 'mirrored' | 'started' | 'refused' | 'stale';

export interface RolloutMirrorOptions {
  /** The CloudRollout API (CloudClusterApi on the cloudrollouts resource). */
  readonly api: CloudClusterApi;
  /** The rollout store, the Step Functions client and the Rollout machine's ARN. */
  readonly control: RolloutControl;
  readonly generations: GenerationMap;
  readonly cached: (key: string) => CloudClusterObject | undefined;
  readonly conflictBackoff?: BackoffOptions;
  readonly events?: EventSink;
}

type Refusal = { reason: RolloutReason; message: string };

const isObj = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

/** No execution has planned this generation (put starts a new generation without a status). */
const unplanned = (r: RolloutRecord): boolean => r.status?.generation !== r.generation;

export class RolloutMirror {
  /** Executions this process started (or found started), by key: `<uid>/g<generation>/a<attempt>`. */
  private readonly started = new Map<string, string>();

  constructor(private readonly opts: RolloutMirrorOptions) {}

  async reconcile(key: string): Promise<RolloutMirrorResult> {
    const cached = this.opts.cached(key);
    if (!cached) {
      this.opts.generations.forget(key);
      this.started.delete(key);
      return 'absent';
    }
    return withRetry(
      `mirror rollout ${key}`,
      async (attempt) => {
        const obj = attempt === 0 ? cached : await this.opts.api.current(cached);
        return obj ? this.once(key, obj) : 'absent';
      },
      { retryable: isConflict, ...(this.opts.conflictBackoff ? { backoff: this.opts.conflictBackoff } : {}) },
    );
  }

  private async once(key: string, obj: CloudClusterObject): Promise<RolloutMirrorResult> {
    if (obj.metadata.deletionTimestamp) return 'deleting';
    // A cached object older than one already mirrored must not roll the record back.
    const latest = this.opts.generations.latest(key, obj.metadata.uid);
    if (latest && latest.crGeneration > obj.metadata.generation) return 'stale';
    const { rollouts, now } = this.opts.control;
    let record: RolloutRecord | undefined;
    try {
      // An id the store cannot hold is refused before anything is written under it.
      if (!isRecordId(key))
        return this.refuse(obj, undefined, { reason: RolloutReason.SpecInvalid, message: ROLLOUT_NAME_RULE });
      record = await rollouts.get(key);
      const v = validateRolloutSpec(obj.spec);
      // The progress stays on the CR whatever its spec says: the record still runs.
      if (!v.ok || !isObj(obj.spec))
        return this.refuse(obj, record, {
          reason: RolloutReason.SpecInvalid,
          message: v.ok ? 'spec must be a mapping' : formatIssues(v.issues),
        });
      // The same comparison put makes: a spec it would call changed is a new generation.
      if (record && isActive(record) && canonicalJson(record.spec) !== canonicalJson(obj.spec))
        return this.refuse(obj, record, running(key, record));
      record = (await rollouts.put(key, obj.spec, now())).record;
    } catch (err) {
      if (err instanceof RecordInvalidError)
        return this.refuse(obj, undefined, { reason: RolloutReason.RecordInvalid, message: err.reason });
      throw err;
    }
    this.opts.generations.note(key, obj.metadata.uid, {
      recordGeneration: record.generation,
      crGeneration: obj.metadata.generation,
    });
    const started = unplanned(record) ? await this.start(key, obj, record) : false;
    const message = `the rollout record holds this spec as rollout generation ${record.generation}`;
    await this.writeStatus(obj, record, { status: 'True', reason: RolloutReason.Mirrored, message });
    return started ? 'started' : 'mirrored';
  }

  /**
   * Starts the generation's execution, once per process; true when this call started it. An
   * execution of that name that already ended counts as started: an attempt is never run twice.
   */
  private async start(key: string, obj: CloudClusterObject, record: RolloutRecord): Promise<boolean> {
    const mark = `${obj.metadata.uid}/g${record.generation}/a${record.attempt}`;
    if (this.started.get(key) === mark) return false;
    try {
      const { executionArn } = await startRollout(this.opts.control, key);
      this.started.set(key, mark);
      this.events().record(obj, {
        type: 'Normal',
        reason: 'RolloutStarted',
        action: 'Mirror',
        note: `started ${executionArn} for rollout generation ${record.generation}`,
      });
      return true;
    } catch (err) {
      if (!(err instanceof ExecutionAlreadyExists)) throw err;
      this.started.set(key, mark);
      return false;
    }
  }

  private async refuse(
    obj: CloudClusterObject,
    record: RolloutRecord | undefined,
    refusal: Refusal,
  ): Promise<RolloutMirrorResult> {
    this.events().record(obj, {
      type: 'Warning',
      reason: refusal.reason,
      action: 'Mirror',
      note: refusal.message,
    });
    await this.writeStatus(obj, record, { status: 'False', ...refusal });
    return 'refused';
  }

  /** Patches `/status` when it differs; an Event per phase change, with the approve command. */
  private async writeStatus(
    obj: CloudClusterObject,
    record: RolloutRecord | undefined,
    condition: Omit<SyncedCondition, 'type' | 'lastTransitionTime' | 'observedGeneration'>,
  ): Promise<void> {
    const key = `${obj.metadata.namespace}/${obj.metadata.name}`;
    const synced = syncedCondition(
      obj.status?.['conditions'],
      { ...condition, observedGeneration: obj.metadata.generation },
      this.opts.control.now(),
    );
    const observed = record && this.opts.generations.crGeneration(key, obj.metadata.uid, record.generation);
    const next = rolloutCrStatus(record, synced, observed);
    const patch = statusPatch(obj.status, next, ROLLOUT_OWNED_FIELDS);
    if (!patch) return;
    const written = await this.opts.api.patchStatus(obj, patch);
    const phase = written.status?.['phase'];
    if (typeof phase === 'string' && phase !== obj.status?.['phase'])
      this.events().record(written, {
        type: phase === 'Halted' ? 'Warning' : 'Normal',
        reason: `Rollout${phase}`,
        action: 'WriteStatus',
        note: phaseNote(key, phase, record),
      });
  }

  private events(): EventSink {
    return this.opts.events ?? NO_EVENTS;
  }
}

function running(key: string, r: RolloutRecord): Refusal {
  return {
    reason: RolloutReason.RolloutRunning,
    message: `rollout ${key} is ${r.status?.phase ?? 'running'} at generation ${r.generation}: its spec cannot change while it runs; abort it first (cloudorch rollout abort ${key}), then the new spec is mirrored as the next generation`,
  };
}

function phaseNote(key: string, phase: string, r: RolloutRecord | undefined): string {
  if (phase === 'AwaitingApproval' && r?.approval)
    return `waits for approval ${r.approval.when} stage ${r.approval.stage}: ${approveCommand(key, r.approval.stage)}`;
  if (phase === 'Halted' && r?.status?.halt)
    return `halted: ${r.status.halt.cluster ? `${r.status.halt.cluster}: ` : ''}${r.status.halt.reason}`;
  return `rollout ${key} is ${phase}`;
}
