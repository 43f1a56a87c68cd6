/**
 * The `cloudorch` command line, kubectl-like. Exit codes: 0 success (for `plan`: no changes),
 * 1 error (details on stderr); `plan` also 2 (changes policy allows) and 3 (changes denied by
 * policy or impossible to apply). See EXIT.
 */
import { Command, Help, Option } from 'commander';
import { ENV } from '../../lambdas/config.js';
import { cliOf } from './cli.js';
import { registerApply } from './commands/apply.js';
import { registerApprove } from './commands/approve.js';
import { registerCompletion } from './commands/completion.js';
import { registerConfig } from './commands/config.js';
import { registerDescribe } from './commands/describe.js';
import { registerDev } from './commands/dev.js';
import { EXIT, PLAN_EXIT_HELP } from './commands/exit.js';
import { registerGet } from './commands/get.js';
import { registerLifecycle } from './commands/lifecycle.js';
import { registerPlan } from './commands/plan.js';
import { registerPolicy } from './commands/policy.js';
import { registerRollout } from './commands/rollout.js';
import { registerSim } from './commands/sim.js';
import { registerVersion } from './commands/version.js';
import { cliVersion } from './config/cli-version.js';
import { DEV_TARGET } from './config/file.js';

export { EXIT };
export function buildProgram(): Command {
  const program = new Command('cloudorch')
    .description(
      `Keep EKS clusters converged on declared desired state.\n\nTargets, first match wins: flags (--table, --region, ...; --target NAME), the environment (${ENV.table}, AWS_REGION, ...), the current named target (cloudorch config), a running \`cloudorch dev\`.\nExit codes: ${EXIT.ok} success, ${EXIT.error} error; ${PLAN_EXIT_HELP}.`,
    )
    .option(
      '--target <name>',
      `named target to use (cloudorch config get-targets; '${DEV_TARGET}': cloudorch dev)`,
    )
    .option('--region <region>', 'AWS region of a deployed stack')
    .option('--table <name>', 'desired-state table of a deployed stack (stack output TableName)')
    .option(
      '--state-machine-arn <arn>',
      'Reconcile state machine of a deployed stack (stack output StateMachineArn)',
    )
    .option('--profile <name>', 'AWS profile to use')
    .option('--rollout-table <name>', 'rollout table of a deployed stack (stack output RolloutTableName)')
    .option(
      '--rollout-state-machine-arn <arn>',
      'Rollout state machine of a deployed stack (stack output RolloutStateMachineArn)',
    )
    .option(
      '--policy-bundle <s3-url>',
      'policy bundle a deployed stack serves, for plan (stack output PolicyBundleUrl)',
    )
    .option('--no-color', 'never color the output')
    // Program options end at the command's name, so `sim drift NAME --region R` gets its own --region;
    // acceptProgramOptionsAfterCommands keeps `cloudorch get --table T --region R` working.
    .enablePositionalOptions()
    // Before the commands are added, which copy it: the hidden copies do not add "[options]" to the list.
    .configureHelp({ subcommandTerm: visibleSubcommandTerm })
    .exitOverride();
  const cli = cliOf(program);
  // Registration order is the order `--help` lists the commands in.
  for (const register of [
    registerDev,
    registerApply,
    registerGet,
    registerDescribe,
    registerPlan,
    registerLifecycle,
    registerRollout,
    registerApprove,
    registerPolicy,
    registerSim,
    registerConfig,
    registerVersion,
    registerCompletion,
  ])
    register(cli);
  acceptProgramOptionsAfterCommands(program);
  // After the copies: --version belongs to the program alone, and needs no target.
  program.version(cliVersion(), '--version', "print the CLI's version");
  return program;
}

/** Commander's term for a command in a list, counting only the options its help shows. */
function visibleSubcommandTerm(this: Help, cmd: Command): string {
  const view = Object.assign(Object.create(cmd) as Command, {
    options: cmd.options.filter((opt) => !opt.hidden),
  });
  return Help.prototype.subcommandTerm.call(this, view);
}

/**
 * Program options were read anywhere on the line before positional options: every command takes a
 * hidden copy of each it does not define itself, handed to the program before the action runs.
 */
function acceptProgramOptionsAfterCommands(program: Command): void {
  const copies = new Set<Option>();
  const addCopies = (cmd: Command): void => {
    for (const sub of cmd.commands) {
      for (const opt of program.options) {
        if (sub.options.some((own) => own.long === opt.long)) continue;
        const copy = new Option(opt.flags, opt.description).hideHelp();
        copies.add(copy);
        sub.addOption(copy);
      }
      addCopies(sub);
    }
  };
  addCopies(program);
  program.hook('preAction', (_program, action) => {
    for (let cmd: Command | null = action; cmd && cmd !== program; cmd = cmd.parent) {
      for (const opt of cmd.options) {
        const key = opt.attributeName();
        // Only what was typed: a copy's default (--no-color's true) must not undo the program's.
        if (copies.has(opt) && cmd.getOptionValueSource(key) === 'cli')
          program.setOptionValueWithSource(key, cmd.getOptionValue(key), 'cli');
      }
    }
  });
}

/**
 * `cloudorch get | head -1`: a reader that stops reading is not an error. Node ignores SIGPIPE, so
 * the next write fails with EPIPE instead, which would end in a stack trace; exit quietly with 0,
 * as the output was delivered to whoever still wanted it. Other write errors stay fatal.
 */
function exitQuietlyOnBrokenPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(EXIT.ok);
      throw err;
    });
  }
}

export async function main(argv: readonly string[]): Promise<void> {
  exitQuietlyOnBrokenPipe();
  try {
    await buildProgram().parseAsync([...argv]);
  } catch (err) {
    const e = err as { code?: string; message?: string; exitCode?: number };
    if (typeof e.code === 'string' && e.code.startsWith('commander.')) {
      // Commander has printed its message; its own code says whether that was an answer (`--help`,
      // `help`, `help plan`: 0) or a usage error (or bare `cloudorch`, help on stderr: 1).
      process.exitCode = e.exitCode === 0 ? EXIT.ok : EXIT.error;
      return;
    }
    process.stderr.write(`error: ${e.message ?? String(err)}\n`);
    process.exitCode = EXIT.error;
  }
}
