/**
 * Where the construct's policy bundle comes from: made from this package's `policies/` at synth time
 * (by opa, unless a matching bundle exists), or a prebuilt `bundle.tar.gz` file. Either way the asset is a folder holding only
 * `bundle.tar.gz`, named after its content, so the asset hash follows the bundle and nothing else.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { domainError } from '../../lambdas/core/errors.js';
import { parseBundle } from '../../lambdas/policy/bundle.js';
import { BUNDLE_FILE, ensurePolicyBundle, NoPolicyBundleError } from '../../policies/build.js';

const DEFAULT_ROOT = join(tmpdir(), 'cloudorch-policy');

/** Neither source can give the construct a bundle: opa is missing, or the prebuilt file is not one. */
export class PolicyBundleUnavailableError extends domainError(
  'PolicyBundleUnavailableError',
  'Permanent',
  'Install opa (`. scripts/setup.sh` installs the pinned one, or set OPA_BIN to its path), or pass a ' +
    'prebuilt bundle with PolicyBundleSource.fromFile(path) (build one with `npm run policies:build`).',
) {}

/**
 * The policy bundle matching the policies (built by opa only when no bundle already matches: the one
 * left by an earlier build, or the package's committed prebuilt one), in a folder holding only it,
 * named after the revision so the asset hash follows the policies.
 */
export async function preparePolicyAsset(root: string = DEFAULT_ROOT, policiesDir?: string): Promise<string> {
  const built = await ensurePolicyBundle({
    outDir: join(root, 'build'),
    ...(policiesDir ? { policiesDir } : {}),
  });
  const dir = join(root, `asset-${built.revision}`);
  await mkdir(dir, { recursive: true });
  await copyFile(built.bundlePath, join(dir, BUNDLE_FILE));
  return dir;
}

export interface BuildPolicyBundleOptions {
  /** Folder of the Rego policies and their data files. @default this package's `policies/` */
  readonly policiesDir?: string;
  /** Folder the bundle is built and staged in. @default `cloudorch-policy` in the OS temporary folder */
  readonly workDir?: string;
}

/** The policy bundle the `CloudOrch` construct deploys into its bucket. */
export class PolicyBundleSource {
  /**
   * The bundle of this package's `policies/` (or `policiesDir`), as `cdk synth` of CloudOrch's own
   * app makes it: a bundle already built from the same sources, or the committed prebuilt one when
   * it matches, else compiled by opa (`opa build -t wasm`). Asynchronous because opa runs as a
   * process: await it before constructing. Rejects with {@link PolicyBundleUnavailableError} when
   * a build is needed and opa is not found, and with opa's PolicyBuildError when the policies do
   * not compile.
   */
  static async build(options: BuildPolicyBundleOptions = {}): Promise<PolicyBundleSource> {
    try {
      return new PolicyBundleSource(await preparePolicyAsset(options.workDir, options.policiesDir));
    } catch (cause) {
      if (!(cause instanceof NoPolicyBundleError)) throw cause;
      throw new PolicyBundleUnavailableError(
        `cannot build the CloudOrch policy bundle: ${cause.message}. Set OPA_BIN to the opa binary or ` +
          'run `. scripts/setup.sh`, or pass a prebuilt bundle with PolicyBundleSource.fromFile(path)',
        { cause },
      );
    }
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
