/**
 * The `cloudorch` command line, kubectl-like. Exit codes: 0 success (for `plan`: no changes),
 * 1 error (details on stderr); `plan` also 2 (changes policy allows) and 3 (changes denied by
 * policy or impossible to apply). See EXIT.
 */
import { Command, Help, Option } from 'commander';
import type { DevHandle } from '../dev/dev.js';
import { applyCommand } from './commands/apply.js';
import { describeCommand } from './commands/describe.js';
import { EXIT, PLAN_EXIT_HELP } from './commands/exit.js';
import { getCommand } from './commands/get.js';
import { deleteCommand, reconcileCommand } from './commands/lifecycle.js';
import { planCommand } from './commands/plan.js';
import {
  DEFAULT_DRIFT_REGION,
  type DriftOptions,
  simCalls,
  simDrift,
  simFaults,
  simReset,
} from './commands/sim.js';
import { type Output, output } from './format.js';
import { resolveTarget, type Target, type TargetOptions } from './target.js';

export { EXIT };

interface Global extends TargetOptions {
  color?: boolean;
}

/** Runs a command against its target and always releases the target's clients. */
async function withTarget(program: Command, f: (t: Target) => Promise<number>): Promise<void> {
  const g = program.opts<Global>();
  const t = await resolveTarget(g);
  try {
    process.exitCode = await f(t);
  } finally {
    t.close();
  }
}

interface DevCliOptions {
  demo?: boolean;
  dataDir?: string;
  port: string;
  sweepInterval: string;
  speed: string;
  waitScale: string;
}

/** Serves until Ctrl-C or SIGTERM, then stops the control plane before returning. */
async function serveUntilSignal(dev: DevHandle, out: Output): Promise<void> {
  out.out('press Ctrl-C to stop');
  await new Promise<void>((resolve) => {
    const stop = () => {
      out.out('\nstopping...');
      dev.stop().then(resolve, resolve);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  out.out('stopped');
}

/** The local control plane is imported on use: no other command needs it. */
async function runDev(opts: DevCliOptions, out: Output): Promise<void> {
  const { startDev } = await import('../dev/dev.js');
  const dev = await startDev({
    ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
    port: Number(opts.port),
    sweepIntervalMs: Number(opts.sweepInterval) * 1000,
    speed: Number(opts.speed),
    waitScale: Number(opts.waitScale),
    log: (l) => out.out(l),
  });
  if (!opts.demo) return serveUntilSignal(dev, out);
  const { runDemo } = await import('../dev/demo.js');
  try {
    process.exitCode = await runDemo(dev, (l) => out.out(l));
  } finally {
    await dev.stop();
  }
}

function addDevCommand(program: Command, o: () => Output): void {
  program
    .command('dev')
    .description(
      'run the whole control plane on this machine: store, EKS simulator, state machine, sweep, dashboard',
    )
    .option('--demo', 'apply the examples, show convergence and a drift being corrected, then exit')
    .option('--data-dir <dir>', 'keep the store in this folder across restarts')
    .option('--port <port>', 'dashboard port (0: any free port)', '8787')
    .option('--sweep-interval <seconds>', 'seconds between sweeps', '5')
    .option('--speed <factor>', 'EKS simulator speed factor', '600')
    .option('--wait-scale <factor>', 'factor on the state machine waits', '0.02')
    .action((opts: DevCliOptions) => runDev(opts, o()));
}

/** apply, get, describe and plan: reading and declaring desired state. */
function addManifestCommands(program: Command, o: () => Output): void {
  program
    .command('apply')
    .description('create or update CloudClusters from manifests (YAML or JSON, several documents per file)')
    .requiredOption('-f, --file <path...>', 'files, folders, or - for standard input')
    .action((opts: { file: string[] }) => withTarget(program, (t) => applyCommand(t, o(), opts.file)));

  program
    .command('get [name]')
    .description('list CloudClusters with their status')
    .addOption(new Option('-o, --output <format>', 'table, json or yaml').default('table'))
    .option('-w, --watch', 'keep printing changes')
    .action((name: string | undefined, opts: { output: string; watch?: boolean }) =>
      withTarget(program, (t) => getCommand(t, o(), name, opts)),
    );

  program
    .command('describe <name>')
    .description('conditions with reasons and hints, observed state, last plan, policy decision, history')
    .action((name: string) => withTarget(program, (t) => describeCommand(t, o(), name)));

  program
    .command('plan')
    .description('preview the operations, cost delta and policy verdict without changing anything')
    .requiredOption('-f, --file <path...>', 'files, folders, or - for standard input')
    .addHelpText('after', `\n${PLAN_EXIT_HELP}.`)
    .action((opts: { file: string[] }) => withTarget(program, (t) => planCommand(t, o(), opts.file)));
}

/** delete and reconcile: acting on one CloudCluster by name. */
function addLifecycleCommands(program: Command, o: () => Output): void {
  program
    .command('delete <name>')
    .description(
      'request deletion (node groups, then the cluster, with deletionPolicy Delete; Retain keeps the cluster)',
    )
    .action((name: string) => withTarget(program, (t) => deleteCommand(t, o(), name)));

  program
    .command('reconcile <name>')
    .description('reconcile one CloudCluster now')
    .action((name: string) => withTarget(program, (t) => reconcileCommand(t, o(), name)));
}

function addSimCommands(program: Command, o: () => Output): void {
  const sim = program
    .command('sim')
    .description("change the EKS simulator behind CloudOrch's back (cloudorch dev only)");
  sim
    .command('drift <name>')
    .description(
      'change a cluster out of band (an EKS cluster name, or a CloudCluster: its cluster and region)',
    )
    .option(
      '--region <region>',
      `region of an EKS cluster named directly (default: ${DEFAULT_DRIFT_REGION}; a CloudCluster's own)`,
    )
    .option('--nodes <n>', "set the node group's desired size")
    .option('--tag <key=value...>', 'set cluster tags')
    .option('--status <status>', 'force the cluster status')
    .action((name: string, opts: DriftOptions) => withTarget(program, (t) => simDrift(t, o(), name, opts)));
  sim
    .command('faults')
    .description('inject throttling, server errors or latency per EKS operation')
    .option('--op <operation...>', 'operations (default: all)')
    .option('--throttle <fraction>', 'fraction of calls answered 429')
    .option('--errors <fraction>', 'fraction of calls answered 5xx')
    .option('--latency <ms>', 'added latency')
    .option('--clear', 'remove all faults')
    .action(
      (opts: { op?: string[]; throttle?: string; errors?: string; latency?: string; clear?: boolean }) =>
        withTarget(program, (t) => simFaults(t, o(), opts)),
    );
  sim
    .command('reset')
    .description('forget every simulated cluster')
    .action(() => withTarget(program, (t) => simReset(t, o())));
  sim
    .command('calls')
    .description('EKS API calls received, per operation')
    .action(() => withTarget(program, (t) => simCalls(t, o())));
}

export function buildProgram(): Command {
  const program = new Command('cloudorch')
    .description(
      `Keep EKS clusters converged on declared desired state.\n\nTargets a running \`cloudorch dev\` by default, or a deployed stack with --table and --region.\nExit codes: ${EXIT.ok} success, ${EXIT.error} error; ${PLAN_EXIT_HELP}.`,
    )
    .option('--region <region>', 'AWS region of a deployed stack')
    .option('--table <name>', 'desired-state table of a deployed stack (stack output TableName)')
    .option(
      '--state-machine-arn <arn>',
      'Reconcile state machine of a deployed stack (stack output StateMachineArn)',
    )
    .option('--profile <name>', 'AWS profile to use')
    .option('--no-color', 'never color the output')
    // Program options end at the command's name, so `sim drift NAME --region R` gets its own --region;
    // acceptProgramOptionsAfterCommands keeps `cloudorch get --table T --region R` working.
    .enablePositionalOptions()
    // Before the commands are added, which copy it: the hidden copies do not add "[options]" to the list.
    .configureHelp({ subcommandTerm: visibleSubcommandTerm })
    .exitOverride();
  // Global options are read when a command runs, after parsing.
  const o = () => output(program.opts<Global>());
  // Registration order is the order `--help` lists the commands in.
  addDevCommand(program, o);
  addManifestCommands(program, o);
  addLifecycleCommands(program, o);
  addSimCommands(program, o);
  acceptProgramOptionsAfterCommands(program);
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
