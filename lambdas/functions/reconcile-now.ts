/** Lambda entry: "reconcile now" for one cluster. */
import { configureFromEnv } from '../handlers/env-deps.js';
import { withLogContext } from '../handlers/telemetry.js';
import { reconcileNow } from '../handlers/triggers/reconcile-now.js';

configureFromEnv();
export const handler = (event: { id: string }) =>
  withLogContext({ step: 'reconcile-now', clusterId: event.id }, () => reconcileNow(event));
