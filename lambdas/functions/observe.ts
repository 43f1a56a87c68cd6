/** Lambda entry of the state machine's `observe` step (see statemachine/definition.ts). */
import { configureFromEnv } from '../handlers/env-deps.js';
import { observeStep } from '../handlers/steps/observe.js';
import { wrapStep } from '../handlers/steps/wrap.js';

configureFromEnv();
export const handler = wrapStep('observe', observeStep);
