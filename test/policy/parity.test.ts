/**
 * The same inputs give the same decisions under `opa eval` (OPA's Go evaluator, the one `opa test`
 * uses) and the WASM engine. One opa process evaluates every case, to keep the suite lean.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PolicyInput } from '../../lambdas/core/policy-input.js';
import { PolicyEngine } from '../../lambdas/policy/engine.js';
import { FileBundleSource } from '../../lambdas/policy/sources.js';
import { findOpa, POLICY_DIR } from '../../policies/build.js';
import { BUNDLE_PATH, CASES } from './support.js';

const run = promisify(execFile);
const engine = new PolicyEngine({ source: new FileBundleSource(BUNDLE_PATH) });
const QUERY = '[d | some c in input.cases; d := data.cloudorch.decision with input as c]';

/** Inputs that are not policy inputs at all: both evaluators must deny them alike. */
const MALFORMED = [{}, 'not-an-input', { cluster: null, plan: 'DeleteCluster' }] as unknown as PolicyInput[];
const INPUTS = [
  ...CASES.map((c) => ({ name: c.name, input: c.input })),
  ...MALFORMED.map((input) => ({ name: `malformed input ${JSON.stringify(input)}`, input })),
];

let dir: string;
let topdown: unknown[];

beforeAll(async () => {
  await engine.ready();
  dir = await mkdtemp(join(tmpdir(), 'cloudorch-parity-'));
  const inputFile = join(dir, 'input.json');
  await writeFile(inputFile, JSON.stringify({ cases: INPUTS.map((c) => c.input) }));
  const ignore = ['*_test.rego', 'build', 'prebuilt'].flatMap((p) => ['--ignore', p]);
  const args = ['eval', '-f', 'json', '-i', inputFile, ...ignore];
  const { stdout } = await run(findOpa(), [...args, '-d', '.', QUERY], {
    cwd: POLICY_DIR,
    maxBuffer: 64 * 1024 * 1024,
  });
  const out = JSON.parse(stdout) as { result: { expressions: { value: unknown[] }[] }[] };
  topdown = out.result[0]!.expressions[0]!.value;
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('opa eval and WASM agree', () => {
  it('opa eval answered every case', () => {
    expect(topdown).toHaveLength(INPUTS.length);
  });

  it.each(INPUTS.map((c, i) => ({ ...c, i })))('$name', ({ input, i }) => {
    const { bundleVersion: _v, ...wasm } = engine.evaluate(input);
    expect(wasm).toEqual(topdown[i]);
  });
});
