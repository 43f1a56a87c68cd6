/** Lambda entry of the Rollout machine's Plan step: cluster records to read, the rollout table. */
import { dynamoRollouts } from '../handlers/clients/rollouts.js';
import { dynamoStore } from '../handlers/clients/store.js';
import { composeFunction } from '../handlers/compose.js';
import { rolloutPlanStep } from '../handlers/rollout/plan.js';
import { wrapRolloutStep } from '../handlers/rollout/wrap.js';

composeFunction('rolloutPlan', { store: dynamoStore, rollouts: dynamoRollouts });
export const handler = wrapRolloutStep('rolloutPlan', rolloutPlanStep);
