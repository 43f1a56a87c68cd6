/**
 * Compiles the CLI to JavaScript: one ESM bundle per entry in `dist/`, npm packages left as imports
 * (they are the package's dependencies), with source maps. esbuild rather than tsc emit: one file
 * per entry that loads fast, built in well under a second, and type-checking stays with `tsc`.
 *
 * Each module's `import.meta.url` keeps meaning its source file's location (rewritten relative to
 * the bundle), so files read at run time (examples/, the dashboard's assets, the policies) are found
 * beside the sources in a checkout and in the installed package alike, whatever the current folder.
 *
 * `dist/inputs.json` records a hash of every source the bundles were built from (and of this
 * script): {@link ensureDist} rebuilds only when it no longer matches, so a checkout never runs a
 * stale build. Run directly: `node scripts/build-dist.mjs` (always builds, the CDK entry too).
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const DIST = join(ROOT, 'dist');
/** Bundle name in dist/ (without .mjs) -> its entry source. */
export const ENTRIES = { cli: 'local/cli/main.ts' };
/** The public entry of the CDK construct, built into dist/cdk.mjs by {@link buildCdk}. */
export const CDK_ENTRY = 'infra/lib/index.ts';
const INPUTS_FILE = join(DIST, 'inputs.json');
const SELF = relative(ROOT, fileURLToPath(import.meta.url));

/** @param {string[]} files paths relative to ROOT @returns {Promise<string>} */
async function hashOf(files) {
  const h = createHash('sha256');
  for (const f of [...files].sort()) {
    h.update(f).update('\0');
    try {
      h.update(await readFile(join(ROOT, f)));
    } catch {
      h.update('\u0001missing');
    }
    h.update('\0');
  }
  return h.digest('hex');
}

/** @type {import('esbuild').Plugin} */
const sourceImportMetaUrl = {
  name: 'source-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (args.path.split(sep).includes('node_modules')) return undefined;
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const fromDist = relative(DIST, args.path).split(sep).join('/');
      const url = `new URL(${JSON.stringify(fromDist)}, import.meta.url).href`;
      return { contents: text.replaceAll('import.meta.url', url), loader: 'ts' };
    });
  },
};

/**
 * esbuild from node_modules, or (after `. scripts/setup-node.sh runtime`, which installs no dev
 * packages) the copy CLOUDORCH_ESBUILD points at. @returns {Promise<typeof import('esbuild')>}
 */
async function loadEsbuild() {
  const path = process.env.CLOUDORCH_ESBUILD;
  try {
    return await import(path ? pathToFileURL(path).href : 'esbuild');
  } catch (cause) {
    throw new Error('esbuild is needed to compile the CLI from its sources: run `. scripts/setup.sh`', {
      cause,
    });
  }
}

/**
 * Every npm package left as an import, but for the modules named, which are bundled.
 * @param {readonly string[]} inline @returns {import('esbuild').Plugin}
 */
const packagesExternalBut = (inline) => ({
  name: 'packages-external-but',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      inline.includes(args.path) ? undefined : { external: true },
    );
  },
});

/**
 * Bundles one entry into dist/<name>.mjs (+ .map), npm packages left as imports (but `inline`).
 * @param {typeof import('esbuild').build} build @param {string} name @param {string} entry
 * @param {readonly string[]} [inline] @returns {Promise<import('esbuild').Metafile>}
 */
async function bundleEntry(build, name, entry, inline = []) {
  const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
  // Written beside, then renamed: a CLI starting meanwhile never loads a half-written bundle.
  const partial = join(DIST, `${name}.${process.pid}.partial.mjs`);
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: [entry],
    outfile: partial,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    ...(inline.length ? {} : { packages: 'external' }),
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    logLevel: 'error',
    plugins: [sourceImportMetaUrl, ...(inline.length ? [packagesExternalBut(inline)] : [])],
    // Read by local/cli/config/cli-version.ts, which otherwise finds package.json itself.
    define: { CLOUDORCH_VERSION: JSON.stringify(version) },
  });
  const map = JSON.parse(await readFile(`${partial}.map`, 'utf8'));
  const mapPartial = join(DIST, `${name}.mjs.map.${process.pid}.partial`);
  await writeFile(mapPartial, JSON.stringify({ ...map, file: `${name}.mjs` }));
  await rename(mapPartial, join(DIST, `${name}.mjs.map`));
  await rm(`${partial}.map`);
  const code = (await readFile(partial, 'utf8')).replace(
    /sourceMappingURL=.*$/m,
    `sourceMappingURL=${name}.mjs.map`,
  );
  await writeFile(partial, code);
  await rename(partial, join(DIST, `${name}.mjs`));
  return result.metafile;
}

/** Builds every entry into dist/ and records its inputs. @returns {Promise<{ms: number}>} */
export async function buildDist() {
  const started = Date.now();
  const { build } = await loadEsbuild();
  await mkdir(DIST, { recursive: true });
  const inputs = new Set([SELF, 'package.json']);
  /** Imports left to Node: the package's run-time dependencies. */
  const externals = new Set();
  for (const [name, entry] of Object.entries(ENTRIES)) {
    const metafile = await bundleEntry(build, name, entry);
    for (const [input, { imports }] of Object.entries(metafile.inputs)) {
      inputs.add(input);
      for (const i of imports) if (i.external && !i.path.startsWith('node:')) externals.add(i.path);
    }
  }
  const files = [...inputs].sort();
  // The bundles themselves are part of the record: a deleted or damaged one means a rebuild.
  const outputs = Object.keys(ENTRIES).map((name) => `dist/${name}.mjs`);
  const record = { hash: await hashOf(files), files, outputs, outputsHash: await hashOf(outputs) };
  const partialInputs = `${INPUTS_FILE}.${process.pid}.partial`;
  await writeFile(
    partialInputs,
    `${JSON.stringify({ ...record, externals: [...externals].sort() }, null, 1)}\n`,
  );
  await rename(partialInputs, INPUTS_FILE);
  return { ms: Date.now() - started };
}

/**
 * The CDK construct's public entry as `dist/cdk.mjs` (`cloudorch/cdk`), for the package only: the
 * checkout's CLI never loads it, so {@link ensureDist} does not build it. aws-cdk-lib and constructs
 * stay imports like every npm package (optional peers of the package), but for one small module of
 * cdk-nag, a dev dependency (infra/lib/nag.ts renders finding ids with it), bundled in.
 * @returns {Promise<{ms: number}>}
 */
export async function buildCdk() {
  const started = Date.now();
  const { build } = await loadEsbuild();
  await mkdir(DIST, { recursive: true });
  await bundleEntry(build, 'cdk', CDK_ENTRY, ['cdk-nag/lib/utils/flatten-cfn-reference.js']);
  return { ms: Date.now() - started };
}

/** True when dist/ was built from the sources as they are now. @returns {Promise<boolean>} */
export async function distIsCurrent() {
  try {
    const recorded = JSON.parse(await readFile(INPUTS_FILE, 'utf8'));
    // Every entry's bundle must be there as built, and the sources as they were.
    const outputs = Object.keys(ENTRIES).map((name) => `dist/${name}.mjs`);
    if (JSON.stringify(recorded.outputs) !== JSON.stringify(outputs)) return false;
    if (recorded.outputsHash !== (await hashOf(outputs))) return false;
    return recorded.hash === (await hashOf(recorded.files));
  } catch {
    return false;
  }
}

/** Builds only when dist/ is missing or was built from other sources. @returns {Promise<boolean>} built */
export async function ensureDist() {
  if (await distIsCurrent()) return false;
  await buildDist();
  return true;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { ms } = await buildDist();
  const cdk = await buildCdk();
  console.log(`built ${relative(process.cwd(), DIST) || '.'} in ${ms + cdk.ms} ms`);
}
