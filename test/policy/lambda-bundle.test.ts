/**
 * The engine as the policy function bundles it (infra/bundling/function-bundling.mjs: no yaml
 * library, the yaml.* built-ins left out of the capabilities) decides every policy case as the
 * engine run from source does. Built with the functions' options, run in a fresh node. A bundle
 * built elsewhere that calls a yaml built-in is refused by the engine, from source as in Lambda.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { buildFunction } from '../../infra/bundling/build-function.mjs';
import { FUNCTION_OUTFILE } from '../../infra/bundling/function-bundling.mjs';
import { PROJECT_ROOT } from '../../infra/lib/functions.js';
import { PolicyEngine } from '../../lambdas/policy/engine.js';
import { FileBundleSource } from '../../lambdas/policy/sources.js';
import { findOpa } from '../../policies/build.js';
import { BUNDLE_PATH, CASES } from './support.js';

const dir = mkdtempSync(join(tmpdir(), 'cloudorch-policy-lambda-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the policy function’s bundle', () => {
  it('loads the policy bundle and decides every case as expected', async () => {
    const entry = join(dir, 'engine.ts');
    writeFileSync(
      entry,
      `import { PolicyEngine } from ${JSON.stringify(join(PROJECT_ROOT, 'lambdas/policy/engine.ts'))};
import { FileBundleSource } from ${JSON.stringify(join(PROJECT_ROOT, 'lambdas/policy/sources.ts'))};
export async function decideAll(bundle: string, inputs: unknown[]) {
  const engine = new PolicyEngine({ source: new FileBundleSource(bundle) });
  await engine.ready();
  return { health: engine.health().status, decisions: inputs.map((i) => engine.evaluate(i as never)) };
}
`,
    );
    const out = join(dir, 'out');
    await buildFunction(PROJECT_ROOT, entry, out);
    const inputs = join(dir, 'inputs.json');
    writeFileSync(inputs, JSON.stringify(CASES.map((c) => c.input)));
    const code = `const m = await import(${JSON.stringify(pathToFileURL(join(out, FUNCTION_OUTFILE)).href)});
      const inputs = JSON.parse(process.getBuiltinModule('fs').readFileSync(${JSON.stringify(inputs)}, 'utf8'));
      console.log(JSON.stringify(await m.decideAll(${JSON.stringify(BUNDLE_PATH)}, inputs)));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', code], {
      env: { PATH: process.env['PATH'] ?? '' },
      maxBuffer: 16 * 1024 * 1024,
    });
    const r = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as {
      health: string;
      decisions: { allow: boolean; violations: { rule: string }[] }[];
    };
    expect(r.health).toBe('ok');
    expect(
      r.decisions.map((d) => ({
        allow: d.allow,
        rules: [...new Set(d.violations.map((v) => v.rule))].sort(),
      })),
    ).toEqual(CASES.map((c) => ({ allow: c.allow, rules: [...c.rules].sort() })));
  }, 120_000);

  it('refuses a bundle built elsewhere that calls a yaml built-in, naming the call', async () => {
    const src = join(dir, 'yaml-policy');
    mkdirSync(src, { recursive: true });
    writeFileSync(
      join(src, 'decision.rego'),
      'package cloudorch\n\ndecision := {"allow": false, "violations": [], "doc": yaml.unmarshal("a: 1")}\n',
    );
    const out = join(dir, 'yaml-bundle.tar.gz');
    // Plain opa, without CloudOrch's capabilities: what a bundle built elsewhere may hold.
    await promisify(execFile)(findOpa(), ['build', '-t', 'wasm', '-e', 'cloudorch/decision', '-o', out, src]);
    expect(readFileSync(out).length).toBeGreaterThan(0);
    const engine = new PolicyEngine({ source: new FileBundleSource(out) });
    await engine.ready();
    expect(engine.health().status).toBe('degraded');
    expect(engine.health().reason).toMatch(
      /bundle calls yaml\.unmarshal, which the policy function does not include/,
    );
  }, 60_000);
});
