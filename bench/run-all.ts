/**
 * `npm run bench`: every benchmark section in sequence, each in a fresh process (as `npm run
 * bench:<section>` runs it alone), so no section inherits another's servers, handlers or heap.
 * Stops at the first failing section; prints each section's wall time and the total.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { fmt, machine } from './lib/stats.js';

const SECTIONS = [
  ['decision speed', 'decision.ts'],
  ['policy engine', 'policy-bench.ts'],
  ['sweep', 'sweep.ts'],
  ['fleet', 'fleet-accounts.ts'],
  ['step latency', 'step-latency.ts'],
  ['drift latency', 'drift-latency.ts'],
  ['cost model', 'cost-model.ts'],
  ['bundles', 'bundles.ts'],
  ['fault-injection run', 'fault-run.ts'],
] as const;

const start = performance.now();
console.log(`CloudOrch benchmarks, ${new Date().toISOString()}, ${machine()}`);
const times: string[] = [];
for (const [name, file] of SECTIONS) {
  const t = performance.now();
  const script = fileURLToPath(new URL(file, import.meta.url));
  // 15 minutes per section at most: every section is bounded, this only guards against a hang.
  const r = spawnSync('tsx', [script], { stdio: 'inherit', timeout: 15 * 60_000 });
  times.push(`${name} ${fmt.s(performance.now() - t)}`);
  if (r.status !== 0) {
    console.error(`\nsection "${name}" failed (exit ${r.status ?? r.signal})`);
    process.exit(1);
  }
}
console.log(`\n=== Wall time ===\n${times.join(', ')}; total ${fmt.s(performance.now() - start)}`);
