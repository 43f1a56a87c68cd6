/** The `cloudorch` command line. */
import { Command } from 'commander';
import { describeOperation, estimateSpecCost, isMutating, plan } from '../../lambdas/core/index.js';
import { loadManifests } from './load.js';

/** Exit codes, like `terraform plan -detailed-exitcode`. */
export const EXIT = { ok: 0, error: 1, changes: 2 } as const;

async function planCommand(opts: { file: string[] }): Promise<number> {
  const { manifests, issues } = await loadManifests(opts.file);
  if (issues.length > 0) {
    for (const i of issues) process.stderr.write(`error: ${i.message}\n`);
    return EXIT.error;
  }
  let changes = false;
  const now = new Date();
  for (const m of manifests) {
    // No provider is wired into this command yet: the preview starts from an account where the
    // cluster does not exist, and says so.
    const ops = plan(
      { id: m.id, spec: m.spec, generation: 1, deletionRequested: false },
      { cluster: null, nodegroups: [], observedAt: now.toISOString() },
      {
        clusterRoleArn: '<deployment default role>',
        subnetIds: ['<deployment default subnets>', '<deployment default subnets>'],
      },
    );
    const cost = estimateSpecCost(m.spec, now);
    process.stdout.write(
      `${m.id} (${m.spec.clusterName}, ${m.spec.region}) — preview from an account without this cluster\n`,
    );
    ops.forEach((op, i) => {
      process.stdout.write(`  ${i + 1}. ${describeOperation(op)}\n`);
    });
    process.stdout.write(
      `  estimated cost: $${cost.monthlyCost.toFixed(2)}/month (control plane $${cost.controlPlane.toFixed(2)}, nodes $${cost.nodes.toFixed(2)})\n`,
    );
    if (ops.some(isMutating)) changes = true;
  }
  return changes ? EXIT.changes : EXIT.ok;
}

export function buildProgram(): Command {
  const program = new Command('cloudorch')
    .description('Keep EKS clusters converged on declared desired state')
    .exitOverride();
  program
    .command('plan')
    .description(
      'Preview the operations for CloudCluster manifests without changing anything (exit 0: no changes, 2: changes, 1: error)',
    )
    .requiredOption('-f, --file <path...>', 'manifest files or folders, or - for standard input')
    .action(async (opts: { file: string[] }) => {
      process.exitCode = await planCommand(opts);
    });
  return program;
}

export async function main(argv: readonly string[]): Promise<void> {
  try {
    await buildProgram().parseAsync([...argv]);
  } catch (err) {
    const e = err as { code?: string; exitCode?: number; message?: string };
    if (typeof e.code === 'string' && e.code.startsWith('commander.')) {
      process.exitCode =
        e.code === 'commander.helpDisplayed' || e.code === 'commander.version' ? 0 : EXIT.error;
      return;
    }
    process.stderr.write(`error: ${e.message ?? String(err)}\n`);
    process.exitCode = EXIT.error;
  }
}
