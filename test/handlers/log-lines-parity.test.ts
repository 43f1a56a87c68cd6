/**
 * Where the functions' own log and metric lines (lambdas/handlers/log-lines.ts) parted from AWS Lambda
 * Powertools, which wrote them before and stays the reference: Lambda's log level (Advanced Logging
 * Controls) wins over POWERTOOLS_LOG_LEVEL, keys with no value are left out, and metrics are disabled
 * by the values Powertools reads as true (and by POWERTOOLS_DEV).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { JsonLogger, metricsDisabled } from '../../lambdas/handlers/log-lines.js';

/** The JSON lines written to stdout and stderr while `f` runs. */
function captured(f: () => void): Record<string, unknown>[] {
  const lines: string[] = [];
  const take = (chunk: unknown) => {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    return true;
  };
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(take);
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(take);
  // With POWERTOOLS_DEV, Powertools writes through the global console.
  const con = vi.spyOn(console, 'log').mockImplementation(take);
  try {
    f();
  } finally {
    out.mockRestore();
    err.mockRestore();
    con.mockRestore();
  }
  return lines.map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** What may differ by design: the time and Powertools' constant `sampling_rate`. */
function comparable(line: Record<string, unknown>): Record<string, unknown> {
  const { timestamp: _t, sampling_rate: _s, ...rest } = line;
  return rest;
}

const ENV_KEYS = [
  'POWERTOOLS_LOG_LEVEL',
  'AWS_LAMBDA_LOG_LEVEL',
  '_X_AMZN_TRACE_ID',
  'POWERTOOLS_METRICS_DISABLED',
  'POWERTOOLS_DEV',
];
const saved = Object.fromEntries(ENV_KEYS.map((k) => [k, process.env[k]]));
afterEach(() => {
  for (const k of ENV_KEYS) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

type Levels = Pick<JsonLogger, 'debug' | 'info' | 'warn' | 'error'>;
type Calls = (l: Levels) => void;

/** The same calls through Powertools' logger and ours, in the environment `env`. */
function both(env: Record<string, string>, calls: Calls) {
  for (const k of ENV_KEYS) delete process.env[k];
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
    for (const k of ENV_KEYS) delete process.env[k];
    Object.assign(process.env, env);
    const lines = captured(() => {
      new Metrics({ namespace: 'CloudOrch', serviceName: 'cloudorch' })
        .singleMetric()
        .addMetric('EksThrottled', MetricUnit.Count, 1);
    });
    expect(metricsDisabled(process.env)).toBe(lines.length === 0);
  });
});
