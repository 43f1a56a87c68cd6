/** Lambda entry of the state machine's `classifyError` step: pure, so it loads no AWS client at all. */
import { configurePureFromEnv } from '../handlers/env-config.js';
import { classifyErrorStep } from '../handlers/steps/classify-error.js';
import { wrapStep } from '../handlers/steps/wrap.js';

configurePureFromEnv('classifyError');
export const handler = wrapStep('classifyError', classifyErrorStep);
