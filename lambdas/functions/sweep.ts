/**
 * Lambda entry: the scheduled sweep. The schedule passes `{segment, totalSegments}`; one Scheduler
 * target per segment lets a large table be swept by parallel Lambdas.
 */
import { ENV, SETTING_DEFAULTS } from '../config.js';
import { eksProvider } from '../handlers/clients/eks.js';
import { sfnExecutions } from '../handlers/clients/sfn.js';
import { dynamoStore } from '../handlers/clients/store.js';
import { composeFunction } from '../handlers/compose.js';
import { withLogContext } from '../handlers/telemetry.js';
import { sweep } from '../handlers/triggers/sweep.js';

composeFunction('sweep', { store: dynamoStore, provider: eksProvider, executions: sfnExecutions });

const num = (name: string, fallback: number) => {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : fallback;
};

export const handler = (event: { segment?: number; totalSegments?: number }) =>
  withLogContext({ step: 'sweep' }, () =>
    sweep({
      segment: event.segment ?? 0,
      totalSegments: event.totalSegments ?? 1,
      periodSeconds: num(ENV.sweepPeriod, SETTING_DEFAULTS.sweepPeriodSeconds),
      concurrency: num(ENV.sweepConcurrency, SETTING_DEFAULTS.sweepConcurrency),
    }),
  );
