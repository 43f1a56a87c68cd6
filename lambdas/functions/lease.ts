/** Lambda entry of the state machine's `lease` step (see statemachine/definition.ts). */
import { configureFromEnv } from '../handlers/env-deps.js';
import { leaseStep } from '../handlers/steps/lease.js';
import { wrapStep } from '../handlers/steps/wrap.js';

configureFromEnv();
export const handler = wrapStep('lease', leaseStep);
