/** Lambda entry of the state machine's `plan` step: pure, so it gets no client at all (see catalog.ts). */
import { composeFunction } from '../handlers/compose.js';
import { planStep } from '../handlers/steps/plan.js';
import { wrapStep } from '../handlers/steps/wrap.js';

composeFunction('plan', {});
export const handler = wrapStep('plan', planStep);
