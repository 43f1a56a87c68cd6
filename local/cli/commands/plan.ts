/**
 * `cloudorch plan -f`: a preview that changes nothing. It observes each cluster read-only, plans
 * against what EKS reports, estimates the cost delta and asks the policies for a verdict.
 * Exit 0: no changes; 2: changes policy allows; 3: changes policy denies, or differences that cannot
 * be applied; 1: error (0/1/2 as `terraform plan -detailed-exitcode`, 3 so CI can tell a plan
 * that apply would carry out from one it would not).
 */

import { estimateObservedCost, estimateSpecCost } from '../../../lambdas/core/cost/estimate.js';
import { runningSpec } from '../../../lambdas/core/cost/running.js';
import { observeScope } from '../../../lambdas/core/observe-scope.js';
import { describeOperation, plan } from '../../../lambdas/core/plan/plan.js';
import { isMutating, type Operation } from '../../../lambdas/core/plan/types.js';
import { buildPolicyInput, type PolicyDecision } from '../../../lambdas/core/policy-input.js';
import { refOf } from '../../../lambdas/core/provider.js';
import type { CloudClusterSpec } from '../../../lambdas/core/spec/schema.js';
import { UPGRADE_WARNING_HINT } from '../../../lambdas/core/status-parts.js';
import type { EnginePolicy } from '../../../lambdas/handlers/clients/policy.js';
import type { Cli } from '../cli.js';
import { type Output, paint } from '../format.js';
import { loadManifests } from '../load.js';
import type { Target } from '../target.js';
import { EXIT, PLAN_EXIT_HELP } from './exit.js';
import { planRollouts } from './plan-rollout.js';

/**
 * One manifest's exit code. An impossible difference blocks even without other changes (apply would
 * never converge); a denial blocks only changes, as a plan with none applies nothing. Codes are
 * ordered by severity, so the worst manifest decides the command's code.
 */
function verdict(ops: readonly Operation[], allowed: boolean): number {
  if (ops.some((op) => op.kind === 'Impossible')) return EXIT.blocked;
  if (!ops.some(isMutating)) return EXIT.ok;
  return allowed ? EXIT.changes : EXIT.blocked;
}

/**
 * One numbered plan entry. What cannot converge and a step past EKS's upgrade insights stand out
 * (yellow, with what to do); the other operations are plain.
 */
export function operationLine(o: Output, op: Operation, n: number): string {
  const line = `  ${n}. ${describeOperation(op)}`;
  if (op.kind === 'Impossible') return paint(o, 'yellow', `${line}\n     hint: ${op.remediation}`);
  if (op.kind === 'UpgradeWarning') return paint(o, 'yellow', `${line}\n     hint: ${UPGRADE_WARNING_HINT}`);
  return line;
}

/**
 * The policy verdict, its violations, then each operation the pipeline will hold until a human
 * approves it (listed under a denial too: approving would not be enough there).
 */
export function policyLines(o: Output, d: PolicyDecision & { readonly degraded: boolean }): string[] {
  const verdict = d.degraded
    ? paint(o, 'red', '  policy: DEGRADED (no bundle loaded): would be denied')
    : d.allow
      ? paint(o, 'green', '  policy: allowed')
      : paint(o, 'red', '  policy: DENIED');
  return [
    verdict,
    ...d.violations.map((v) => `    - [${v.severity}] ${v.rule}: ${v.message}`),
    ...d.approvals.map((a) =>
      paint(o, 'yellow', `  requires approval: ${a.operation} (${a.rule}): ${a.reason}`),
    ),
  ];
}

/** What one cluster's plan needs: its id, the spec to plan, and the generation that would run. */
export interface PlanSubject {
  readonly id: string;
  readonly spec: CloudClusterSpec;
  readonly generation: number;
}

/**
 * Plans one cluster against what EKS reports, prints its section (each line after `indent`), and
 * returns its exit code.
 */
export async function planCluster(
  t: Target,
  o: Output,
  policy: EnginePolicy,
  m: PlanSubject,
  indent = '',
): Promise<number> {
  const now = new Date();
  const desired = { id: m.id, spec: m.spec, generation: m.generation, deletionRequested: false };
  // What the pipeline reads too: add-ons, access entries and (while an upgrade is pending) insights.
  const observation = await t.provider.observe(refOf(m.spec), observeScope(m.spec));
  const ops = plan(desired, observation, t.defaults);
  const estimate = estimateSpecCost(m.spec, now);
  const decision = await policy.evaluate(
    buildPolicyInput({ desired, observation, plan: ops, estimate, now }),
  );
  // What it will cost to run, against what runs now: autoscaled pools count at their current size.
  const running = estimateSpecCost(runningSpec(m.spec, observation, t.defaults), now).monthlyCost;
  const delta = running - (estimateObservedCost(observation, m.spec.region, now)?.monthlyCost ?? 0);
  const out = (line: string) =>
    o.out(
      line
        .split('\n')
        .map((l) => `${indent}${l}`)
        .join('\n'),
    );
  out(
    `${m.id} (${m.spec.clusterName} in ${m.spec.region}): ${observation.cluster ? `cluster exists (${observation.cluster.status}, ${observation.cluster.version})` : 'cluster does not exist'}`,
  );
  if (ops.length === 0) out('  no changes');
  for (const [i, op] of ops.entries()) out(operationLine(o, op, i + 1));
  out(`  cost: $${running.toFixed(2)}/month (${delta >= 0 ? '+' : '-'}$${Math.abs(delta).toFixed(2)})`);
  for (const line of policyLines(o, decision)) out(line);
  return verdict(ops, decision.allow && !decision.degraded);
}

export async function planCommand(t: Target, o: Output, files: string[]): Promise<number> {
  const { manifests, rollouts, issues } = await loadManifests(files);
  if (issues.length > 0) {
    for (const i of issues) o.err(`error: ${i.message}`);
    return EXIT.error;
  }
  const policy = await t.policy();
  let code: number = EXIT.ok;
  for (const m of manifests) {
    const record = await t.store.get(m.id);
    const generation = (record?.generation ?? 0) + 1;
    code = Math.max(code, await planCluster(t, o, policy, { id: m.id, spec: m.spec, generation }));
  }
  if (rollouts.length > 0) code = Math.max(code, await planRollouts(t, o, policy, rollouts, manifests));
  return code;
}

export function registerPlan({ program, o, withTarget }: Cli): void {
  program
    .command('plan')
    .description(
      "preview the operations, cost delta and policy verdict without changing anything (a CloudRollout: its stages and each cluster's change)",
    )
    .requiredOption('-f, --file <path...>', 'files, folders, or - for standard input')
    .addHelpText('after', `\n${PLAN_EXIT_HELP}.`)
    .action((opts: { file: string[] }) => withTarget((t) => planCommand(t, o(), opts.file)));
}
