/** Lambda entry of the state machine's `writeStatus` step: the store only (see catalog.ts). */
import { dynamoStore } from '../handlers/clients/store.js';
import { composeFunction } from '../handlers/compose.js';
import { wrapStep } from '../handlers/steps/wrap.js';
import { writeStatusStep } from '../handlers/steps/write-status.js';

composeFunction('writeStatus', { store: dynamoStore });
export const handler = wrapStep('writeStatus', writeStatusStep);
