/** Lambda entry of the state machine's `policy` step: the policy engine only (see catalog.ts). */
import { wasmPolicy } from '../handlers/clients/policy.js';
import { composeFunction } from '../handlers/compose.js';
import { policyStep } from '../handlers/steps/policy.js';
import { wrapStep } from '../handlers/steps/wrap.js';

composeFunction('policy', { policy: wasmPolicy });
export const handler = wrapStep('policy', policyStep);
