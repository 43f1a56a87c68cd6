/** Lambda entry of the state machine's `lease` step (see statemachine/definition.ts). */
import { configureFromEnv } from '../handlers/env-deps.js';
import { runStep } from '../handlers/steps/index.js';

configureFromEnv();
export const handler = runStep('lease');
