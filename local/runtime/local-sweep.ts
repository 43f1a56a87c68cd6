/**
 * The sweep in one process: the production dispatcher hands its runs to an invoker that awaits the
 * production shard handler directly, so a local sweep has checked every cluster when it returns and
 * its report adds up what the shard runs did. Sweeps are serialized (one dispatcher at a time, as the
 * stack's reserved concurrency of 1 makes it in AWS).
 */
import type { ShardInvoker } from '../../lambdas/handlers/deps.js';
import { type SweepOptions, type SweepReport, sweep } from '../../lambdas/handlers/triggers/sweep.js';
import {
  type ShardRunOptions,
  type ShardRunReport,
  sweepShard,
  totals,
} from '../../lambdas/handlers/triggers/sweep-shard.js';

export type LocalSweepReport = SweepReport & Omit<ReturnType<typeof totals>, 'errors'>;

export interface InProcessSweeps {
  /** The dispatcher's invoker: each run awaited, its report kept for the sweep that handed it over. */
  readonly invoker: ShardInvoker;
  /**
   * One dispatcher run and every shard run it handed over, after any sweep still going; `concurrency`
   * overrides the shard runs' for this sweep.
   */
  sweep(opts: SweepOptions, concurrency?: number): Promise<LocalSweepReport>;
}

export function inProcessSweeps(defaults: Omit<ShardRunOptions, 'periodSeconds'>): InProcessSweeps {
  let reports: ShardRunReport[] = [];
  let run: ShardRunOptions = { ...defaults, periodSeconds: 1 };
  let last: Promise<unknown> = Promise.resolve();
  const invoker: ShardInvoker = {
    async invoke(payload) {
      reports.push(await sweepShard(payload, run));
    },
  };
  const once = async (opts: SweepOptions, concurrency?: number): Promise<LocalSweepReport> => {
    reports = [];
    run = {
      ...defaults,
      periodSeconds: opts.periodSeconds,
      concurrency: concurrency ?? defaults.concurrency,
    };
    const dispatched = await sweep(opts);
    const t = totals(reports);
    return { ...dispatched, ...t, errors: dispatched.errors + t.errors };
  };
  return {
    invoker,
    sweep(opts, concurrency) {
      const next = last.then(
        () => once(opts, concurrency),
        () => once(opts, concurrency),
      );
      last = next.catch(() => undefined);
      return next;
    },
  };
}

/**
 * The control plane's sweeps: one second periods, so successive sweeps each start their runs, and a
 * window long enough that a local sweep checks every cluster.
 */
export function localSweeps() {
  const sweeps = inProcessSweeps({ concurrency: 4, windowMs: 15 * 60_000, leaseMs: 30 * 60_000 });
  return {
    invoker: sweeps.invoker,
    sweepNow: (o: { readonly periodSeconds?: number; readonly concurrency?: number } = {}) =>
      sweeps.sweep({ segment: 0, totalSegments: 1, periodSeconds: o.periodSeconds ?? 1 }, o.concurrency),
  };
}
