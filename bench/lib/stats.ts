/** Small helpers every benchmark shares: percentiles, formatting, section headers, the machine line. */
import { availableParallelism, cpus } from 'node:os';

export interface Summary {
  readonly n: number;
  readonly median: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

/** Nearest-rank percentile over an ascending array. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * p) - 1)] ?? Number.NaN;
}

export function summarize(samples: readonly number[]): Summary {
  const s = Float64Array.from(samples).sort();
  const sum = s.reduce((a, b) => a + b, 0);
  return {
    n: s.length,
    median: percentile(s, 0.5),
    p99: percentile(s, 0.99),
    max: s.length > 0 ? s[s.length - 1]! : Number.NaN,
    mean: s.length > 0 ? sum / s.length : Number.NaN,
  };
}

export const fmt = {
  us: (us: number) => `${us.toFixed(1)} µs`,
  ms: (ms: number) => (ms < 10 ? `${ms.toFixed(2)} ms` : `${ms.toFixed(0)} ms`),
  s: (ms: number) => `${(ms / 1000).toFixed(1)} s`,
  int: (n: number) => Math.round(n).toLocaleString('en-US'),
  num: (n: number, digits = 2) => n.toLocaleString('en-US', { maximumFractionDigits: digits }),
  usd: (n: number) =>
    n >= 100
      ? `$${Math.round(n).toLocaleString('en-US')}`
      : n >= 0.01
        ? `$${n.toFixed(2)}`
        : `$${n.toFixed(4)}`,
  kib: (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`,
};

export function summaryLine(s: Summary, unit: (x: number) => string): string {
  return `median ${unit(s.median)}, p99 ${unit(s.p99)}, max ${unit(s.max)} (n=${s.n})`;
}

export function machine(): string {
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  return `node ${process.version}, ${availableParallelism()} cores (${cpu}), ${process.platform}/${process.arch}`;
}

export function section(title: string): void {
  console.log(`\n=== ${title} ===`);
  console.log(`machine: ${machine()}`);
}

/** A left-aligned first column, right-aligned others. */
export function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows
    .map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '))
    .join('\n');
}

/** Runs a benchmark's main and exits non-zero on failure (a failed assertion is a failed run). */
export function run(main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
}
