/** Lambda entry of the state machine's `apply` step (see statemachine/definition.ts). */
import { configureFromEnv } from '../handlers/env-deps.js';
import { applyStep } from '../handlers/steps/apply.js';
import { wrapStep } from '../handlers/steps/wrap.js';

configureFromEnv();
export const handler = wrapStep('apply', applyStep);
