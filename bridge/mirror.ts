/**
 * Mirrors one CloudCluster into its DynamoDB record and back. Level-triggered: each call reads the
 * current object and record and does what is left, so running it twice changes nothing.
 * - A live CR gets the finalizer, then its validated spec is written to record `<namespace>/<name>`,
 *   conditional on the record version just read; then the record's status is written back.
 * - A deleted CR gets its record's deletion requested; the finalizer is removed only when the record
 *   is gone (the pipeline released it after the cluster was deleted) or its policy is Retain.
 * Conflicts (409 from the API server, ConflictError from the store) are retried at once with backoff
 * against a fresh read; anything else goes back to the work queue, which retries later.
 */
import type { Condition } from '../lambdas/core/conditions.js';
import { validateLabels } from '../lambdas/core/labels.js';
import { formatIssues, validateSpec } from '../lambdas/core/spec/validate.js';
import { applyOutcome, type Outcome } from '../lambdas/core/status.js';
import {
  ConflictError,
  RecordInvalidError,
  RecordNotFoundError,
  TargetChangeError,
  TargetClaimedError,
} from '../lambdas/store/errors.js';
import type { DesiredStateStore } from '../lambdas/store/types.js';
import { FINALIZER } from './constants.js';
import { type EventSink, NO_EVENTS } from './events.js';
import type { GenerationMap } from './generations.js';
import { type CloudClusterApi, type CloudClusterObject, isConflict } from './kube.js';
import { type BackoffOptions, withRetry } from './retry.js';
import { crStatusFor, patchStatusWithEvents, statusPatch, writeBack } from './status-writeback.js';

export type MirrorResult =
  | 'absent'
  | 'mirrored'
  | 'invalid'
  | 'stale'
  | 'deleting'
  | 'finalizer-removed'
  | 'not-ours';

/** Called right before each write; tests use it to race a real concurrent change in. */
export type BeforeWrite = (key: string, write: 'finalizer' | 'spec' | 'status') => Promise<void>;

export interface MirrorOptions {
  readonly api: CloudClusterApi;
  readonly store: DesiredStateStore;
  readonly generations: GenerationMap;
  /** The informer's cached object for a key. */
  readonly cached: (key: string) => CloudClusterObject | undefined;
  readonly conflictBackoff?: BackoffOptions;
  readonly beforeWrite?: BeforeWrite;
  readonly clock?: () => Date;
  /** Condition transitions and refusals become Events on the CR; never awaited. */
  readonly events?: EventSink;
}

const isMirrorConflict = (err: unknown): boolean => isConflict(err) || err instanceof ConflictError;

export class Mirror {
  constructor(private readonly opts: MirrorOptions) {}

  async reconcile(key: string): Promise<MirrorResult> {
    const cached = this.opts.cached(key);
    if (!cached) {
      this.opts.generations.forget(key);
      return 'absent';
    }
    return withRetry(
      `mirror ${key}`,
      async (attempt) => {
        // After a conflict the cache may lag: read the object itself.
        const obj = attempt === 0 ? cached : await this.opts.api.current(cached);
        return obj ? this.once(key, obj) : 'absent';
      },
      {
        retryable: isMirrorConflict,
        ...(this.opts.conflictBackoff ? { backoff: this.opts.conflictBackoff } : {}),
      },
    );
  }

  private async before(key: string, write: 'finalizer' | 'spec' | 'status'): Promise<void> {
    await this.opts.beforeWrite?.(key, write);
  }

  private async once(key: string, initial: CloudClusterObject): Promise<MirrorResult> {
    const { api, store, generations } = this.opts;
    let obj = initial;
    const finalizers = obj.metadata.finalizers ?? [];
    if (obj.metadata.deletionTimestamp) return this.deletion(key, obj);
    if (!finalizers.includes(FINALIZER)) {
      await this.before(key, 'finalizer');
      obj = await api.setFinalizers(obj, [...finalizers, FINALIZER]);
    }
    const v = validateSpec(obj.spec);
    if (!v.ok) return this.refused(key, obj, { kind: 'SpecInvalid', message: formatIssues(v.issues) });
    // The API server enforces the same label rules; checked again, as for every other input.
    const l = validateLabels(obj.metadata.labels ?? {});
    if (!l.ok)
      return this.refused(key, obj, {
        kind: 'SpecInvalid',
        message: l.issues.map((i) => `${i.field}: ${i.message}`).join('; '),
      });
    // A cached object older than one already mirrored must not roll the record back.
    const latest = generations.latest(key, obj.metadata.uid);
    if (latest && latest.crGeneration > obj.metadata.generation) return 'stale';
    let applied: Awaited<ReturnType<typeof store.applySpec>>;
    try {
      const record = await store.get(key);
      await this.before(key, 'spec');
      // Labels ride along: a label-only change writes them and bumps no generation.
      applied = await store.applySpec(key, v.spec, {
        expectedVersion: record?.version ?? 0,
        labels: l.labels,
      });
    } catch (err) {
      // Only this CR is affected, and it says why; the rest of the fleet carries on.
      if (err instanceof RecordInvalidError)
        return this.refused(key, obj, { kind: 'RecordInvalid', message: err.reason });
      if (err instanceof TargetClaimedError)
        return this.refused(key, obj, {
          kind: 'Impossible',
          ownership: 'TargetClaimed',
          message: err.message,
          remediation: `Use a different clusterName, or delete record ${err.holder} first.`,
        });
      if (err instanceof TargetChangeError)
        return this.refused(key, obj, {
          kind: 'Impossible',
          message: err.message,
          remediation:
            'Restore the previous clusterName and region, or delete this CloudCluster (deletionPolicy Retain keeps the cluster) and create a new one.',
        });
      throw err;
    }
    generations.note(key, obj.metadata.uid, {
      recordGeneration: applied.record.generation,
      crGeneration: obj.metadata.generation,
    });
    await this.before(key, 'status');
    await writeBack(api, obj, applied.record.status, generations, key, this.events());
    return 'mirrored';
  }

  private async deletion(key: string, obj: CloudClusterObject): Promise<MirrorResult> {
    const { api, store, generations } = this.opts;
    const finalizers = obj.metadata.finalizers ?? [];
    if (!finalizers.includes(FINALIZER)) return 'not-ours';
    try {
      await store.requestDeletion(key, this.now());
    } catch (err) {
      if (!(err instanceof RecordNotFoundError)) throw err;
    }
    const record = await store.get(key);
    if (record && record.spec.deletionPolicy !== 'Retain') {
      // Still deleting: show the pipeline's progress; the resync brings this key back.
      await this.before(key, 'status');
      await writeBack(api, obj, record.status, generations, key, this.events());
      return 'deleting';
    }
    await this.before(key, 'finalizer');
    await api.setFinalizers(
      obj,
      finalizers.filter((f) => f !== FINALIZER),
    );
    generations.forget(key);
    return 'finalizer-removed';
  }

  /** The webhook normally stops these; without it (or with failurePolicy Ignore) the CR says why. */
  private async refused(key: string, obj: CloudClusterObject, outcome: Outcome): Promise<MirrorResult> {
    const reason = outcome.kind === 'Impossible' ? (outcome.ownership ?? 'ImpossibleChange') : outcome.kind;
    this.events().record(obj, {
      type: 'Warning',
      reason,
      action: 'Mirror',
      note: 'message' in outcome ? outcome.message : reason,
    });
    const g = obj.metadata.generation;
    // The CR's own conditions are the previous state, so lastTransitionTime only moves on a flip.
    const conditions = Array.isArray(obj.status?.['conditions'])
      ? (obj.status['conditions'] as Condition[])
      : [];
    const prev = { conditions, observedGeneration: g, ready: false, synced: false, updatedAt: '' };
    const status = applyOutcome(prev, outcome, { generation: g, now: this.now() });
    const next = crStatusFor(status, (x) => x);
    const patch = next && statusPatch(obj.status, next);
    if (patch) {
      await this.before(key, 'status');
      await patchStatusWithEvents(this.opts.api, obj, patch, this.events());
    }
    return 'invalid';
  }

  private events(): EventSink {
    return this.opts.events ?? NO_EVENTS;
  }

  private now(): Date {
    return this.opts.clock?.() ?? new Date();
  }
}
