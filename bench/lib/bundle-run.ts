/**
 * A function's bundle, built as deployed (infra/bundling/build-function.mjs), run by its Lambda
 * handler in a fresh process with only the environment given: what its cold load and peak resident
 * memory are in Lambda. `call` is an expression of the handler (`handler`) whose value is printed.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { buildFunction } from '../../infra/bundling/build-function.mjs';
import { FUNCTIONS, type FunctionKey } from '../../lambdas/functions/catalog.js';

export interface BundleRun {
  readonly loadMs: number;
  readonly runMs: number;
  readonly maxRssMb: number;
  /** What `call` resolved to. */
  readonly result: unknown;
}

export async function runBundle(
  key: FunctionKey,
  env: Readonly<Record<string, string | undefined>>,
  call: string,
): Promise<BundleRun> {
  const out = await mkdtemp(join(tmpdir(), `cloudorch-${key}-`));
  try {
    await buildFunction(process.cwd(), join(process.cwd(), 'lambdas/functions', FUNCTIONS[key].entry), out);
    const code = `
      const t = performance.now();
      const { handler } = await import(${JSON.stringify(pathToFileURL(join(out, 'index.mjs')).href)});
      const loaded = performance.now() - t;
      const result = await (${call});
      console.log(JSON.stringify({ loadMs: loaded, runMs: performance.now() - t - loaded,
        maxRssMb: process.resourceUsage().maxRSS / 1024, result }));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', code], {
      env: { PATH: process.env.PATH, ...env },
      cwd: out,
      maxBuffer: 64 * 1024 * 1024,
    });
    return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as BundleRun;
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}
