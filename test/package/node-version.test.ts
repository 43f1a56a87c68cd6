/** The CLI refuses a Node older than package.json's engines at once, instead of failing every run. */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { nodeVersionProblem } from '../../bin/node-version.mjs';

const ROOT = join(import.meta.dirname, '..', '..');
const engines = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }
).engines.node;

describe('Node version check', () => {
  it('follows package.json engines', () => {
    expect(engines).toBe('>=22.12.0');
    expect(nodeVersionProblem('20.20.2')).toBe(
      'cloudorch needs Node 22.12 or later (package.json engines: >=22.12.0); this is Node 20.20.2',
    );
    expect(nodeVersionProblem('22.11.0')).toMatch(/needs Node 22\.12/);
    for (const ok of ['22.12.0', '22.20.1', '24.22.3', '25.0.0'])
      expect(nodeVersionProblem(ok)).toBeUndefined();
  });

  // The machine's own Node (20 on this machine kind; setup puts 24 first on PATH for everything else).
  it.runIf(existsSync('/usr/bin/node'))('the binary says so and exits 1 on an older Node', async () => {
    const version = (await promisify(execFile)('/usr/bin/node', ['--version'])).stdout.trim().slice(1);
    const r = await promisify(execFile)('/usr/bin/node', [
      join(ROOT, 'bin', 'cloudorch.mjs'),
      '--version',
    ]).catch((e: { code: number; stderr: string }) => e);
    if (nodeVersionProblem(version)) {
      expect(r).toMatchObject({ code: 1, stderr: `error: ${nodeVersionProblem(version)}\n` });
    } else expect(r).toMatchObject({ stdout: expect.stringMatching(/^\d+\.\d+\.\d+\n$/) });
  });
});
