/**
 * The policy bundle a local control plane serves: its own copy, in a folder nobody else writes,
 * so building the checkout's policies (`cloudorch policy build`, a test, a synth) never swaps the
 * policy of a running `cloudorch dev` behind its back. Only `--watch-policies` changes it: every
 * change under the policies folder rebuilds into the copy, and a broken build keeps the last good
 * bundle and says why. The engine reloads the file on its own (every 2 s locally).
 */
import { type FSWatcher, watch } from 'node:fs';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PolicyBuildError } from '../../lambdas/policy/errors.js';
import { BUNDLE_FILE, buildPolicyBundle, ensurePolicyBundle, POLICY_DIR } from '../../policies/build.js';

export interface ServedPolicyOptions {
  /** Where the checkout's bundle is built or found (default policies/build). */
  readonly buildDir?: string;
  /** The policies folder watched and built (default: the package's own). */
  readonly policiesDir?: string;
  /** Rebuild the served bundle on every change to the policies folder. */
  readonly watch?: boolean;
  /** Milliseconds of quiet after a change before building (an editor saves in bursts). */
  readonly debounceMs?: number;
  readonly log?: (line: string) => void;
}

export interface ServedPolicy {
  /** The file the engine loads; only this module writes it. */
  readonly bundlePath: string;
  /** The revision of the bundle last written to it. */
  revision(): string;
  /** Resolves once no rebuild is pending or running (for tests). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A change that can alter the bundle: a policy or data file (what the build packs), not under the
 * build output folders, not a test. A directory event (no file name, or a folder) counts.
 */
export const relevant = (file: string | null): boolean =>
  file === null ||
  (!/^(build|prebuilt)([/\\]|$)/.test(file) &&
    !file.endsWith('_test.rego') &&
    (/\.(rego|json|ya?ml)$/.test(file) || !/\.[a-z]+$/i.test(file)));

export async function servePolicyBundle(opts: ServedPolicyOptions = {}): Promise<ServedPolicy> {
  const policiesDir = opts.policiesDir ?? POLICY_DIR;
  const log = opts.log ?? (() => undefined);
  const source = await ensurePolicyBundle({
    policiesDir,
    outDir: opts.buildDir ?? join(policiesDir, 'build'),
  });
  const dir = await mkdtemp(join(tmpdir(), 'cloudorch-served-policy-'));
  const bundlePath = join(dir, BUNDLE_FILE);
  await copyFile(source.bundlePath, bundlePath);
  let revision = source.revision;
  let watcher: FSWatcher | undefined;
  let timer: NodeJS.Timeout | undefined;
  let building: Promise<void> = Promise.resolve();
  let pending = false;

  const rebuild = async (): Promise<void> => {
    try {
      const built = await buildPolicyBundle({ policiesDir, outDir: dir });
      if (built.revision !== revision) log(`policies rebuilt: revision ${built.revision} (was ${revision})`);
      revision = built.revision;
    } catch (err) {
      if (!(err instanceof PolicyBuildError)) throw err;
      log(`policy build failed; still serving revision ${revision}:\n${err.message}`);
    }
  };
  const schedule = () => {
    pending = true;
    clearTimeout(timer);
    timer = setTimeout(() => {
      pending = false;
      // One build at a time, in order: the last change always gets a build after it.
      building = building.then(rebuild).catch((err: unknown) => log(`policy rebuild error: ${String(err)}`));
    }, opts.debounceMs ?? 300);
  };
  if (opts.watch) {
    watcher = watch(policiesDir, { recursive: true }, (_event, file) => {
      if (relevant(file)) schedule();
    });
    log(`watching ${policiesDir} for policy changes (serving revision ${revision})`);
  }
  return {
    bundlePath,
    revision: () => revision,
    idle: async () => {
      // Pending until the debounce fires, which chains the build onto `building` in the same turn.
      while (pending) await new Promise((r) => setTimeout(r, 50));
      await building;
    },
    stop: async () => {
      watcher?.close();
      clearTimeout(timer);
      await building.catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
