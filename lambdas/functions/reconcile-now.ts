/** Lambda entry: "reconcile now" for one cluster. */
import { sfnExecutions } from '../handlers/clients/sfn.js';
import { dynamoStore } from '../handlers/clients/store.js';
import { composeFunction } from '../handlers/compose.js';
import { withLogContext } from '../handlers/telemetry.js';
import { reconcileNow } from '../handlers/triggers/reconcile-now.js';

composeFunction('reconcileNow', { store: dynamoStore, executions: sfnExecutions });
export const handler = (event: { id: string }) =>
  withLogContext({ step: 'reconcile-now', clusterId: event.id }, () => reconcileNow(event));
