/**
 * opa-wasm-build (tools/opa-wasm-build: OPA's wasm compiler alone, what the demo's setup builds)
 * builds the same bundle as the pinned opa CLI, entry for entry, and refuses every other command.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTar } from '../../lambdas/policy/bundle.js';
import { buildPolicyBundle, findOpa, findWasmBuilder } from '../../policies/build.js';

const run = promisify(execFile);
let tmp: string;
let builder: string;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'cloudorch-wasm-builder-'));
  // scripts/setup-node.sh builds it (both modes) and names it; build.sh returns at once when it is there.
  const found = findWasmBuilder();
  builder =
    found ??
    (await run(join(import.meta.dirname, '..', '..', 'tools', 'opa-wasm-build', 'build.sh'))).stdout.trim();
}, 300_000);

afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const entries = async (path: string) => readTar(gunzipSync(await readFile(path)));

describe('opa-wasm-build', () => {
  it('builds the same bundle as the opa CLI: every entry (policy.wasm, data, .manifest) byte for byte', async () => {
    const byOpa = await buildPolicyBundle({ outDir: join(tmp, 'opa'), opa: findOpa() });
    const byBuilder = await buildPolicyBundle({ outDir: join(tmp, 'builder'), opa: builder });
    expect(byBuilder.revision).toBe(byOpa.revision);
    const a = await entries(byOpa.bundlePath);
    const b = await entries(byBuilder.bundlePath);
    expect([...b.keys()].sort()).toEqual([...a.keys()].sort());
    expect(a.has('policy.wasm')).toBe(true);
    for (const [name, bytes] of a)
      expect(Buffer.from(b.get(name) ?? []).equals(Buffer.from(bytes)), name).toBe(true);
  });

  it('a failed build leaves no output file behind', async () => {
    const out = join(tmp, 'failed.tar.gz');
    const r = await run(builder, [
      'build',
      '-t',
      'wasm',
      '-e',
      'x',
      '-o',
      out,
      join(tmp, 'nothing-here'),
    ]).catch((e: { code: number; stderr: string }) => e);
    expect(r).toMatchObject({ code: 2 });
    expect(existsSync(out)).toBe(false);
  });

  it('answers any other opa command with an error that names what to install', async () => {
    const r = await run(builder, ['fmt', '--list', '.']).catch((e: { code: number; stderr: string }) => e);
    expect(r).toMatchObject({ code: 2 });
    expect((r as { stderr: string }).stderr).toContain('install the opa CLI (. scripts/setup.sh)');
  });
});
