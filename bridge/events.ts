/**
 * Kubernetes Events on CloudClusters, as events.k8s.io/v1 Events: the API client-go's current
 * recorder (`k8s.io/client-go/tools/events`, which controller-runtime uses since v0.23) writes; the
 * core/v1 recorder (`tools/record`) is the deprecated one. Deduplicated the same way: an event with
 * the same object, type, reason, action and note within {@link SERIES_WINDOW_MS} of the previous
 * one does not create a new Event; it bumps that Event's `series.count` and
 * `series.lastObservedTime`. Recording never blocks or fails the caller: writes run in the
 * background, one at a time per event, and a failed write is logged and dropped.
 */
import {
  EventsV1Api,
  type KubeConfig,
  PatchStrategy,
  setHeaderOptions,
  V1MicroTime,
} from '@kubernetes/client-node';
import { describeError, kubeStatusOf } from './api-errors.js';
import { sleep } from './retry.js';

/** What an Event is about: a CloudCluster, or the bridge's own Pod. */
export interface EventSubject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly uid: string;
    readonly resourceVersion?: string;
  };
}

export type EventType = 'Normal' | 'Warning';

export interface BridgeEvent {
  readonly type: EventType;
  /** UpperCamelCase, machine-readable: a condition reason or a failure kind. */
  readonly reason: string;
  /** What the bridge did or tried: `Mirror`, `WriteStatus`, `Validate`. */
  readonly action: string;
  readonly note: string;
}

/** Where the mirror reports events; `record` returns at once and never throws. */
export interface EventSink {
  record(obj: EventSubject, event: BridgeEvent): void;
}

export const NO_EVENTS: EventSink = { record: () => {} };

/** client-go's tools/events treats isomorphic events seen within 6 minutes as one series. */
export const SERIES_WINDOW_MS = 6 * 60_000;
const MAX_NOTE_BYTES = 1024; // the API server rejects a longer note
const MAX_CACHED = 4096;

interface Seen {
  readonly name: string;
  readonly namespace: string;
  count: number;
  lastObserved: number;
}

export interface RecorderOptions {
  readonly kc: KubeConfig;
  /** `reportingController`, e.g. `compute.cloudorch.io/bridge`. */
  readonly controller: string;
  /** `reportingInstance`: this replica. */
  readonly instance: string;
  readonly log: (m: string) => void;
  readonly clock?: () => number;
}

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

function truncateNote(note: string): string {
  if (Buffer.byteLength(note) <= MAX_NOTE_BYTES) return note;
  return `${Buffer.from(note)
    .subarray(0, MAX_NOTE_BYTES - 3)
    .toString('utf8')
    .replace(/\uFFFD$/, '')}...`;
}

export class EventRecorder implements EventSink {
  private readonly api: EventsV1Api;
  private readonly seen = new Map<string, Seen>();
  /** The write in flight per event key: writes of one key stay in order. */
  private readonly chains = new Map<string, Promise<void>>();
  private sequence = 0;

  constructor(private readonly opts: RecorderOptions) {
    this.api = opts.kc.makeApiClient(EventsV1Api);
  }

  record(obj: EventSubject, event: BridgeEvent): void {
    const e = { ...event, note: truncateNote(event.note) };
    const m = obj.metadata;
    const key = JSON.stringify([m.namespace, m.name, m.uid, e.type, e.reason, e.action, e.note]);
    const previous = this.chains.get(key) ?? Promise.resolve();
    const next = previous
      .then(() => this.write(key, obj, e))
      .catch((err: unknown) => {
        this.opts.log(
          `event ${e.reason} on CloudCluster ${m.namespace}/${m.name} dropped: ${describeError(err)}`,
        );
      })
      .finally(() => {
        if (this.chains.get(key) === next) this.chains.delete(key);
      });
    this.chains.set(key, next);
  }

  /**
   * Resolves when every write started so far has finished (tests, shutdown), or after `maxWaitMs`:
   * an API server that does not answer must not hold a shutdown.
   */
  async flush(maxWaitMs = 5_000): Promise<void> {
    const deadline = Date.now() + maxWaitMs;
    while (this.chains.size > 0 && Date.now() < deadline) {
      await Promise.race([Promise.all([...this.chains.values()]), sleep(deadline - Date.now())]);
    }
  }

  private now(): number {
    return this.opts.clock?.() ?? Date.now();
  }

  private async write(key: string, obj: EventSubject, e: BridgeEvent): Promise<void> {
    const now = this.now();
    const seen = this.seen.get(key);
    if (seen && now - seen.lastObserved <= SERIES_WINDOW_MS) {
      seen.count++;
      seen.lastObserved = now;
      try {
        await this.api.patchNamespacedEvent(
          {
            name: seen.name,
            namespace: seen.namespace,
            body: { series: { count: seen.count, lastObservedTime: new V1MicroTime(now).toISOString() } },
          },
          mergePatch,
        );
        return;
      } catch (err) {
        // The Event expired (the API server keeps them an hour): start a new one.
        if (kubeStatusOf(err)?.code !== 404) throw err;
      }
    }
    await this.create(key, obj, e, now);
  }

  private async create(key: string, obj: EventSubject, e: BridgeEvent, now: number): Promise<void> {
    const { namespace, name, uid, resourceVersion } = obj.metadata;
    // client-go names events `<object>.<unix nanos in hex>`; a counter keeps names unique per ms.
    const eventName = `${name}.${(BigInt(now) * 1_000_000n + BigInt(this.sequence++ % 1_000_000)).toString(16)}`;
    await this.api.createNamespacedEvent({
      namespace,
      body: {
        apiVersion: 'events.k8s.io/v1',
        kind: 'Event',
        metadata: { name: eventName, namespace },
        eventTime: new V1MicroTime(now),
        reportingController: this.opts.controller,
        reportingInstance: this.opts.instance,
        action: e.action,
        reason: e.reason,
        type: e.type,
        note: e.note,
        regarding: {
          apiVersion: obj.apiVersion,
          kind: obj.kind,
          namespace,
          name,
          uid,
          ...(resourceVersion ? { resourceVersion } : {}),
        },
      },
    });
    this.seen.delete(key);
    this.seen.set(key, { name: eventName, namespace, count: 1, lastObserved: now });
    // Oldest first in a Map: drop the oldest series once the cache is full.
    while (this.seen.size > MAX_CACHED) this.seen.delete(this.seen.keys().next().value as string);
  }
}
