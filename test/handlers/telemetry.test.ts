/** Telemetry: each step's log context, isolated when steps run side by side. */
import { describe, expect, it, vi } from 'vitest';
import {
  addMetricSink,
  emit,
  log,
  logger,
  METRIC,
  type MetricPoint,
  withLogContext,
} from '../../lambdas/handlers/telemetry.js';

describe('log context', () => {
  it('gives each step its own logger, even when steps run side by side in one process', async () => {
    const seen: unknown[] = [];
    const step = (id: string) =>
      withLogContext({ step: 'observe', clusterId: id }, async () => {
        const mine = log();
        await new Promise((r) => setTimeout(r, 5));
        seen.push(mine);
        expect(log()).toBe(mine); // still the same logger after an await
        return mine;
      });
    const [a, b] = await Promise.all([step('a/x'), step('b/y')]);
    expect(a).not.toBe(b);
    expect(a).not.toBe(logger);
    expect(log()).toBe(logger);
    expect(seen).toHaveLength(2);
  });
});

describe('emit', () => {
  it('writes one EMF line to stdout unless POWERTOOLS_METRICS_DISABLED is true; sinks get every point', () => {
    const saved = process.env['POWERTOOLS_METRICS_DISABLED'];
    const lines: string[] = [];
    const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    const points: MetricPoint[] = [];
    const remove = addMetricSink((p) => points.push(p));
    try {
      process.env['POWERTOOLS_METRICS_DISABLED'] = 'false';
      emit(METRIC.EksThrottled, 1, { Account: '111111111111', Region: 'eu-west-1' });
      process.env['POWERTOOLS_METRICS_DISABLED'] = 'true';
      emit(METRIC.EksThrottled, 2);
    } finally {
      out.mockRestore();
      remove();
      if (saved === undefined) delete process.env['POWERTOOLS_METRICS_DISABLED'];
      else process.env['POWERTOOLS_METRICS_DISABLED'] = saved;
    }
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '')).toMatchObject({
      _aws: {
        CloudWatchMetrics: [{ Namespace: 'CloudOrch', Dimensions: [['service', 'Account', 'Region']] }],
      },
      service: 'cloudorch',
      EksThrottled: 1,
    });
    expect(points.map((p) => p.value)).toEqual([1, 2]);
  });
});
