/**
 * Lambda entry: the scheduled sweep dispatcher. The schedule passes `{segment, totalSegments}`; one
 * Scheduler target per segment lets a large table be scanned by parallel Lambdas.
 */
import { lambdaShardInvoker } from '../handlers/clients/lambda.js';
import { dynamoStore } from '../handlers/clients/store.js';
import { composeFunction, sweepSettings } from '../handlers/compose.js';
import { withLogContext } from '../handlers/telemetry.js';
import { sweep } from '../handlers/triggers/sweep.js';

composeFunction('sweep', { store: dynamoStore, shardInvoker: lambdaShardInvoker });

const { periodSeconds } = sweepSettings();

export const handler = (
  event: { segment?: number; totalSegments?: number },
  context?: { getRemainingTimeInMillis?: () => number },
) =>
  withLogContext({ step: 'sweep' }, () =>
    sweep({
      segment: event.segment ?? 0,
      totalSegments: event.totalSegments ?? 1,
      periodSeconds,
      // Lambda's clock for this invocation: no run is handed over once too little of it is left.
      ...(context?.getRemainingTimeInMillis
        ? { remainingMs: () => context.getRemainingTimeInMillis?.() ?? 0 }
        : {}),
    }),
  );
