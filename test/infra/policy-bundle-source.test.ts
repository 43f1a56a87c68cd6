/**
 * The two ways the construct gets its policy bundle (built by opa, or a prebuilt file) and the typed
 * error when neither can work.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  PolicyBundleSource,
  PolicyBundleUnavailableError,
  preparePolicyAsset,
} from '../../infra/lib/index.js';
import { parseBundle } from '../../lambdas/policy/bundle.js';
import { BUNDLE_FILE } from '../../policies/build.js';

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
  it('compiles the policies with opa into the bundle the construct deploys', async () => {
    const source = await PolicyBundleSource.build({ workDir: join(work, 'build') });
    const bundle = parseBundle(readFileSync(join(source.assetDir, BUNDLE_FILE)));
    expect(bundle.revision).toMatch(/^[0-9a-f]{16}$/);
  });

  it('without opa, fails naming OPA_BIN, scripts/setup.sh and the prebuilt alternative', async () => {
    const env = { PATH: '', CLOUDORCH_CACHE: join(work, 'empty-cache') };
    const err = await PolicyBundleSource.build({ env, workDir: join(work, 'no-opa') }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(PolicyBundleUnavailableError);
    const e = err as PolicyBundleUnavailableError;
    expect(e.message).toContain('OPA_BIN');
    expect(e.message).toContain('scripts/setup.sh');
    expect(e.message).toContain('PolicyBundleSource.fromFile');
    expect(e.remediation).toContain('OPA_BIN');
  });

  it('without opa, reuses a bundle already built from the same policy sources', async () => {
    const env = { PATH: '', CLOUDORCH_CACHE: join(work, 'empty-cache') };
    const source = await PolicyBundleSource.build({ env, workDir: join(work, 'built') });
    expect(readFileSync(join(source.assetDir, BUNDLE_FILE))).toEqual(readFileSync(built));
  });
});
