/**
 * In a checkout, `bin/cloudorch.mjs` runs a build of the sources as they are now: it rebuilds dist/
 * when any source the bundle was made from changed, and an installed package (no sources beside
 * it) runs the build it shipped with. Exercised on a copy of the checkout, so the real dist/ and
 * sources are untouched.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/build-dist.mjs';

const run = promisify(execFile);
/** Two esbuild builds of the CLI each: seconds alone, much longer on a busy 2-core machine. */
const BUILDS_TIMEOUT = 120_000;
let copy: string;

const help = async () => (await run(process.execPath, [join(copy, 'bin', 'cloudorch.mjs'), '--help'])).stdout;

beforeAll(async () => {
  copy = await mkdtemp(join(tmpdir(), 'cloudorch-dist-'));
  const output = join(ROOT, 'policies', 'build');
  for (const dir of ['bin', 'local', 'lambdas', 'policies', 'infra', 'bridge']) {
    await cp(join(ROOT, dir), join(copy, dir), {
      recursive: true,
      filter: (s) => s !== output && !s.startsWith(output + sep),
    });
  }
  await mkdir(join(copy, 'scripts'));
  await cp(join(ROOT, 'scripts', 'build-dist.mjs'), join(copy, 'scripts', 'build-dist.mjs'));
  await cp(join(ROOT, 'package.json'), join(copy, 'package.json'));
  await symlink(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
});

afterAll(async () => {
  await rm(copy, { recursive: true, force: true });
});

describe('compiled CLI in a checkout', () => {
  it(
    'builds dist/ on first run and rebuilds it when a source changes',
    async () => {
      expect(await help()).toContain('Keep EKS clusters converged');
      const main = join(copy, 'local', 'cli', 'main.ts');
      await writeFile(
        main,
        (await readFile(main, 'utf8')).replace('Keep EKS clusters converged', 'Keep EKS fleets converged'),
      );
      expect(await help()).toContain('Keep EKS fleets converged');
    },
    BUILDS_TIMEOUT,
  );

  it(
    'rebuilds a bundle that was deleted or damaged, not only one whose sources changed',
    async () => {
      const bundle = join(copy, 'dist', 'cli.mjs');
      await rm(bundle);
      expect(await help()).toContain('Keep EKS fleets converged');
      await writeFile(bundle, '');
      expect(await help()).toContain('Keep EKS fleets converged');
    },
    BUILDS_TIMEOUT,
  );

  it('runs the shipped build, untouched, when no sources are beside it', async () => {
    const before = await readFile(join(copy, 'dist', 'cli.mjs'), 'utf8');
    await rm(join(copy, 'local', 'cli', 'main.ts'));
    expect(await help()).toContain('Keep EKS fleets converged');
    expect(await readFile(join(copy, 'dist', 'cli.mjs'), 'utf8')).toBe(before);
  });
});
