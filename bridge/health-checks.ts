/**
 * What each health endpoint checks. The webhook's readiness needs only the schema and the policy
 * bundle, so DynamoDB, the watch and the Lease are the mirror's health, never the webhook's: a
 * DynamoDB outage leaves admission working while `/readyz/mirror` says why nothing is mirrored.
 */
import type { PolicyEngine } from '../lambdas/policy/index.js';
import type { RolloutStore } from '../lambdas/store/rollouts.js';
import type { DesiredStateStore } from '../lambdas/store/types.js';
import type { HealthChecks } from './health.js';
import type { CloudClusterInformer } from './informer.js';
import type { LeaderElector } from './leader.js';

/** Read only to answer health: a GetItem that proves the table answers with our permissions. */
const PROBE_ID = 'cloudorch-bridge/readiness-probe';

export interface CheckSources {
  readonly webhookListening: () => boolean;
  readonly watch: () => ReturnType<CloudClusterInformer['health']> | undefined;
  readonly store: DesiredStateStore;
  /** The CloudRollout watch and the rollout table, checked the same way. */
  readonly rolloutWatch: () => ReturnType<CloudClusterInformer['health']> | undefined;
  readonly rolloutStore: Pick<RolloutStore, 'get'>;
  readonly engine: PolicyEngine;
  /** Undefined without leader election. */
  readonly elector: () => LeaderElector | undefined;
}

function watchProblem(
  what: string,
  h: ReturnType<CloudClusterInformer['health']> | undefined,
): string | undefined {
  if (!h?.synced) return `${what} not listed yet${h?.lastError ? `: ${h.lastError}` : ''}`;
  return h.watching ? undefined : `watch is reconnecting${h.lastError ? `: ${h.lastError}` : ''}`;
}

export function healthChecks(src: CheckSources): HealthChecks {
  return {
    live: {
      webhook: () => (src.webhookListening() ? undefined : 'webhook server is not listening'),
    },
    ready: {
      policy: () => {
        const h = src.engine.health();
        return h.status === 'ok' ? undefined : `policy bundle not loaded: ${h.reason ?? 'unknown'}`;
      },
    },
    mirror: {
      watch: () => watchProblem('cloudclusters', src.watch()),
      dynamodb: async () => {
        await src.store.get(PROBE_ID);
        return undefined;
      },
      'rollout-watch': () => watchProblem('cloudrollouts', src.rolloutWatch()),
      'rollout-table': async () => {
        await src.rolloutStore.get(PROBE_ID);
        return undefined;
      },
      // A follower is healthy; a replica whose election keeps failing can never mirror.
      leader: () => src.elector()?.health(),
    },
  };
}
