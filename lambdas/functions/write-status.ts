/** Lambda entry of the state machine's `writeStatus` step (see statemachine/definition.ts). */
import { configureFromEnv } from '../handlers/env-deps.js';
import { wrapStep } from '../handlers/steps/wrap.js';
import { writeStatusStep } from '../handlers/steps/write-status.js';

configureFromEnv();
export const handler = wrapStep('writeStatus', writeStatusStep);
