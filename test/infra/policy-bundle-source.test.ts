/**
 * The two ways the construct gets its policy bundle (built by opa, or a prebuilt file) and the typed
 * error when neither can work.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  PolicyBundleSource,
  PolicyBundleUnavailableError,
  preparePolicyAsset,
} from '../../infra/lib/index.js';
import { parseBundle } from '../../lambdas/policy/bundle.js';
import { BUNDLE_FILE, NoPolicyBundleError, POLICY_DIR, sourceRevision } from '../../policies/build.js';

const work = mkdtempSync(join(tmpdir(), 'cloudorch-bundle-source-'));
let built: string;

beforeAll(async () => {
  built = join(await preparePolicyAsset(join(work, 'built')), BUNDLE_FILE);
}, 120_000);

describe('PolicyBundleSource.fromFile', () => {
  it('stages a prebuilt bundle as a folder holding only bundle.tar.gz, named after its content', () => {
    const a = PolicyBundleSource.fromFile(built, { workDir: join(work, 'a') });
    const b = PolicyBundleSource.fromFile(built, { workDir: join(work, 'a') });
    expect(a.assetDir).toBe(b.assetDir);
    expect(readFileSync(join(a.assetDir, BUNDLE_FILE))).toEqual(readFileSync(built));
    expect(parseBundle(readFileSync(join(a.assetDir, BUNDLE_FILE))).wasm.length).toBeGreaterThan(0);
  });

  it('refuses a missing file and a file that is not an opa wasm bundle, with the typed error', () => {
    expect(() => PolicyBundleSource.fromFile(join(work, 'nope.tar.gz'))).toThrow(
      PolicyBundleUnavailableError,
    );
    const junk = join(work, 'junk.tar.gz');
    writeFileSync(junk, 'not a bundle');
    expect(() => PolicyBundleSource.fromFile(junk)).toThrow(/is not usable: bundle is not gzip data/);
  });
});

describe('PolicyBundleSource.build', () => {
  it('makes the bundle of the policies the construct deploys', async () => {
    const source = await PolicyBundleSource.build({ workDir: join(work, 'build') });
    const bundle = parseBundle(readFileSync(join(source.assetDir, BUNDLE_FILE)));
    expect(bundle.revision).toBe(await sourceRevision());
  });

  describe('without opa', () => {
    beforeEach(() => {
      vi.stubEnv('OPA_BIN', '');
      vi.stubEnv('CLOUDORCH_OPA_WASM_BUILD', '');
      vi.stubEnv('PATH', '');
      vi.stubEnv('CLOUDORCH_CACHE', join(work, 'empty-cache'));
    });
    afterEach(() => {
      vi.unstubAllEnvs();
    });

    it('fails for policies no bundle matches, naming OPA_BIN, scripts/setup.sh and fromFile', async () => {
      const changed = join(work, 'changed-policies');
      cpSync(POLICY_DIR, changed, { recursive: true, filter: (f) => !/\/(build|prebuilt)(\/|$)/.test(f) });
      writeFileSync(join(changed, 'zz_extra.rego'), 'package cloudorch.extra\n\nanswer := 42\n');
      const err = await PolicyBundleSource.build({
        policiesDir: changed,
        workDir: join(work, 'no-opa'),
      }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(PolicyBundleUnavailableError);
      const e = err as PolicyBundleUnavailableError;
      expect(e.cause).toBeInstanceOf(NoPolicyBundleError);
      for (const hint of ['OPA_BIN', 'scripts/setup.sh', 'PolicyBundleSource.fromFile'])
        expect(e.message).toContain(hint);
      expect(e.remediation).toContain('OPA_BIN');
    });

    it('reuses a bundle already built from the same policy sources', async () => {
      const source = await PolicyBundleSource.build({ workDir: join(work, 'built') });
      expect(readFileSync(join(source.assetDir, BUNDLE_FILE))).toEqual(readFileSync(built));
    });
  });
});
