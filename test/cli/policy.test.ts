/** `cloudorch policy build|test` through the real binary, on copies of the policies. */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBundle } from '../../lambdas/policy/bundle.js';
import { POLICY_DIR, sourceRevision } from '../../policies/build.js';

const run = promisify(execFile);
const BIN = join(import.meta.dirname, '..', '..', 'bin', 'cloudorch.mjs');
let tmp: string;

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, [BIN, ...args], { timeout: 120_000 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: err.code ?? -1, stdout: err.stdout ?? '', stderr: err.stderr ?? '' };
  }
}

const OUT = join(POLICY_DIR, 'build');
async function policiesCopy(name: string, extra?: string): Promise<string> {
  const dir = join(tmp, name);
  await cp(POLICY_DIR, dir, { recursive: true, filter: (s) => s !== OUT && !s.startsWith(OUT + sep) });
  if (extra !== undefined) await writeFile(join(dir, 'rules', 'extra.rego'), extra);
  return dir;
}

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'cloudorch-policy-cli-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('cloudorch policy', () => {
  it('test passes on the shipped policies, printing each step and the coverage', async () => {
    const r = await cli('policy', 'test');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /ok {3}opa fmt\nok {3}opa check --strict\nok {3}opa test\nok {3}coverage at least 90% \(coverage \d+\.\d%\)/,
    );
  }, 120_000);

  it('test fails on an unformatted policy, naming the file and the fix, and stops there', async () => {
    const dir = await policiesCopy(
      'unformatted',
      'package cloudorch.rules.extra\nviolations contains "x" if {   false }\n',
    );
    const r = await cli('policy', 'test', '--policies', dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('FAIL opa fmt');
    expect(r.stderr).toContain('extra.rego');
    expect(r.stderr).toContain('opa fmt -w');
    expect(r.stdout).not.toContain('opa test');
  }, 120_000);

  it('test says a syntax error is a parse error, with opa s message and no opa fmt -w advice', async () => {
    const dir = await policiesCopy(
      'unparsable',
      'package cloudorch.rules.extra\n\nviolations contains v if {\n',
    );
    const r = await cli('policy', 'test', '--policies', dir);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('FAIL opa parse');
    expect(r.stderr).toContain('rego_parse_error');
    expect(r.stderr).toContain('extra.rego');
    expect(r.stderr).not.toContain('opa fmt -w');
    expect(r.stderr).not.toContain('FAIL opa fmt');
  }, 120_000);

  it('test says a missing policies folder, or one without .rego, is that, before any opa step', async () => {
    const missing = join(tmp, 'no-such-folder');
    expect(await cli('policy', 'test', '--policies', missing)).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: policies folder ${missing} does not exist\n`,
    });
    const empty = join(tmp, 'empty');
    await mkdir(join(empty, 'build'), { recursive: true });
    await writeFile(join(empty, 'build', 'stale.rego'), 'package x\n');
    expect(await cli('policy', 'test', '--policies', empty)).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: policies folder ${empty} holds no .rego file\n`,
    });
  }, 120_000);

  it('test fails when coverage is under the threshold asked for', async () => {
    const r = await cli('policy', 'test', '--coverage', '100');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/FAIL coverage at least 100%/);
  }, 120_000);

  it('build writes the bundle with the sources revision, and a broken policy exits 1 with opa s message', async () => {
    const dir = await policiesCopy('good');
    const out = join(tmp, 'out');
    const ok = await cli('policy', 'build', '--policies', dir, '--out', out);
    expect(ok.code).toBe(0);
    const revision = await sourceRevision(dir);
    expect(ok.stdout).toContain(`(revision ${revision})`);
    expect(parseBundle(await readFile(join(out, 'bundle.tar.gz'))).revision).toBe(revision);

    const broken = await policiesCopy(
      'broken',
      'package cloudorch.rules.extra\n\nviolations contains v if {\n',
    );
    const bad = await cli('policy', 'build', '--policies', broken, '--out', join(tmp, 'out-broken'));
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('rego_parse_error');
  }, 120_000);
});
