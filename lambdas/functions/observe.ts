/** Lambda entry of the state machine's `observe` step: the store and EKS (see catalog.ts). */
import { eksReader } from '../handlers/clients/eks-reader.js';
import { dynamoStore } from '../handlers/clients/store.js';
import { composeFunction } from '../handlers/compose.js';
import { observeStep } from '../handlers/steps/observe.js';
import { wrapStep } from '../handlers/steps/wrap.js';

composeFunction('observe', { store: dynamoStore, provider: eksReader });
export const handler = wrapStep('observe', observeStep);
