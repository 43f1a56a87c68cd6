/**
 * Where the functions' own log and metric lines (lambdas/handlers/log-lines.ts) parted from AWS Lambda
 * Powertools, which wrote them before and stays the reference: Lambda's log level (Advanced Logging
 * Controls) wins over POWERTOOLS_LOG_LEVEL, keys with no value are left out, and metrics are disabled
 * by the values Powertools reads as true (and by POWERTOOLS_DEV).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { describe, expect, it } from 'vitest';
import { JsonLogger, metricsDisabled } from '../../lambdas/handlers/log-lines.js';
import { captured, comparable, LOG_ENV_KEYS, restoringLogEnv } from './support/lines.js';

restoringLogEnv();

type Levels = Pick<JsonLogger, 'debug' | 'info' | 'warn' | 'error'>;
type Calls = (l: Levels) => void;

/** The same calls through Powertools' logger and ours, in the environment `env`. */
function both(env: Record<string, string>, calls: Calls) {
  for (const k of LOG_ENV_KEYS) delete process.env[k];
  Object.assign(process.env, env);
  const theirs = captured(() => calls(new Logger({ serviceName: 'cloudorch' }) as unknown as Levels));
  const ours = captured(() =>
    calls(
      new JsonLogger({
        service: 'cloudorch',
        env: process.env,
        write: (line, l) =>
          (l === 'WARN' || l === 'ERROR' ? process.stderr : process.stdout).write(`${line}\n`),
      }),
    ),
  );
  return { theirs: theirs.map(comparable), ours: ours.map(comparable) };
}

const EVERY_LEVEL: Calls = (l) => {
  l.debug('d');
  l.info('i');
  l.warn('w');
  l.error('e');
};

describe('log lines as Powertools wrote them', () => {
  it.each([
    // An operator turns DEBUG on in Lambda's logging settings: the stack's INFO must not hide it.
    [{ POWERTOOLS_LOG_LEVEL: 'INFO', AWS_LAMBDA_LOG_LEVEL: 'DEBUG' }],
    [{ POWERTOOLS_LOG_LEVEL: 'WARN', AWS_LAMBDA_LOG_LEVEL: 'INFO' }],
    // FATAL is Powertools' CRITICAL: above ERROR.
    [{ AWS_LAMBDA_LOG_LEVEL: 'FATAL' }],
    [{ POWERTOOLS_LOG_LEVEL: 'CRITICAL' }],
  ])('take the threshold Powertools took in %o', (env) => {
    const { theirs, ours } = both(env, EVERY_LEVEL);
    expect(ours).toEqual(theirs);
  });

  it('leave out keys whose value is null, undefined or empty, as Powertools did', () => {
    const { theirs, ours } = both({ POWERTOOLS_LOG_LEVEL: 'INFO' }, (l) =>
      l.info('drift event', { caller: undefined, detail: '', by: null, started: false, n: 0 }),
    );
    expect(ours).toEqual(theirs);
    expect(ours[0]).toEqual({
      level: 'INFO',
      message: 'drift event',
      service: 'cloudorch',
      started: false,
      n: 0,
    });
  });
});

describe('metrics disabled as Powertools read it', () => {
  it.each([
    [{ POWERTOOLS_METRICS_DISABLED: 'true' }],
    [{ POWERTOOLS_METRICS_DISABLED: '1' }],
    [{ POWERTOOLS_METRICS_DISABLED: 'Yes' }],
    [{ POWERTOOLS_METRICS_DISABLED: 'false' }],
    [{ POWERTOOLS_METRICS_DISABLED: 'off', POWERTOOLS_DEV: 'true' }],
    [{ POWERTOOLS_DEV: 'true' }],
    [{ POWERTOOLS_DEV: 'false' }],
    [{}],
  ])('%o', (env) => {
    for (const k of LOG_ENV_KEYS) delete process.env[k];
    Object.assign(process.env, env);
    const lines = captured(() => {
      new Metrics({ namespace: 'CloudOrch', serviceName: 'cloudorch' })
        .singleMetric()
        .addMetric('EksThrottled', MetricUnit.Count, 1);
    });
    expect(metricsDisabled(process.env)).toBe(lines.length === 0);
  });
});
