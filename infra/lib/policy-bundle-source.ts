/**
 * Where the construct's policy bundle comes from: built by opa from this package's `policies/` at
 * synth time, or a prebuilt `bundle.tar.gz`. Either way the asset is a folder holding only
 * `bundle.tar.gz`, named after its content, so the asset hash follows the bundle and nothing else.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { domainError } from '../../lambdas/core/errors.js';
import { parseBundle } from '../../lambdas/policy/bundle.js';
import { BUNDLE_FILE, ensurePolicyBundle, findOpa, sourceRevision } from '../../policies/build.js';

const DEFAULT_ROOT = join(tmpdir(), 'cloudorch-policy');

/** Neither source can give the construct a bundle: opa is missing, or the prebuilt file is not one. */
export class PolicyBundleUnavailableError extends domainError(
  'PolicyBundleUnavailableError',
  'Permanent',
  'Install opa (`. scripts/setup.sh` installs the pinned one, or set OPA_BIN to its path), or pass a ' +
    'prebuilt bundle with PolicyBundleSource.fromFile(path) (build one with `npm run policies:build`).',
) {}

/**
 * Builds the policy bundle (only when its sources changed) and returns a folder holding only it,
 * named after the revision so the asset hash follows the policies.
 */
export async function preparePolicyAsset(root: string = DEFAULT_ROOT, opa?: string): Promise<string> {
  const built = await ensurePolicyBundle({ outDir: join(root, 'build'), ...(opa ? { opa } : {}) });
  const dir = join(root, `asset-${built.revision}`);
  await mkdir(dir, { recursive: true });
  await copyFile(built.bundlePath, join(dir, BUNDLE_FILE));
  return dir;
}

/** Whether `bundlePath` holds a bundle built from the current policy sources. */
async function isCurrent(bundlePath: string): Promise<boolean> {
  try {
    return parseBundle(await readFile(bundlePath)).revision === (await sourceRevision());
  } catch {
    return false; // missing or unreadable: it has to be built
  }
}

export interface BuildPolicyBundleOptions {
  /** Folder the bundle is built and staged in. @default `cloudorch-policy` in the OS temporary folder */
  readonly workDir?: string;
  /** Environment opa is looked up in (`OPA_BIN`, then `PATH`, then the setup cache). @default process.env */
  readonly env?: NodeJS.ProcessEnv;
}

/** The policy bundle the `CloudOrch` construct deploys into its bucket. */
export class PolicyBundleSource {
  /**
   * Compiles this package's `policies/` with opa (`opa build -t wasm`), as `cdk synth` of
   * CloudOrch's own app does. Asynchronous because opa runs as a process: await it before
   * constructing. Rejects with {@link PolicyBundleUnavailableError} when opa is not found, and with
   * opa's own PolicyBuildError when the policies do not compile.
   */
  static async build(options: BuildPolicyBundleOptions = {}): Promise<PolicyBundleSource> {
    const root = options.workDir ?? DEFAULT_ROOT;
    let opa: string | undefined;
    let missing: unknown;
    try {
      opa = findOpa(options.env);
    } catch (cause) {
      missing = cause;
    }
    // A bundle already built from the same sources needs no opa (as before this class existed).
    if (opa === undefined && !(await isCurrent(join(root, 'build', BUNDLE_FILE))))
      throw new PolicyBundleUnavailableError(
        'cannot build the CloudOrch policy bundle: the opa CLI was not found (set OPA_BIN, or run ' +
          '`. scripts/setup.sh`), and no prebuilt bundle was given (PolicyBundleSource.fromFile)',
        { cause: missing },
      );
    return new PolicyBundleSource(await preparePolicyAsset(root, opa));
  }

  /**
   * A prebuilt `opa build -t wasm -e cloudorch/decision` bundle (`bundle.tar.gz`); no opa needed.
   * Throws {@link PolicyBundleUnavailableError} when the file is missing or is not such a bundle.
   */
  static fromFile(path: string, options: Pick<BuildPolicyBundleOptions, 'workDir'> = {}): PolicyBundleSource {
    const file = resolve(path);
    if (!existsSync(file)) throw new PolicyBundleUnavailableError(`policy bundle ${file} does not exist`);
    const bytes = readFileSync(file);
    try {
      parseBundle(bytes);
    } catch (cause) {
      const why = cause instanceof Error ? cause.message : String(cause);
      throw new PolicyBundleUnavailableError(`policy bundle ${file} is not usable: ${why}`, { cause });
    }
    const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
    const dir = join(options.workDir ?? DEFAULT_ROOT, `file-${hash}`);
    mkdirSync(dir, { recursive: true });
    copyFileSync(file, join(dir, BUNDLE_FILE));
    return new PolicyBundleSource(dir);
  }

  /** @param assetDir a folder holding exactly `bundle.tar.gz` */
  private constructor(readonly assetDir: string) {}
}
