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
   * One dispatcher run and every shard run it handed over, after any sweep still going; `shard`
   * overrides the shard runs' concurrency and full-observation period for this sweep (by default
   * every look is full: the sweep's period).
   */
  sweep(opts: SweepOptions, shard?: ShardOverrides): Promise<LocalSweepReport>;
}

/** What one local sweep may set for its shard runs. */
export interface ShardOverrides {
  readonly concurrency?: number | undefined;
  readonly fullObservePeriodSeconds?: number | undefined;
}

export function inProcessSweeps(
  defaults: Omit<ShardRunOptions, 'periodSeconds' | 'fullObservePeriodSeconds'>,
): InProcessSweeps {
  let reports: ShardRunReport[] = [];
  let run: ShardRunOptions = { ...defaults, periodSeconds: 1, fullObservePeriodSeconds: 1 };
  let last: Promise<unknown> = Promise.resolve();
  const invoker: ShardInvoker = {
    async invoke(payload) {
      reports.push(await sweepShard(payload, run));
    },
  };
  const once = async (opts: SweepOptions, shard: ShardOverrides = {}): Promise<LocalSweepReport> => {
    reports = [];
    run = {
      ...defaults,
      periodSeconds: opts.periodSeconds,
      concurrency: shard.concurrency ?? defaults.concurrency,
      fullObservePeriodSeconds: shard.fullObservePeriodSeconds ?? opts.periodSeconds,
    };
    const dispatched = await sweep(opts);
    const t = totals(reports);
    return { ...dispatched, ...t, errors: dispatched.errors + t.errors };
  };
  return {
    invoker,
    sweep(opts, shard) {
      const next = last.then(
        () => once(opts, shard),
        () => once(opts, shard),
      );
      last = next.catch(() => undefined);
      return next;
    },
  };
}

/**
 * The control plane's sweeps: one second periods, so successive sweeps each start their runs, and a
 * window long enough that a local sweep checks every cluster. Every look is full unless the caller
 * sets a longer full-observation period (the benches use the deployed 300 s and 3,600 s).
 */
export function localSweeps() {
  const sweeps = inProcessSweeps({ concurrency: 4, windowMs: 15 * 60_000, leaseMs: 30 * 60_000 });
  return {
    invoker: sweeps.invoker,
    sweepNow: (o: { readonly periodSeconds?: number } & ShardOverrides = {}) =>
      sweeps.sweep({ segment: 0, totalSegments: 1, periodSeconds: o.periodSeconds ?? 1 }, o),
  };
}
