/** Lambda entry of the state machine's `apply` step: the store and EKS (see catalog.ts). */
import { eksWriter } from '../handlers/clients/eks-writer.js';
import { dynamoStore } from '../handlers/clients/store.js';
import { composeFunction } from '../handlers/compose.js';
import { applyStep } from '../handlers/steps/apply.js';
import { wrapStep } from '../handlers/steps/wrap.js';

composeFunction('apply', { store: dynamoStore, provider: eksWriter });
export const handler = wrapStep('apply', applyStep);
