/**
 * Policy benchmark (not a test): builds the bundle if needed, then times single decisions on the
 * WASM engine with inputs the pipeline really produces. Prints evaluations per second and the
 * median and p99 latency of one decision.
 *
 * Run: `npm run bench:policy` (optional argument: number of timed evaluations, default 20000).
 */
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { PolicyEngine } from '../lambdas/policy/engine.js';
import { FileBundleSource } from '../lambdas/policy/sources.js';
import { ensurePolicyBundle, POLICY_DIR } from '../policies/build.js';
import { CASES } from '../test/policy/support.js';

const iterations = Number(process.argv[2] ?? 20_000);
const warmup = Math.min(2_000, iterations);

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))] ?? Number.NaN;
}

async function main(): Promise<void> {
  const { bundlePath, revision } = await ensurePolicyBundle({ outDir: join(POLICY_DIR, 'build') });
  const engine = new PolicyEngine({ source: new FileBundleSource(bundlePath) });
  const loadStart = performance.now();
  await engine.ready();
  const loadMs = performance.now() - loadStart;
  if (engine.health().status !== 'ok') throw new Error(`engine degraded: ${engine.health().reason}`);

  const inputs = CASES.map((c) => c.input);
  for (let i = 0; i < warmup; i++) engine.evaluate(inputs[i % inputs.length]!);

  const samples = new Float64Array(iterations);
  let denied = 0;
  const start = performance.now();
  for (let i = 0; i < iterations; i++) {
    const t = performance.now();
    if (!engine.evaluate(inputs[i % inputs.length]!).allow) denied += 1;
    samples[i] = performance.now() - t;
  }
  const totalMs = performance.now() - start;
  samples.sort();
  const ms = (x: number) => `${x.toFixed(3)} ms`;
  console.log(`policy bundle revision ${revision}, loaded and self-checked in ${ms(loadMs)}`);
  console.log(
    `${iterations} evaluations over ${inputs.length} distinct inputs (${denied} denied), node ${process.version}`,
  );
  console.log(`throughput: ${Math.round((iterations / totalMs) * 1000)} evaluations/s`);
  console.log(
    `latency of one decision: median ${ms(percentile(samples, 0.5))}, p99 ${ms(percentile(samples, 0.99))}, max ${ms(percentile(samples, 1))}`,
  );
  if (engine.health().evaluationErrors > 0) throw new Error('evaluations failed during the benchmark');
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
