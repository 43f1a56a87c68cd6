/** `cloudorch dev`: the whole control plane on this machine, imported only when this command runs. */
import type { DevHandle } from '../../dev/dev.js';
import type { Cli } from '../cli.js';
import type { Output } from '../format.js';

interface DevCliOptions {
  demo?: boolean;
  dataDir?: string;
  port: string;
  sweepInterval: string;
  speed: string;
  waitScale: string;
  watchPolicies?: boolean;
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
  const { startDev } = await import('../../dev/dev.js');
  const dev = await startDev({
    ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
    port: Number(opts.port),
    sweepIntervalMs: Number(opts.sweepInterval) * 1000,
    speed: Number(opts.speed),
    waitScale: Number(opts.waitScale),
    ...(opts.watchPolicies ? { watchPolicies: true } : {}),
    log: (l) => out.out(l),
  });
  if (!opts.demo) return serveUntilSignal(dev, out);
  const { runDemo } = await import('../../dev/demo.js');
  try {
    process.exitCode = await runDemo(dev, (l) => out.out(l));
  } finally {
    await dev.stop();
  }
}

export function registerDev({ program, o }: Cli): void {
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
    .option(
      '--watch-policies',
      'rebuild and reload the policy bundle on every change to policies/ (a broken build keeps the last good one)',
    )
    .action((opts: DevCliOptions) => runDev(opts, o()));
}
