/**
 * Builds the one policy bundle: `opa build -t wasm -e cloudorch/decision` over this folder, test
 * files excluded, data files included, revision = a hash of the sources. Any opa error (syntax, type,
 * a built-in the wasm SDK does not implement) fails loudly with opa's own message.
 *
 * The builder is the opa CLI, or `opa-wasm-build` (OPA's wasm compiler alone, which the demo's setup
 * builds; see {@link findBundleBuilder}). The npm package ships a bundle built at pack time in
 * `policies/prebuilt/` (never committed), so an installed CLI needs neither: {@link ensurePolicyBundle}
 * uses it whenever its revision matches the sources beside it.
 *
 * Run directly: `tsx policies/build.ts [outDir]` (default `policies/build`), or
 * `tsx policies/build.ts --prebuilt` to build the package's prebuilt bundle (prepack does).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { copyFile, mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { delimiter, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { domainError } from '../lambdas/core/errors.js';
import { OMITTED_BUILTINS } from '../lambdas/policy/builtins.js';
import { parseBundle } from '../lambdas/policy/bundle.js';
import { PolicyBuildError } from '../lambdas/policy/errors.js';

const run = promisify(execFile);

export const POLICY_DIR = dirname(fileURLToPath(import.meta.url));
export const ENTRYPOINT = 'cloudorch/decision';
export const BUNDLE_FILE = 'bundle.tar.gz';
/** The package's bundle, built at pack time from the policies beside it (`--prebuilt`); never committed. */
export const PREBUILT_BUNDLE = join(POLICY_DIR, 'prebuilt', BUNDLE_FILE);
/** Tests and build output never go into the bundle. */
const IGNORE = ['*_test.rego', 'build', 'prebuilt'];
const OUTPUT_DIRS = new Set(['build', 'prebuilt']);

/** No bundle matches the policy sources and there is no opa to build one. */
export class NoPolicyBundleError extends domainError(
  'NoPolicyBundleError',
  'Permanent',
  'Build the bundle compiler (`. scripts/setup-node.sh runtime` builds opa-wasm-build; `. scripts/setup.sh` installs the pinned opa; or set OPA_BIN) to build the bundle from these policies; a stale bundle is never used.',
) {}

export interface BuildOptions {
  /** Folder of .rego and data files (default: this folder). */
  readonly policiesDir?: string;
  /** Where bundle.tar.gz (and the capabilities file it was checked against) are written. */
  readonly outDir: string;
  /** Path of the opa binary (default: {@link findOpa}). */
  readonly opa?: string;
}

export interface BuildResult {
  readonly bundlePath: string;
  /** Hash of the sources; also the bundle's `.manifest` revision. */
  readonly revision: string;
}

/** `OPA_BIN`, then `opa` on PATH, then the copy scripts/setup.sh installs in the user cache. */
export function findOpa(env: NodeJS.ProcessEnv = process.env): string {
  if (env.OPA_BIN) return env.OPA_BIN;
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, 'opa'))) return join(dir, 'opa');
  }
  const cache = env.CLOUDORCH_CACHE ?? join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'cloudorch');
  const cached = existsSync(cache)
    ? readdirSync(cache)
        .filter((d) => d.startsWith('opa-'))
        .map((d) => join(cache, d, 'bin', 'opa'))
    : [];
  const found = cached.find((p) => existsSync(p));
  if (found) return found;
  throw new PolicyBuildError('the opa CLI was not found: run `. scripts/setup.sh` or set OPA_BIN', '');
}

/**
 * What builds the bundle: the opa CLI ({@link findOpa}), else `opa-wasm-build`, OPA's wasm compiler
 * alone (tools/opa-wasm-build), which `scripts/setup-node.sh` builds for the demo in a fraction of
 * the opa CLI's build time and which answers the two opa commands the build runs, byte for byte.
 */
export function findBundleBuilder(env: NodeJS.ProcessEnv = process.env): string {
  try {
    return findOpa(env);
  } catch (err) {
    const found = findWasmBuilder(env);
    if (found) return found;
    throw new PolicyBuildError(
      'neither the opa CLI nor opa-wasm-build was found: run `. scripts/setup-node.sh runtime` (builds opa-wasm-build) or `. scripts/setup.sh` (opa), or set OPA_BIN',
      '',
      { cause: err },
    );
  }
}

/** The opa-wasm-build `scripts/setup-node.sh` built for this checkout's sources, if any. */
export function findWasmBuilder(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const path = env.CLOUDORCH_OPA_WASM_BUILD;
  return path && existsSync(path) ? path : undefined;
}

async function sourceFiles(dir: string, root = dir): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (!OUTPUT_DIRS.has(e.name)) out.push(...(await sourceFiles(p, root)));
    } else if (/\.(rego|json|ya?ml)$/.test(e.name) && !e.name.endsWith('_test.rego')) {
      out.push(relative(root, p));
    }
  }
  return out.sort();
}

/** Hash over the names and contents of everything that goes into the bundle, and its capabilities' exclusions. */
export async function sourceRevision(policiesDir: string = POLICY_DIR): Promise<string> {
  // The built-ins left out of the capabilities shape the bundle too: a change to them rebuilds it.
  const h = createHash('sha256').update(JSON.stringify(OMITTED_BUILTINS)).update('\0');
  for (const f of await sourceFiles(policiesDir)) {
    h.update(f)
      .update('\0')
      .update(await readFile(join(policiesDir, f)))
      .update('\0');
  }
  return h.digest('hex').slice(0, 16);
}

async function opaOut(opa: string, args: string[], cwd?: string): Promise<string> {
  try {
    return (await run(opa, args, { cwd, maxBuffer: 16 * 1024 * 1024 })).stdout;
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string };
    const output = `${err.stdout ?? ''}${err.stderr ?? ''}`.trim() || err.message;
    throw new PolicyBuildError(`opa ${args[0]} failed:\n${output}`, output);
  }
}

/**
 * OPA's own capabilities restricted to the built-ins the npm wasm SDK implements, less those the
 * policy function's bundle leaves out (the yaml.* built-ins: OMITTED_BUILTINS): a policy
 * calling anything else fails to build instead of failing at evaluation time.
 */
async function wasmCapabilities(opa: string, outDir: string): Promise<string> {
  const current = JSON.parse(await opaOut(opa, ['capabilities', '--current'])) as {
    builtins: { name: string }[];
  };
  // The SDK ships its capabilities beside src/; package.json is not in its export map.
  const sdkMain = createRequire(import.meta.url).resolve('@open-policy-agent/opa-wasm');
  const sdk = JSON.parse(await readFile(join(dirname(sdkMain), '..', 'capabilities.json'), 'utf8')) as {
    builtins: { name: string }[];
  };
  const supported = new Set(sdk.builtins.map((b) => b.name));
  for (const name of OMITTED_BUILTINS) supported.delete(name);
  const path = join(outDir, 'capabilities.json');
  await writeFile(
    path,
    JSON.stringify({ ...current, builtins: current.builtins.filter((b) => supported.has(b.name)) }),
  );
  return path;
}

/**
 * Builds the bundle into `outDir/bundle.tar.gz`. Throws {@link PolicyBuildError} with opa's output
 * when the policies do not compile.
 *
 * @example
 * const { bundlePath } = await buildPolicyBundle({ outDir: 'policies/build' });
 */
export async function buildPolicyBundle(opts: BuildOptions): Promise<BuildResult> {
  const policiesDir = resolve(opts.policiesDir ?? POLICY_DIR);
  const outDir = resolve(opts.outDir);
  const opa = opts.opa ?? findBundleBuilder();
  await mkdir(outDir, { recursive: true });
  const revision = await sourceRevision(policiesDir);
  const capabilities = await wasmCapabilities(opa, outDir);
  const bundlePath = join(outDir, BUNDLE_FILE);
  // Written beside, then renamed: a reader never sees a half-written bundle.
  const partial = `${bundlePath}.${process.pid}.partial`;
  const ignore = IGNORE.flatMap((p) => ['--ignore', p]);
  await opaOut(
    opa,
    [
      'build',
      '-t',
      'wasm',
      '-e',
      ENTRYPOINT,
      '--capabilities',
      capabilities,
      '-r',
      revision,
      ...ignore,
      '-o',
      partial,
      '.',
      // Relative to the policies folder, so the bundle holds no machine-specific paths.
    ],
    policiesDir,
  );
  await rename(partial, bundlePath);
  return { bundlePath, revision };
}

/** The revision a bundle file was built from, or undefined when it is missing or unreadable. */
async function revisionOf(bundlePath: string): Promise<string | undefined> {
  try {
    return parseBundle(await readFile(bundlePath)).revision;
  } catch {
    return undefined;
  }
}

/** Copies the prebuilt bundle into `outDir`; where that folder is read-only, the prebuilt file serves. */
async function placePrebuilt(bundlePath: string): Promise<string> {
  try {
    await mkdir(dirname(bundlePath), { recursive: true });
    const partial = `${bundlePath}.${process.pid}.partial`;
    await copyFile(PREBUILT_BUNDLE, partial);
    await rename(partial, bundlePath);
    return bundlePath;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return PREBUILT_BUNDLE;
    throw e;
  }
}

/**
 * A bundle built from the policies as they are now, at `outDir/bundle.tar.gz` (default
 * `policies/build`): the one already there when its revision matches, else the prebuilt one when
 * it matches (for this package's own policies), else one built with opa. Without opa and with no
 * matching bundle it throws {@link NoPolicyBundleError}: a stale bundle is never used.
 */
export async function ensurePolicyBundle(
  opts: Partial<BuildOptions> = {},
): Promise<BuildResult & { built: boolean }> {
  const policiesDir = resolve(opts.policiesDir ?? POLICY_DIR);
  const outDir = resolve(opts.outDir ?? join(POLICY_DIR, 'build'));
  const bundlePath = join(outDir, BUNDLE_FILE);
  const revision = await sourceRevision(policiesDir);
  if ((await revisionOf(bundlePath)) === revision) return { bundlePath, revision, built: false };
  const prebuilt = policiesDir === POLICY_DIR ? await revisionOf(PREBUILT_BUNDLE) : undefined;
  if (prebuilt === revision) return { bundlePath: await placePrebuilt(bundlePath), revision, built: false };
  let opa: string;
  try {
    opa = opts.opa ?? findBundleBuilder();
  } catch (cause) {
    const shipped = prebuilt ? `the prebuilt bundle is revision ${prebuilt}` : 'there is no prebuilt bundle';
    throw new NoPolicyBundleError(
      `no policy bundle matches the policies in ${policiesDir} (revision ${revision}; ${shipped}) and neither the opa CLI nor opa-wasm-build was found to build one`,
      { cause },
    );
  }
  return { ...(await buildPolicyBundle({ policiesDir, outDir, opa })), built: true };
}

/** Builds the package's prebuilt bundle when missing or stale (`--prebuilt`, run by prepack). */
export async function refreshPrebuiltBundle(): Promise<BuildResult & { built: boolean }> {
  const revision = await sourceRevision();
  if ((await revisionOf(PREBUILT_BUNDLE)) === revision)
    return { bundlePath: PREBUILT_BUNDLE, revision, built: false };
  const tmp = join(POLICY_DIR, 'build', 'prebuilt');
  const built = await buildPolicyBundle({ outDir: tmp });
  await mkdir(dirname(PREBUILT_BUNDLE), { recursive: true });
  await copyFile(built.bundlePath, PREBUILT_BUNDLE);
  return { bundlePath: PREBUILT_BUNDLE, revision, built: true };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outDir = process.argv[2] ?? join(POLICY_DIR, 'build');
  (process.argv[2] === '--prebuilt' ? refreshPrebuiltBundle() : buildPolicyBundle({ outDir })).then(
    (r) => console.log(`${relative(process.cwd(), r.bundlePath)}: revision ${r.revision}`),
    (e: unknown) => {
      console.error(e instanceof Error ? e.message : e);
      process.exit(1);
    },
  );
}
