/**
 * The one definition of how each Lambda is bundled, shared by the construct (NodejsFunction's
 * `bundling`, when synthesizing from the sources in a checkout) and by scripts/build-functions.mjs
 * (the prebuilt bundles the npm package ships), so both make the same code: Node 24, minified ESM
 * with source maps, the AWS SDK bundled at the pinned versions the tests ran (the runtime's own SDK
 * copy may be older), and source maps made portable by portable-sourcemap.mjs.
 *
 * Code splitting: the entry becomes `index.mjs` plus chunk files. What the handler's module imports
 * statically is loaded with it (shared chunks), and what sits behind a dynamic `import()` (the STS
 * client of the EKS functions' assumed roles; the store's spec writer) is a chunk loaded only when
 * that code runs. In one file, esbuild keeps that code in
 * the bundle and Node compiles all of it at load. NodejsFunction only writes one file, so its
 * afterBundling hook rebuilds the entry with build-function.mjs (as prepack does).
 */
import { schemaKeysPlugin } from './schema-keys.mjs';

/** The Node built-ins the bundles import (their dependencies' imports included). */
const BUILTINS = Object.freeze([
  'async_hooks',
  'child_process',
  'console',
  'crypto',
  'fs',
  'fs/promises',
  'http',
  'http2',
  'https',
  'os',
  'path',
  'process',
  'stream',
  'util',
  'zlib',
]);

/**
 * Each built-in aliased to a one-line shim in builtins/ that hands over
 * `process.getBuiltinModule(name)`, so the bundle reads it as CommonJS (zlib's shim loads zlib at its
 * first call: see builtins/zlib.cjs). An ES module import of a
 * built-in makes Node build its module facade, reading every export, getters included:
 * `node:http` then loads the whole fetch implementation (undici, behind http.WebSocket),
 * `node:process` opens stdin, stdout and stderr, `node:crypto` webcrypto. Read as CommonJS, an export
 * is read when used, and a module imported only by code that runs later (the STS client of assumed
 * roles, behind a dynamic import) loads then. An alias also catches subpaths (with `node:fs`
 * alone, `node:fs/promises` would become a path inside the shim), so a new subpath gets its own
 * entry: esbuild fails naming the alias until it has one.
 */
export const BUILTIN_SHIMS = Object.freeze(
  Object.fromEntries(
    BUILTINS.map((name) => [`node:${name}`, `./infra/bundling/builtins/${name.replace('/', '-')}.cjs`]),
  ),
);

/**
 * Modules the Lambda bundles replace: the SDK's DynamoDB client and document client by signed
 * requests of DynamoDB's JSON protocol (lambdas/aws/dynamodb-client.ts, dynamodb-document.ts: the
 * store's operations, its items translated as lib-dynamodb translates them; the SDK's protocol
 * stack was about a sixth of every table function's cold load), the SDK's default credential chain by the environment's
 * provider (env-credentials.mjs: Lambda gives credentials there), the credential providers package
 * by the one provider the functions use (assume-role-credentials.mjs), and `yaml`, which the wasm
 * SDK's yaml.* built-ins alone import and no policy may call (lambdas/policy/builtins.ts): it is about
 * 84 KiB of CommonJS evaluated at every cold start of the policy function.
 */
export const LAMBDA_REPLACEMENTS = Object.freeze({
  '@aws-sdk/client-dynamodb': './lambdas/aws/dynamodb-client.ts',
  '@aws-sdk/lib-dynamodb': './lambdas/aws/dynamodb-document.ts',
  '@aws-sdk/credential-provider-node': './infra/bundling/env-credentials.mjs',
  '@aws-sdk/credential-providers': './infra/bundling/assume-role-credentials.mjs',
  yaml: './infra/bundling/no-yaml.cjs',
});

/** NodejsFunction `bundling` options (enum members are these strings). */
export const FUNCTION_BUNDLING = Object.freeze({
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  target: 'node24',
  format: 'esm',
  mainFields: Object.freeze(['module', 'main']),
  externalModules: Object.freeze([]),
  banner: "import{createRequire}from'module';const require=createRequire(import.meta.url);",
  // Resolved from the project root, where both the construct and prepack run esbuild.
  alias: Object.freeze({ ...BUILTIN_SHIMS, ...LAMBDA_REPLACEMENTS }),
  // Sizes are checked by the bundle budget test; esbuild's size warnings are noise here.
  logLevel: 'error',
});

/** The file NodejsFunction writes with `format: esm`; the handler is `index.handler`. */
export const FUNCTION_OUTFILE = 'index.mjs';

/** Run after NodejsFunction's bundling, from the project root: node <this> <entry> <output folder> <project root>. */
export const BUILD_FUNCTION = 'infra/bundling/build-function.mjs';

/**
 * esbuild API options for a function: the command line NodejsFunction runs for FUNCTION_BUNDLING
 * (`esbuild --bundle <entry> --target --platform=node --format --outfile --minify --sourcemap
 * --sources-content=false --log-level --banner:js --main-fields`, from the project root), with code
 * splitting into `outdir` in place of its one output file. Chunks are named by their content, so
 * the asset hash still follows the code. Each chunk gets the banner (its own `require`). One plugin
 * (schema-keys.mjs) lets esbuild drop the SDK schemas of operations a function never sends.
 * @param {string} projectRoot @param {string} entry absolute @param {string} outdir
 * @returns {import('esbuild').BuildOptions}
 */
export function esbuildOptions(projectRoot, entry, outdir) {
  const b = FUNCTION_BUNDLING;
  return {
    absWorkingDir: projectRoot,
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    target: b.target,
    format: b.format,
    outdir,
    splitting: true,
    entryNames: FUNCTION_OUTFILE.replace(/\.mjs$/, ''),
    chunkNames: 'chunk-[hash]',
    outExtension: { '.js': '.mjs' },
    minify: b.minify,
    sourcemap: b.sourceMap,
    sourcesContent: b.sourcesContent,
    external: [...b.externalModules],
    logLevel: b.logLevel,
    banner: { js: b.banner },
    mainFields: [...b.mainFields],
    alias: { ...b.alias },
    // The SDK's schema modules with plain keys, so the schemas of operations never sent are dropped.
    plugins: [schemaKeysPlugin],
  };
}
