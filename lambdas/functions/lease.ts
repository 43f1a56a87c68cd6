/**
 * Lambda entry of the state machine's `lease` step: the store, and Step Functions to ask whether a
 * holder's execution still runs (see catalog.ts).
 */
import { lazySfnExecutions } from '../handlers/clients/sfn-at-first-call.js';
import { dynamoStore } from '../handlers/clients/store.js';
import { composeFunction } from '../handlers/compose.js';
import { leaseStep } from '../handlers/steps/lease.js';
import { wrapStep } from '../handlers/steps/wrap.js';

composeFunction('lease', { store: dynamoStore, executions: lazySfnExecutions });
export const handler = wrapStep('lease', leaseStep);
