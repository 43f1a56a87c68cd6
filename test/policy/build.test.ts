/** The build fails loudly on broken policies and packs exactly the policies and the data files. */
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBundle, readTar } from '../../lambdas/policy/bundle.js';
import { PolicyBuildError } from '../../lambdas/policy/errors.js';
import { buildPolicyBundle, ensurePolicyBundle, POLICY_DIR } from '../../policies/build.js';
import { checkPolicies } from '../../policies/check.js';
import { BUNDLE_PATH } from './support.js';
import { tarGz } from './tar.js';

let tmp: string;

const OUT = join(POLICY_DIR, 'build');
/** Copies the policies without their build output. */
const sources = (src: string) => src !== OUT && !src.startsWith(OUT + sep);

/** A copy of the real policies with one extra file, built into its own folder. */
async function buildWith(name: string, rego: string) {
  const dir = join(tmp, name);
  await cp(POLICY_DIR, dir, { recursive: true, filter: sources });
  await writeFile(join(dir, 'rules', `${name}.rego`), rego);
  return buildPolicyBundle({ policiesDir: dir, outDir: join(dir, 'build') });
}

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'cloudorch-build-'));
});

afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('policy build', () => {
  it.each([
    {
      why: 'a syntax error',
      rego: 'package cloudorch.rules.broken\n\nviolations contains v if {\n\tv := \n',
      opaSays: 'rego_parse_error',
    },
    {
      why: 'a type error',
      rego: 'package cloudorch.rules.typed\n\nviolations contains v if {\n\tv := count(1)\n}\n',
      opaSays: 'rego_type_error',
    },
    {
      why: 'a built-in the wasm SDK does not implement (it would fail at evaluation instead)',
      rego: 'package cloudorch.rules.clock\n\nviolations contains time.parse_rfc3339_ns(input.now) if false\n',
      opaSays: 'undefined function time.parse_rfc3339_ns',
    },
    {
      // The wasm SDK implements it, but the policy function's bundle leaves yaml out.
      why: 'a yaml built-in (the policy function does not bundle yaml)',
      rego: 'package cloudorch.rules.doc\n\nviolations contains yaml.marshal(input) if false\n',
      opaSays: 'undefined function yaml.marshal',
    },
  ])('fails on $why with opa’s own message', async ({ rego, opaSays }) => {
    const name = opaSays.replace(/\W/g, '_');
    const err = await buildWith(name, rego).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(PolicyBuildError);
    expect((err as PolicyBuildError).output).toContain(opaSays);
    expect((err as PolicyBuildError).message).toContain(opaSays);
  });

  it('packs the wasm, the entrypoint and both data files, and no tests', async () => {
    const bytes = await readFile(BUNDLE_PATH);
    const names = [...readTar(gunzipSync(bytes)).keys()];
    expect(names).toContain('policy.wasm');
    expect(names.filter((n) => n.endsWith('_test.rego'))).toEqual([]);
    const manifest = JSON.parse(String(readTar(gunzipSync(bytes)).get('.manifest'))) as {
      wasm: { entrypoint: string }[];
    };
    expect(manifest.wasm.map((w) => w.entrypoint)).toEqual(['cloudorch/decision']);
    const { data } = parseBundle(bytes);
    // The same files the spec schema reads: one source, nothing copied.
    const allowlists = JSON.parse(await readFile(join(POLICY_DIR, 'allowlists.json'), 'utf8')) as object;
    const settings = JSON.parse(await readFile(join(POLICY_DIR, 'settings.json'), 'utf8')) as object;
    expect(data).toEqual({ ...allowlists, ...settings });
  });

  it('rebuilds only when the sources changed', async () => {
    const dir = join(tmp, 'ensure');
    await cp(POLICY_DIR, dir, { recursive: true, filter: sources });
    const out = join(dir, 'build');
    const first = await ensurePolicyBundle({ policiesDir: dir, outDir: out });
    const again = await ensurePolicyBundle({ policiesDir: dir, outDir: out });
    await writeFile(
      join(dir, 'settings.json'),
      (await readFile(join(dir, 'settings.json'), 'utf8')).replace('5000', '6000'),
    );
    const changed = await ensurePolicyBundle({ policiesDir: dir, outDir: out });
    expect([first.built, again.built, changed.built]).toEqual([true, false, true]);
    expect(changed.revision).not.toBe(first.revision);
    expect(parseBundle(await readFile(changed.bundlePath)).revision).toBe(changed.revision);
  });

  // A pack leaves the shipped bundle in prebuilt/; loaded beside the sources, its stale copy of a
  // rule conflicts with the edited one and every test errors.
  it('checks the sources, never the bundle a pack left in prebuilt/', async () => {
    const dir = join(tmp, 'packed');
    const rule = (n: number) => `package cloudorch.rules.limit\n\nlimit := ${n}\n`;
    const test =
      'package cloudorch_test.limit\n\nimport data.cloudorch.rules.limit\n\ntest_limit if limit.limit == 2\n';
    await mkdir(join(dir, 'prebuilt'), { recursive: true });
    await writeFile(join(dir, 'limit.rego'), rule(2));
    await writeFile(join(dir, 'limit_test.rego'), test);
    await writeFile(join(dir, 'prebuilt', 'bundle.tar.gz'), tarGz({ '/limit.rego': rule(1) }));
    const { ok, steps } = await checkPolicies({ policiesDir: dir, coverageThreshold: 0 });
    expect(steps.filter((s) => !s.ok)).toEqual([]);
    expect(ok).toBe(true);
  });
});
