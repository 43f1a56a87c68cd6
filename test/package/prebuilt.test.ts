/**
 * The package's prebuilt policy bundle (policies/prebuilt, built at pack time, never committed) is
 * what an installed CLI runs without a bundle builder: it matches the policy sources, and with no
 * builder a bundle that does not match is never used.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseBundle } from '../../lambdas/policy/bundle.js';
import {
  BUNDLE_FILE,
  ensurePolicyBundle,
  NoPolicyBundleError,
  POLICY_DIR,
  PREBUILT_BUNDLE,
  refreshPrebuiltBundle,
  sourceRevision,
} from '../../policies/build.js';

let tmp: string;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'cloudorch-prebuilt-'));
  // What prepack does.
  await refreshPrebuiltBundle();
});

afterAll(async () => {
  vi.unstubAllEnvs();
  await rm(tmp, { recursive: true, force: true });
});

/** No builder anywhere findBundleBuilder looks: not OPA_BIN, not PATH, not the setup cache. */
function withoutOpa(): void {
  vi.stubEnv('OPA_BIN', undefined);
  vi.stubEnv('CLOUDORCH_OPA_WASM_BUILD', undefined);
  vi.stubEnv('PATH', '');
  vi.stubEnv('CLOUDORCH_CACHE', join(tmp, 'empty-cache'));
}

describe('prebuilt policy bundle', () => {
  it('is built from the policy sources as they are', async () => {
    const { revision } = parseBundle(await readFile(PREBUILT_BUNDLE));
    expect(revision).toBe(await sourceRevision());
  });

  it('serves the package’s own policies without opa', async () => {
    withoutOpa();
    const out = join(tmp, 'out');
    const r = await ensurePolicyBundle({ outDir: out });
    vi.unstubAllEnvs();
    expect(r).toEqual({ bundlePath: join(out, BUNDLE_FILE), revision: await sourceRevision(), built: false });
    expect(await readFile(r.bundlePath)).toEqual(await readFile(PREBUILT_BUNDLE));
  });

  it('is never used for other policies, and a stale bundle never is: without opa that is a typed error', async () => {
    const dir = join(tmp, 'changed');
    const build = join(POLICY_DIR, 'build');
    await cp(POLICY_DIR, dir, { recursive: true, filter: (s) => s !== build && !s.startsWith(build + sep) });
    // A bundle of the sources before the change sits in the output folder.
    await cp(PREBUILT_BUNDLE, join(dir, 'build', BUNDLE_FILE));
    const settings = join(dir, 'settings.json');
    await writeFile(settings, (await readFile(settings, 'utf8')).replace('5000', '6000'));
    withoutOpa();
    const err = await ensurePolicyBundle({ policiesDir: dir, outDir: join(dir, 'build') }).catch(
      (e: unknown) => e,
    );
    vi.unstubAllEnvs();
    expect(err).toBeInstanceOf(NoPolicyBundleError);
    expect((err as Error).message).toContain('neither the opa CLI nor opa-wasm-build was found to build one');
  });
});
