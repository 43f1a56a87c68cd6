/**
 * Builds every Lambda of the catalog (lambdas/functions/catalog.ts) into `dist/functions/<key>/`
 * (index.mjs, its chunks, source maps) for the npm package, which ships no Lambda sources: the
 * installed construct deploys these where a checkout bundles from the sources at synth time. Same
 * build as that synth-time bundling (infra/bundling/build-function.mjs), so the code is the same
 * either way. Run by prepack: `node scripts/build-functions.mjs`.
 */
import { mkdir, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { buildFunction } from '../infra/bundling/build-function.mjs';
import { DIST, ROOT } from './build-dist.mjs';

export const FUNCTIONS_DIST = join(DIST, 'functions');
const CATALOG = 'lambdas/functions/catalog.ts';

/** The catalog's FUNCTIONS, read through esbuild (Node need not run TypeScript). */
async function catalog(build) {
  const out = await build({
    absWorkingDir: ROOT,
    entryPoints: [CATALOG],
    bundle: true,
    format: 'esm',
    write: false,
  });
  const url = `data:text/javascript;base64,${Buffer.from(out.outputFiles[0].text).toString('base64')}`;
  return /** @type {Record<string, { entry: string }>} */ ((await import(url)).FUNCTIONS);
}

/** @returns {Promise<{ ms: number, keys: string[] }>} */
export async function buildFunctions() {
  const started = Date.now();
  const { build } = await import('esbuild');
  const functions = await catalog(build);
  await rm(FUNCTIONS_DIST, { recursive: true, force: true });
  await Promise.all(
    Object.entries(functions).map(async ([key, { entry }]) => {
      const outdir = join(FUNCTIONS_DIST, key);
      await mkdir(outdir, { recursive: true });
      // The same build the construct's afterBundling hook runs: index.mjs, its chunks, portable maps.
      await buildFunction(ROOT, join(ROOT, 'lambdas', 'functions', entry), outdir);
    }),
  );
  return { ms: Date.now() - started, keys: Object.keys(functions) };
}

if (process.argv[1] && relative(process.argv[1], new URL(import.meta.url).pathname) === '') {
  const { ms, keys } = await buildFunctions();
  console.log(`built ${keys.length} functions into ${relative(process.cwd(), FUNCTIONS_DIST)} in ${ms} ms`);
}
