/** Lambda entry of the Rollout machine's ApplyChange step: cluster specs to write, the rollout table. */
import { dynamoRollouts } from '../handlers/clients/rollouts.js';
import { dynamoStore } from '../handlers/clients/store.js';
import { composeFunction } from '../handlers/compose.js';
import { rolloutApplyStep } from '../handlers/rollout/apply.js';
import { wrapRolloutStep } from '../handlers/rollout/wrap.js';

composeFunction('rolloutApply', { store: dynamoStore, rollouts: dynamoRollouts });
export const handler = wrapRolloutStep('rolloutApply', rolloutApplyStep);
