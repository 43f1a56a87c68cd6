/**
 * Builds one Lambda into a folder: `index.mjs` (the handler's module) and the chunks it shares or
 * loads on demand, each with a portable source map. The one build both the construct (its
 * afterBundling hook, over the single file NodejsFunction writes) and prepack
 * (scripts/build-functions.mjs) run, so a checkout and the npm package deploy the same files.
 *
 * Run: node build-function.mjs <entry> <output folder> <project root>
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { esbuildOptions, FUNCTION_OUTFILE } from './function-bundling.mjs';
import { makePortable } from './portable-sourcemap.mjs';

const sha = (/** @type {string} */ s) => createHash('sha256').update(s).digest('hex');
const literal = (/** @type {string} */ s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * New chunk names from the code alone. esbuild's own chunk hashes cover the source maps, whose
 * paths are relative to the output folder, so they (and the asset hash) would change with where
 * the checkout or the output lives. A chunk's name is the hash of its code with chunk names masked,
 * plus the masked hashes of the chunks it names, in order.
 * @param {{ path: string, text: string }[]} js
 * @returns {Map<string, string>} old name -> new name
 */
function stableNames(js) {
  const chunks = js.map((f) => basename(f.path)).filter((n) => n !== FUNCTION_OUTFILE);
  if (chunks.length === 0) return new Map();
  const ref = new RegExp(chunks.map(literal).join('|'), 'g');
  const masked = new Map(js.map((f) => [basename(f.path), sha(f.text.replace(ref, 'chunk.mjs'))]));
  const names = new Map();
  for (const f of js) {
    const name = basename(f.path);
    if (name === FUNCTION_OUTFILE) continue;
    const refs = [...f.text.matchAll(ref)].map((m) => m[0]).filter((n) => n !== name);
    names.set(
      name,
      `chunk-${sha(masked.get(name) + refs.map((n) => masked.get(n)).join()).slice(0, 16)}.mjs`,
    );
  }
  if (new Set(names.values()).size !== names.size) throw new Error('two chunks got the same name');
  return names;
}

/**
 * @param {string} projectRoot @param {string} entry absolute @param {string} outdir
 * @returns {Promise<string[]>} the files written, relative to outdir
 */
export async function buildFunction(projectRoot, entry, outdir) {
  const { build } = await import('esbuild');
  const r = await build({ ...esbuildOptions(projectRoot, entry, outdir), write: false });
  const names = stableNames(r.outputFiles.filter((f) => f.path.endsWith('.mjs')));
  const ref = names.size > 0 ? new RegExp([...names.keys()].map(literal).join('|'), 'g') : undefined;
  const renamed = (/** @type {string} */ s) => (ref ? s.replace(ref, (n) => names.get(n)) : s);
  // What NodejsFunction wrote (one index.mjs) and any earlier build's chunks make way.
  mkdirSync(outdir, { recursive: true });
  for (const f of readdirSync(outdir)) if (/\.mjs(?:\.map)?$/.test(f)) rmSync(join(outdir, f));
  const written = [];
  for (const f of r.outputFiles) {
    const file = join(outdir, renamed(basename(f.path)));
    writeFileSync(file, renamed(f.text));
    if (file.endsWith('.map')) makePortable(file, projectRoot);
    written.push(basename(file));
  }
  return written.sort();
}

if (process.argv[1] && relative(process.argv[1], new URL(import.meta.url).pathname) === '') {
  const [entry, outdir, projectRoot] = process.argv.slice(2);
  if (!entry || !outdir || !projectRoot) {
    process.stderr.write('usage: build-function.mjs <entry> <output folder> <project root>\n');
    process.exit(2);
  }
  await buildFunction(projectRoot, entry, outdir);
}
