/** Lambda entry of the state machine's `classifyError` step: pure, so it gets no client at all (see catalog.ts). */
import { composeFunction } from '../handlers/compose.js';
import { classifyErrorStep } from '../handlers/steps/classify-error.js';
import { wrapStep } from '../handlers/steps/wrap.js';

composeFunction('classifyError', {});
export const handler = wrapStep('classifyError', classifyErrorStep);
