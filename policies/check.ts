/**
 * The policy checks, one definition for the test command (scripts/policy-checks.sh) and for
 * `cloudorch policy test`: formatting, a strict compile, the Rego unit tests, and their coverage
 * against a threshold. Each step reports opa's own output; a failed step stops the checks. A missing
 * folder, or one without .rego files, is a PolicyBuildError before any opa step.
 *
 * Run directly: `tsx policies/check.ts [policiesDir]`.
 */
import { execFile } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { PolicyBuildError } from '../lambdas/policy/errors.js';
import { findOpa, POLICY_DIR } from './build.js';

const run = promisify(execFile);

/** The least share of Rego lines the unit tests must cover, in percent. */
export const COVERAGE_THRESHOLD = 90;
/**
 * Build output holds JSON (capabilities, coverage) that must not load as policy data, and the
 * packaged bundle (`prebuilt/`, left by a pack) would load as a second, stale copy of every rule.
 */
const IGNORE = ['--ignore', 'build', '--ignore', 'prebuilt'];

export interface CheckOptions {
  readonly policiesDir?: string;
  readonly coverageThreshold?: number;
  readonly opa?: string;
  /** Called as each step ends, for progress lines. */
  readonly onStep?: (step: StepResult) => void;
}

export interface StepResult {
  readonly step: string;
  readonly ok: boolean;
  /** opa's output (on failure, the reason). */
  readonly output: string;
}

async function opa(bin: string, args: string[]): Promise<{ ok: boolean; output: string }> {
  try {
    const r = await run(bin, args, { maxBuffer: 64 * 1024 * 1024 });
    return { ok: true, output: `${r.stdout}${r.stderr}`.trim() };
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string };
    return { ok: false, output: `${err.stdout ?? ''}${err.stderr ?? ''}`.trim() || err.message };
  }
}

/** Reads the coverage report; a report that does not parse is a failed step, not a pass. */
function coverageStep(output: string, ok: boolean, threshold: number): StepResult {
  let coverage: number | undefined;
  try {
    coverage = (JSON.parse(output) as { coverage?: number }).coverage;
  } catch {
    // Not JSON: opa failed before reporting.
  }
  const step = `coverage at least ${threshold}%`;
  if (coverage === undefined) return { step, ok: false, output };
  return { step, ok: ok && coverage >= threshold, output: `coverage ${coverage.toFixed(1)}%` };
}

/** Whether `dir` holds a .rego file at any depth, outside the build output. */
async function hasRego(dir: string): Promise<boolean> {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    if (e.isFile() && e.name.endsWith('.rego')) return true;
    if (e.isDirectory() && e.name !== 'build' && (await hasRego(join(dir, e.name)))) return true;
  }
  return false;
}

/** A folder that is missing or holds no policy is said as such, not as a formatting failure. */
async function checkFolder(dir: string): Promise<void> {
  const s = await stat(dir).catch(() => undefined);
  if (!s?.isDirectory()) throw new PolicyBuildError(`policies folder ${dir} does not exist`, '');
  if (!(await hasRego(dir))) throw new PolicyBuildError(`policies folder ${dir} holds no .rego file`, '');
}

/**
 * `opa fmt --list --fail` fails both for unformatted files (it lists them) and for a file it cannot
 * parse (`failed to format …: rego_parse_error`); only the first is fixed by `opa fmt -w`.
 */
function fmtOutput(dir: string, output: string): { step: string; output: string } {
  if (/rego_parse_error|failed to format/.test(output)) return { step: 'opa parse', output };
  return { step: 'opa fmt', output: `not opa-fmt formatted (run: opa fmt -w ${dir}):\n${output}` };
}

/** One line per step: `ok   step` (with the coverage figure), or `FAIL step` and opa's output. */
export function stepLine(s: StepResult): string {
  if (!s.ok) return `FAIL ${s.step}\n${s.output}`;
  return `ok   ${s.step}${s.step.startsWith('coverage') ? ` (${s.output})` : ''}`;
}

/** Runs every check in order; stops at the first failure. */
export async function checkPolicies(opts: CheckOptions = {}): Promise<{ ok: boolean; steps: StepResult[] }> {
  const dir = resolve(opts.policiesDir ?? POLICY_DIR);
  const bin = opts.opa ?? findOpa();
  const threshold = opts.coverageThreshold ?? COVERAGE_THRESHOLD;
  await checkFolder(dir);
  const steps: StepResult[] = [];
  const plain: [string, string[]][] = [
    ['opa fmt', ['fmt', '--list', '--fail', dir]],
    ['opa check --strict', ['check', '--strict', ...IGNORE, dir]],
    ['opa test', ['test', ...IGNORE, dir]],
  ];
  for (const [step, args] of plain) {
    const r = await opa(bin, args);
    const failed = step === 'opa fmt' && !r.ok ? fmtOutput(dir, r.output) : { step, output: r.output };
    steps.push({ ...failed, ok: r.ok });
    opts.onStep?.(steps.at(-1) as StepResult);
    if (!r.ok) return { ok: false, steps };
  }
  const cov = await opa(bin, ['test', ...IGNORE, '--coverage', '--threshold', String(threshold), dir]);
  const result = coverageStep(cov.output, cov.ok, threshold);
  steps.push(result);
  opts.onStep?.(result);
  return { ok: result.ok, steps };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  checkPolicies({
    ...(process.argv[2] ? { policiesDir: process.argv[2] } : {}),
    onStep: (s) => console.log(stepLine(s)),
  }).then(
    (r) => process.exit(r.ok ? 0 : 1),
    (e: unknown) => {
      console.error(e instanceof Error ? e.message : e);
      process.exit(1);
    },
  );
}
