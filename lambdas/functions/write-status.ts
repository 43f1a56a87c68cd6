/** Lambda entry of the state machine's `writeStatus` step: the store only (see catalog.ts). */
import { dynamoStore } from '../handlers/clients/store.js';
import { composeFunction } from '../handlers/compose.js';
import { statusStep } from '../handlers/steps/approval.js';
import { wrapStep } from '../handlers/steps/wrap.js';

composeFunction('writeStatus', { store: dynamoStore });
export const handler = wrapStep('writeStatus', statusStep);
