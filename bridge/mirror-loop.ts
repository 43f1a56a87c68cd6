/**
 * The informer -> work queue -> mirror loop both kinds run (CloudCluster in app.ts, CloudRollout in
 * rollout-pipeline.ts): a changed key is mirrored; a failure becomes a Warning event on the object
 * (MirrorFailed) and the queue retries the key with backoff. The mirror reads the informer's cache,
 * so it is handed in as a function of the loop.
 */
import { describeError } from './api-errors.js';
import type { EventRecorder } from './events.js';
import { CloudClusterInformer } from './informer.js';
import type { CloudClusterApi, CloudClusterObject } from './kube.js';
import { WorkQueue } from './queue.js';

export interface MirrorLoop {
  readonly informer: CloudClusterInformer;
  readonly queue: WorkQueue;
  /** Queues every known object (leadership taken, resync). */
  everyKey(): void;
}

export function mirrorLoop<M extends { reconcile(key: string): Promise<string> }>(opts: {
  /** The kind, for the log lines. */
  readonly kind: 'CloudCluster' | 'CloudRollout';
  readonly api: CloudClusterApi;
  readonly events: EventRecorder;
  readonly log: (msg: string) => void;
  /** Builds the mirror; `cached` reads the loop's informer. */
  readonly mirror: (cached: (key: string) => CloudClusterObject | undefined) => M;
}): MirrorLoop & { readonly mirror: M } {
  const { kind, events, log } = opts;
  let informer: CloudClusterInformer | undefined;
  const mirror = opts.mirror((key) => informer?.get(key));
  const queue = new WorkQueue({
    work: async (key) => {
      try {
        const result = await mirror.reconcile(key);
        if (result !== 'mirrored') log(`${kind} ${key}: ${result}`);
      } catch (err) {
        const obj = informer?.get(key);
        if (obj)
          events.record(obj, {
            type: 'Warning',
            reason: 'MirrorFailed',
            action: 'Mirror',
            note: describeError(err),
          });
        throw err;
      }
    },
    log: (m) => log(`${kind} ${m}`),
  });
  const watched = new CloudClusterInformer({ api: opts.api, onChange: (key) => queue.add(key), log });
  informer = watched;
  return {
    informer: watched,
    queue,
    mirror,
    everyKey: () => {
      for (const key of watched.keys()) queue.add(key);
    },
  };
}
