/**
 * Builds the one policy bundle: `opa build -t wasm -e cloudorch/decision` over this folder, test
 * files excluded, data files included, revision = a hash of the sources. Any opa error (syntax, type,
 * a built-in the wasm SDK does not implement) fails loudly with opa's own message.
 *
 * Run directly: `tsx policies/build.ts [outDir]` (default `policies/build`).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { delimiter, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parseBundle } from '../lambdas/policy/bundle.js';
import { PolicyBuildError } from '../lambdas/policy/errors.js';

const run = promisify(execFile);

export const POLICY_DIR = dirname(fileURLToPath(import.meta.url));
export const ENTRYPOINT = 'cloudorch/decision';
export const BUNDLE_FILE = 'bundle.tar.gz';
/** Tests and build output never go into the bundle. */
const IGNORE = ['*_test.rego', 'build'];

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

async function sourceFiles(dir: string, root = dir): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'build') out.push(...(await sourceFiles(p, root)));
    } else if (/\.(rego|json|ya?ml)$/.test(e.name) && !e.name.endsWith('_test.rego')) {
      out.push(relative(root, p));
    }
  }
  return out.sort();
}

/** Hash over the names and contents of everything that goes into the bundle. */
export async function sourceRevision(policiesDir: string = POLICY_DIR): Promise<string> {
  const h = createHash('sha256');
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
 * OPA's own capabilities restricted to the built-ins the npm wasm SDK implements: a policy calling
 * anything else fails to build instead of failing at evaluation time.
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
  const opa = opts.opa ?? findOpa();
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

/** Builds only when the bundle in `outDir` is missing or was built from other sources. */
export async function ensurePolicyBundle(opts: BuildOptions): Promise<BuildResult & { built: boolean }> {
  const bundlePath = join(resolve(opts.outDir), BUNDLE_FILE);
  const revision = await sourceRevision(opts.policiesDir ?? POLICY_DIR);
  try {
    if (parseBundle(await readFile(bundlePath)).revision === revision)
      return { bundlePath, revision, built: false };
  } catch {
    // Missing or unreadable: rebuild below.
  }
  return { ...(await buildPolicyBundle(opts)), built: true };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outDir = process.argv[2] ?? join(POLICY_DIR, 'build');
  buildPolicyBundle({ outDir }).then(
    (r) => console.log(`built ${relative(process.cwd(), r.bundlePath)} (revision ${r.revision})`),
    (e: unknown) => {
      console.error(e instanceof Error ? e.message : e);
      process.exit(1);
    },
  );
}
