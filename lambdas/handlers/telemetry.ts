/**
 * Logger and metrics, created once per module (reused across invocations). Every log line of a step
 * carries the execution id and the cluster id (log-lines.ts writes the lines). Metrics go to
 * CloudWatch as EMF and, when a sink is
 * registered (local dev, tests), to that sink as well, so the local dashboard shows the same figures.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { METRIC_NAMESPACE, type MetricName, SERVICE_NAME } from '../config.js';
import { emfLine, JsonLogger, metricsDisabled, processWriter } from './log-lines.js';

/** Metric names live with the other shared names (config.ts); handlers import them from here. */
export { METRIC, type MetricName } from '../config.js';

export const logger = new JsonLogger({ service: SERVICE_NAME, env: process.env, write: processWriter });

export interface MetricPoint {
  readonly name: MetricName;
  readonly value: number;
  readonly unit: 'Count' | 'Seconds';
  readonly dimensions: Readonly<Record<string, string>>;
  readonly at: string;
}

export type MetricSink = (p: MetricPoint) => void;
const sinks = new Set<MetricSink>();

/** Registers an extra destination for metrics; returns the function that removes it. */
export function addMetricSink(sink: MetricSink): () => void {
  sinks.add(sink);
  return () => sinks.delete(sink);
}

export function emit(
  name: MetricName,
  value = 1,
  dimensions: Record<string, string> = {},
  unit: 'Count' | 'Seconds' = 'Count',
): void {
  const now = new Date();
  if (!metricsDisabled(process.env))
    process.stdout.write(
      `${emfLine({ namespace: METRIC_NAMESPACE, service: SERVICE_NAME, name, unit, value, dimensions, timestamp: now.getTime() })}\n`,
    );
  const point: MetricPoint = { name, value, unit, dimensions, at: now.toISOString() };
  for (const s of sinks) s(point);
}

const context = new AsyncLocalStorage<JsonLogger>();

/** The logger of the step running now: its lines carry the execution and cluster ids. */
export function log(): JsonLogger {
  return context.getStore() ?? logger;
}

/**
 * Tags every log line of one step with the execution and the cluster. A child logger per call, held
 * in async context, so steps running side by side in one process (local mode) never swap keys.
 */
export async function withLogContext<T>(
  keys: { executionId?: string; clusterId?: string; rolloutId?: string; step: string },
  f: () => Promise<T>,
): Promise<T> {
  const child = logger.createChild();
  child.appendKeys(keys);
  return context.run(child, f);
}
