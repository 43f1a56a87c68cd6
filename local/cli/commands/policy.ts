/**
 * `cloudorch policy build|test`: the opa steps for policy authors, explicit. Nothing else builds
 * the bundle as a side effect: `plan` judges with the bundle its target serves, and a running
 * `cloudorch dev` changes its bundle only under `--watch-policies`.
 */
import { join, relative, resolve } from 'node:path';
import { PolicyBuildError } from '../../../lambdas/policy/errors.js';
import { buildPolicyBundle, POLICY_DIR } from '../../../policies/build.js';
import { COVERAGE_THRESHOLD, checkPolicies, stepLine } from '../../../policies/check.js';
import type { Cli } from '../cli.js';
import type { Output } from '../format.js';
import { EXIT } from './exit.js';

interface PolicyOptions {
  policies?: string;
  out?: string;
  coverage?: string;
}

async function policyBuild(o: Output, opts: PolicyOptions): Promise<number> {
  const policiesDir = resolve(opts.policies ?? POLICY_DIR);
  const outDir = resolve(opts.out ?? join(policiesDir, 'build'));
  try {
    const r = await buildPolicyBundle({ policiesDir, outDir });
    o.out(`built ${relative(process.cwd(), r.bundlePath) || r.bundlePath} (revision ${r.revision})`);
    return EXIT.ok;
  } catch (err) {
    if (!(err instanceof PolicyBuildError)) throw err;
    o.err(`error: ${err.message}`);
    return EXIT.error;
  }
}

async function policyTest(o: Output, opts: PolicyOptions): Promise<number> {
  const threshold = opts.coverage === undefined ? COVERAGE_THRESHOLD : Number(opts.coverage);
  if (!Number.isFinite(threshold) || threshold < 0 || threshold > 100) {
    o.err(`error: --coverage must be a percentage from 0 to 100 (got ${opts.coverage})`);
    return EXIT.error;
  }
  try {
    const r = await checkPolicies({
      ...(opts.policies ? { policiesDir: opts.policies } : {}),
      coverageThreshold: threshold,
      onStep: (s) => (s.ok ? o.out(stepLine(s)) : o.err(stepLine(s))),
    });
    return r.ok ? EXIT.ok : EXIT.error;
  } catch (err) {
    // No opa: say how to get one.
    if (!(err instanceof PolicyBuildError)) throw err;
    o.err(`error: ${err.message}`);
    return EXIT.error;
  }
}

export function registerPolicy({ program, o }: Cli): void {
  const policy = program
    .command('policy')
    .description('build and test the OPA policies (needs the opa CLI: scripts/setup.sh or OPA_BIN)');
  policy
    .command('build')
    .description('compile the policies into the WASM bundle (bundle.tar.gz) the engine loads')
    .option('--policies <dir>', 'policies folder (default: the one CloudOrch ships)')
    .option('--out <dir>', 'output folder (default: <policies>/build)')
    .action(async (opts: PolicyOptions) => {
      process.exitCode = await policyBuild(o(), opts);
    });
  policy
    .command('test')
    .description('opa fmt, opa check --strict, opa test, and test coverage against a threshold')
    .option('--policies <dir>', 'policies folder (default: the one CloudOrch ships)')
    .option('--coverage <percent>', 'least test coverage', String(COVERAGE_THRESHOLD))
    .action(async (opts: PolicyOptions) => {
      process.exitCode = await policyTest(o(), opts);
    });
}
