/**
 * What the local dashboard shows, recorded in memory from the same sources CloudWatch gets in AWS:
 * the handlers' metrics (through a sink) and the EKS simulator's call counters.
 */
import type { MetricPoint } from '../../lambdas/handlers/telemetry.js';

const MAX_POINTS = 5_000;

export class MetricRecorder {
  private readonly points: MetricPoint[] = [];

  readonly sink = (p: MetricPoint): void => {
    this.points.push(p);
    if (this.points.length > MAX_POINTS) this.points.splice(0, this.points.length - MAX_POINTS);
  };

  /** Points of one metric (all when omitted), oldest first. */
  series(name?: MetricPoint['name']): MetricPoint[] {
    return name ? this.points.filter((p) => p.name === name) : [...this.points];
  }

  /** Sum per dimension value, e.g. errors by `Kind`. */
  totals(name: MetricPoint['name'], dimension: string): Record<string, number> {
    const out: Record<string, number> = {};
    for (const p of this.series(name)) {
      const k = p.dimensions[dimension] ?? '(none)';
      out[k] = (out[k] ?? 0) + p.value;
    }
    return out;
  }
}
