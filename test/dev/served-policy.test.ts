/**
 * The bundle `cloudorch dev` serves is its own copy: building the policies elsewhere never swaps it,
 * and only --watch-policies rebuilds it, keeping the last good bundle when a build breaks.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBundle } from '../../lambdas/policy/bundle.js';
import { relevant, servePolicyBundle } from '../../local/runtime/served-policy.js';
import { buildPolicyBundle, POLICY_DIR } from '../../policies/build.js';

let tmp: string;
const OUT = join(POLICY_DIR, 'build');

/** A copy of the real policies, without their build output. */
async function policiesCopy(name: string): Promise<string> {
  const dir = join(tmp, name);
  await cp(POLICY_DIR, dir, { recursive: true, filter: (s) => s !== OUT && !s.startsWith(OUT + sep) });
  return dir;
}

const revisionOf = async (path: string) => parseBundle(await readFile(path)).revision;
const EXTRA = 'package cloudorch.rules.extra\n\nviolations contains "extra" if false\n';

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'cloudorch-served-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('the policy bundle dev serves', () => {
  it('rebuilds only for changes that can alter the bundle', () => {
    for (const f of ['rules/x.rego', 'allowlists.json', 'settings.yaml', 'rules', null])
      expect(relevant(f)).toBe(true);
    for (const f of [
      'rules/x_test.rego',
      'build/bundle.tar.gz',
      'prebuilt/bundle.tar.gz',
      'build',
      'build.ts',
      'check.ts',
    ])
      expect(relevant(f)).toBe(false);
  });

  it('is its own copy: a build of the policies folder does not change it', async () => {
    const dir = await policiesCopy('copy');
    const served = await servePolicyBundle({ policiesDir: dir });
    try {
      expect(served.bundlePath.startsWith(dir)).toBe(false);
      const before = await readFile(served.bundlePath);
      await writeFile(join(dir, 'rules', 'extra.rego'), EXTRA);
      const rebuilt = await buildPolicyBundle({ policiesDir: dir, outDir: join(dir, 'build') });
      expect(rebuilt.revision).not.toBe(served.revision());
      expect(Buffer.compare(await readFile(served.bundlePath), before)).toBe(0);
    } finally {
      await served.stop();
    }
  });

  it('--watch-policies rebuilds on a change, keeps the last good bundle on a broken build, and says why', async () => {
    const dir = await policiesCopy('watched');
    const lines: string[] = [];
    const served = await servePolicyBundle({
      policiesDir: dir,
      watch: true,
      debounceMs: 100,
      log: (l) => lines.push(l),
    });
    try {
      const first = served.revision();
      await writeFile(join(dir, 'rules', 'extra.rego'), EXTRA);
      await until(() => served.revision() !== first);
      await served.idle();
      const second = served.revision();
      expect(await revisionOf(served.bundlePath)).toBe(second);
      expect(lines.some((l) => l.includes(`policies rebuilt: revision ${second}`))).toBe(true);

      await writeFile(
        join(dir, 'rules', 'extra.rego'),
        'package cloudorch.rules.extra\n\nviolations contains v if {\n',
      );
      await until(() => lines.some((l) => l.includes('policy build failed')));
      await served.idle();
      expect(served.revision()).toBe(second);
      expect(await revisionOf(served.bundlePath)).toBe(second);
      expect(lines.find((l) => l.includes('policy build failed'))).toMatch(
        /still serving revision .*rego_parse_error/s,
      );
    } finally {
      await served.stop();
    }
  }, 60_000);
});

async function until(f: () => boolean, ms = 45_000): Promise<void> {
  const end = Date.now() + ms;
  while (!f()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 50));
  }
}
