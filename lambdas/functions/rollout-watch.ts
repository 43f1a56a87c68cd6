/** Lambda entry of the Rollout machine's Watch step: cluster records, the rollout table, alarms. */
import { cloudWatchAlarms } from '../handlers/clients/alarms.js';
import { dynamoRollouts } from '../handlers/clients/rollouts.js';
import { dynamoStore } from '../handlers/clients/store.js';
import { composeFunction } from '../handlers/compose.js';
import { rolloutWatchStep } from '../handlers/rollout/watch.js';
import { wrapRolloutStep } from '../handlers/rollout/wrap.js';

composeFunction('rolloutWatch', { store: dynamoStore, rollouts: dynamoRollouts, alarms: cloudWatchAlarms });
export const handler = wrapRolloutStep('rolloutWatch', rolloutWatchStep);
