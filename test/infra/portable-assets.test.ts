/**
 * Asset hashes do not depend on where the checkout lives: the same code synthesized from two folders
 * at different depths gives the same assets (esbuild's source maps used to carry the output path,
 * so `cdk diff` between two checkouts showed every function changed).
 */
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/lib/functions.js';

const run = promisify(execFile);
const scratch = mkdtempSync(join(tmpdir(), 'cloudorch-portable-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The tracked files of this working tree (and the built policy bundle, if any) in a new folder. */
function copyCheckout(to: string): void {
  const files = execFileSync('git', ['ls-files'], { cwd: PROJECT_ROOT, encoding: 'utf8' }).split('\n');
  for (const f of files.filter((x) => x && existsSync(join(PROJECT_ROOT, x)))) {
    mkdirSync(dirname(join(to, f)), { recursive: true });
    cpSync(join(PROJECT_ROOT, f), join(to, f));
  }
  const built = join(PROJECT_ROOT, 'policies', 'build');
  if (existsSync(built)) cpSync(built, join(to, 'policies', 'build'), { recursive: true });
  symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(to, 'node_modules'));
}

/** The asset hashes of `cdk synth` run in `checkout`. */
async function assetHashes(checkout: string): Promise<string[]> {
  const out = join(checkout, 'cdk.out');
  await run(join(checkout, 'node_modules', '.bin', 'cdk'), ['synth', '-q', '--no-notices', '--output', out], {
    cwd: checkout,
    env: { ...process.env, CDK_DISABLE_CLI_TELEMETRY: 'true' },
    maxBuffer: 64 * 1024 * 1024,
  });
  const manifest = JSON.parse(readFileSync(join(out, 'CloudOrch.assets.json'), 'utf8')) as {
    files: Record<string, unknown>;
  };
  return Object.keys(manifest.files).sort();
}

describe('asset hashes', () => {
  it('are the same from two checkouts in different folders', { timeout: 300_000 }, async () => {
    const a = join(scratch, 'a');
    const b = join(scratch, 'b', 'deeper', 'checkout');
    copyCheckout(a);
    copyCheckout(b);
    const first = await assetHashes(a);
    const second = await assetHashes(b);
    expect(first.length).toBeGreaterThan(11);
    expect(second).toEqual(first);
  });
});
