/**
 * The CloudRollout pipeline: its own informer -> work queue -> rollout mirror, beside the
 * CloudCluster one, writing to the rollout table and starting Rollout executions. It writes only
 * while the replica leads, like the CloudCluster queue (app.ts starts and pauses both).
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { SFNClient } from '@aws-sdk/client-sfn';
import type { KubeConfig } from '@kubernetes/client-node';
import { InternalError } from '../lambdas/core/errors.js';
import type { RolloutControl } from '../lambdas/handlers/rollout/control.js';
import { DynamoRolloutStore } from '../lambdas/store/rollouts.js';
import { ROLLOUT_PLURAL } from './constants.js';
import type { EventRecorder } from './events.js';
import type { BridgeFlags } from './flags.js';
import { GenerationMap } from './generations.js';
import type { CloudClusterInformer } from './informer.js';
import { CloudClusterApi } from './kube.js';
import { mirrorLoop } from './mirror-loop.js';
import type { WorkQueue } from './queue.js';
import { RolloutMirror } from './rollout-mirror.js';

export interface RolloutPipeline {
  readonly informer: CloudClusterInformer;
  readonly queue: WorkQueue;
  readonly mirror: RolloutMirror;
  readonly store: DynamoRolloutStore;
  /** Queues every known CloudRollout (leadership taken, resync). */
  everyKey(): void;
}

export function rolloutPipeline(opts: {
  readonly flags: BridgeFlags;
  readonly kc: KubeConfig;
  readonly dynamo: DynamoDBClient;
  readonly sfn: SFNClient;
  readonly events: EventRecorder;
  readonly log: (msg: string) => void;
  readonly clock?: () => Date;
}): RolloutPipeline {
  const { flags, events, log } = opts;
  const api = new CloudClusterApi(opts.kc, flags.watchNamespace, ROLLOUT_PLURAL);
  const store = new DynamoRolloutStore(opts.dynamo, flags.rolloutTableName);
  const control: RolloutControl = {
    rollouts: store,
    sfn: opts.sfn,
    stateMachineArn: flags.rolloutStateMachineArn,
    now: opts.clock ?? (() => new Date()),
    // Only resume reconciles clusters, and the bridge never resumes: that stays a human's call.
    reconcile: async () => {
      throw new InternalError('the bridge does not resume rollouts');
    },
  };
  const loop = mirrorLoop({
    kind: 'CloudRollout',
    api,
    events,
    log,
    mirror: (cached) => new RolloutMirror({ api, control, generations: new GenerationMap(), cached, events }),
  });
  return { ...loop, store };
}
