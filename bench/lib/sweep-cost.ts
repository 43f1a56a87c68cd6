/**
 * What the sharded sweep costs per period at a fleet size, from measured per-look figures: one
 * dispatcher invocation, and shard runs of up to SHARDS_PER_RUN (account, region) shards each. A
 * shard's checks wait on its EKS budget, so a run lasts as long as its largest shard's calls take at
 * the budget's slot rate; the shards of one run wait at the same time, which is what makes a look
 * cheap. The fleet layout is an assumption: clusters spread over (account, region) shards of
 * CLUSTERS_PER_SHARD (EKS's default quota is 100 clusters per account and region).
 */
import { claimSettings, slotSpacingMs } from '../../lambdas/core/rate-slots.js';
import { FUNCTIONS } from '../../lambdas/functions/catalog.js';
import { SHARDS_PER_RUN } from '../../lambdas/handlers/triggers/sweep.js';

export const SWEEP = {
  periodS: 300,
  /** The deployed EKS budget per (account, region). */
  callsPerSecond: 5,
  /** Slots per second that budget grants (core/rate-slots.ts: one slot every d ms). */
  slotsPerSecond: 1000 / slotSpacingMs(5),
  clustersPerShard: 50,
  shardsPerRun: SHARDS_PER_RUN,
  shardMemoryGb: FUNCTIONS.sweepShard.memoryMb / 1024,
  dispatcherMemoryGb: FUNCTIONS.sweep.memoryMb / 1024,
  /** Slots a shard run claims at once; each claim is at most two conditional writes. */
  claimSize: claimSettings('sweepShard', 5).claimSize,
} as const;

/** What one sweep look costs, measured in the simulated day. */
export interface LookFigures {
  /** EKS requests per cluster per sweep (checks, and a full look once per full period). */
  readonly callsPerLook: number;
  /** Local dispatcher and shard CPU time per cluster per sweep (a floor for a run's length). */
  readonly localMsPerLook: number;
}

export interface SweepPeriod {
  readonly shards: number;
  readonly runs: number;
  /** Length of one shard run: its largest shard's calls at the budget's slot rate. */
  readonly runSeconds: number;
  readonly invocations: number;
  readonly gbSeconds: number;
  /** Budget claims (at most two writes each) and shard leases (take and release). */
  readonly writeUnits: number;
}

export function sweepPeriod(n: number, f: LookFigures): SweepPeriod {
  const shards = Math.ceil(n / SWEEP.clustersPerShard);
  const perShard = Math.min(n, SWEEP.clustersPerShard);
  const runs = Math.ceil(shards / SWEEP.shardsPerRun);
  const runSeconds = Math.max(
    (perShard * f.callsPerLook) / SWEEP.slotsPerSecond,
    (perShard * SWEEP.shardsPerRun * f.localMsPerLook) / 1000,
  );
  // The dispatcher scans and hands over; billed the whole local sweep time per cluster (an upper
  // bound: that time includes the shard runs' CPU), at least the 1 ms Lambda bills.
  const dispatcherSeconds = Math.max(0.001, (n * f.localMsPerLook) / 1000);
  const claims = Math.ceil((perShard * f.callsPerLook) / SWEEP.claimSize) * shards;
  return {
    shards,
    runs,
    runSeconds,
    invocations: 1 + runs,
    gbSeconds: runs * runSeconds * SWEEP.shardMemoryGb + dispatcherSeconds * SWEEP.dispatcherMemoryGb,
    writeUnits: 2 * claims + 2 * shards,
  };
}
