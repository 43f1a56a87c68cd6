/** Lambda entry of the state machine's `plan` step: pure, so it loads no AWS client at all. */
import { configurePureFromEnv } from '../handlers/env-config.js';
import { planStep } from '../handlers/steps/plan.js';
import { wrapStep } from '../handlers/steps/wrap.js';

configurePureFromEnv('plan');
export const handler = wrapStep('plan', planStep);
