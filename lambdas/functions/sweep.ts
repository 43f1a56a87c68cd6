/**
 * Lambda entry: the scheduled sweep. The schedule passes `{segment, totalSegments}`; one Scheduler
 * target per segment lets a large table be swept by parallel Lambdas.
 */
import { eksProvider } from '../handlers/clients/eks.js';
import { sfnExecutions } from '../handlers/clients/sfn.js';
import { dynamoStore } from '../handlers/clients/store.js';
import { composeFunction, sweepSettings } from '../handlers/compose.js';
import { withLogContext } from '../handlers/telemetry.js';
import { sweep } from '../handlers/triggers/sweep.js';

composeFunction('sweep', { store: dynamoStore, provider: eksProvider, executions: sfnExecutions });

const settings = sweepSettings();

export const handler = (event: { segment?: number; totalSegments?: number }) =>
  withLogContext({ step: 'sweep' }, () =>
    sweep({
      segment: event.segment ?? 0,
      totalSegments: event.totalSegments ?? 1,
      ...settings,
    }),
  );
