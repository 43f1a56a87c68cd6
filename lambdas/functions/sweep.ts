/**
 * Lambda entry: the scheduled sweep. The schedule passes `{segment, totalSegments}`; one Scheduler
 * target per segment lets a large table be swept by parallel Lambdas.
 */
import { configureFromEnv } from '../handlers/env-deps.js';
import { withLogContext } from '../handlers/telemetry.js';
import { sweep } from '../handlers/triggers/sweep.js';

configureFromEnv();

const num = (name: string, fallback: number) => {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : fallback;
};

export const handler = (event: { segment?: number; totalSegments?: number }) =>
  withLogContext({ step: 'sweep' }, () =>
    sweep({
      segment: event.segment ?? 0,
      totalSegments: event.totalSegments ?? 1,
      periodSeconds: num('CLOUDORCH_SWEEP_PERIOD_SECONDS', 300),
      concurrency: num('CLOUDORCH_SWEEP_CONCURRENCY', 8),
    }),
  );
