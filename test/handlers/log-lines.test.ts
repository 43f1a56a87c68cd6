/**
 * The functions' log and metric lines (lambdas/handlers/log-lines.ts) against AWS Lambda Powertools,
 * which wrote them before (a dev dependency now, kept as this test's reference): the same JSON for
 * the same calls, so Logs Insights queries, the dashboard and the alarms read them unchanged.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { describe, expect, it } from 'vitest';
import { emfLine, JsonLogger, type LogLevel, logThreshold } from '../../lambdas/handlers/log-lines.js';
import { captured, comparable, restoringLogEnv } from './support/lines.js';

restoringLogEnv();

type Calls = (l: Pick<JsonLogger, LowercaseLevel>) => void;
type LowercaseLevel = Lowercase<LogLevel>;

function both(level: string, calls: Calls) {
  process.env['POWERTOOLS_LOG_LEVEL'] = level;
  process.env['_X_AMZN_TRACE_ID'] =
    'Root=1-5e1b4151-5ac6c58f5b5dbd6a3b5d6b0e;Parent=53995c3f42cd8ad8;Sampled=1';
  const theirs = captured(() => {
    const child = new Logger({ serviceName: 'cloudorch' }).createChild();
    child.appendKeys({ step: 'observe', clusterId: 'team-a/web' });
    calls(child as unknown as Pick<JsonLogger, LowercaseLevel>);
  });
  const ours = captured(() => {
    const child = new JsonLogger({
      service: 'cloudorch',
      env: process.env,
      write: (line, l) =>
        (l === 'WARN' || l === 'ERROR' ? process.stderr : process.stdout).write(`${line}\n`),
    }).createChild();
    child.appendKeys({ step: 'observe', clusterId: 'team-a/web' });
    calls(child);
  });
  return { theirs: theirs.map(comparable), ours: ours.map(comparable), raw: ours };
}

describe('log lines', () => {
  it('are the JSON Powertools wrote: standard keys, the trace id, appended keys, extras, errors', () => {
    const boom = new Error('boom', { cause: 'net' });
    const { theirs, ours, raw } = both('DEBUG', (l) => {
      l.info('status written', { outcome: 'Converged', ready: true, n: 2 });
      l.warn('sweep could not observe a cluster', { error: boom });
      l.error('failed', { nested: { a: [1, null] } });
      l.debug('checked', { of: 3 });
    });
    expect(ours).toEqual(theirs);
    expect(ours).toHaveLength(4);
    expect(raw[0]?.['timestamp']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(ours[0]).toMatchObject({ xray_trace_id: '1-5e1b4151-5ac6c58f5b5dbd6a3b5d6b0e' });
  });

  it.each(['INFO', 'WARN', 'ERROR', 'SILENT'])(
    'are filtered at level %s as Powertools filtered them',
    (level) => {
      const { theirs, ours } = both(level, (l) => {
        l.debug('d');
        l.info('i');
        l.warn('w');
        l.error('e');
      });
      expect(ours).toEqual(theirs);
    },
  );

  it('take their threshold from AWS_LAMBDA_LOG_LEVEL, then POWERTOOLS_LOG_LEVEL, else INFO', () => {
    expect(logThreshold({})).toBe('INFO');
    expect(logThreshold({ AWS_LAMBDA_LOG_LEVEL: 'warn' })).toBe('WARN');
    // Lambda's logging settings win, as with Powertools (test/handlers/log-lines-parity.test.ts).
    expect(logThreshold({ POWERTOOLS_LOG_LEVEL: 'debug', AWS_LAMBDA_LOG_LEVEL: 'ERROR' })).toBe('ERROR');
    expect(logThreshold({ POWERTOOLS_LOG_LEVEL: 'TRACE' })).toBe('DEBUG');
    // In any case (Powertools took only upper case, and logged at INFO otherwise).
    expect(logThreshold({ POWERTOOLS_LOG_LEVEL: 'warn' })).toBe('WARN');
    expect(logThreshold({ POWERTOOLS_LOG_LEVEL: 'nonsense' })).toBe('INFO');
  });

  it('a child keeps its parent’s keys and adds its own without touching the parent', () => {
    const lines: string[] = [];
    const parent = new JsonLogger({ service: 's', env: {}, write: (l) => lines.push(l) }, { a: 1 });
    const child = parent.createChild();
    child.appendKeys({ b: 2 });
    parent.info('p');
    child.info('c');
    const [p, c] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(p).toMatchObject({ a: 1 });
    expect(p).not.toHaveProperty('b');
    expect(c).toMatchObject({ a: 1, b: 2 });
  });
});

describe('metric lines', () => {
  it.each([
    [{ Account: '111111111111', Region: 'eu-west-1' }, 'Count' as const, 1],
    [{}, 'Seconds' as const, 2.5],
    [{ Outcome: 'Converged' }, 'Count' as const, 0],
  ])('are the EMF Powertools wrote (dimensions %o)', (dimensions, unit, value) => {
    process.env['POWERTOOLS_METRICS_DISABLED'] = 'false';
    const [theirs] = captured(() => {
      const single = new Metrics({ namespace: 'CloudOrch', serviceName: 'cloudorch' }).singleMetric();
      for (const [k, v] of Object.entries(dimensions)) single.addDimension(k, v);
      single.addMetric('EksThrottled', unit === 'Seconds' ? MetricUnit.Seconds : MetricUnit.Count, value);
    });
    const ours = JSON.parse(
      emfLine({
        namespace: 'CloudOrch',
        service: 'cloudorch',
        name: 'EksThrottled',
        unit,
        value,
        dimensions,
        timestamp: (theirs?.['_aws'] as { Timestamp: number } | undefined)?.Timestamp ?? 0,
      }),
    ) as unknown;
    expect(ours).toEqual(theirs);
  });

  it('leave out an empty dimension value, which would make CloudWatch drop the line', () => {
    const line = JSON.parse(
      emfLine({
        namespace: 'N',
        service: 's',
        name: 'M',
        unit: 'Count',
        value: 1,
        dimensions: { Account: '', Region: 'r' },
        timestamp: 0,
      }),
    ) as { _aws: { CloudWatchMetrics: { Dimensions: string[][] }[] } };
    expect(line._aws.CloudWatchMetrics[0]?.Dimensions).toEqual([['service', 'Region']]);
  });
});
