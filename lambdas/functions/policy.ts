/** Lambda entry of the state machine's `policy` step (see statemachine/definition.ts). */
import { configureFromEnv } from '../handlers/env-deps.js';
import { policyStep } from '../handlers/steps/policy.js';
import { wrapStep } from '../handlers/steps/wrap.js';

configureFromEnv();
export const handler = wrapStep('policy', policyStep);
