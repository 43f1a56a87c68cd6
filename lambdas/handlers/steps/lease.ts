/**
 * Acquire or release the per-cluster lease: one execution per cluster at a time. A lease names its
 * execution; one whose execution has ended (crash, abort, timeout) is taken over at once instead of
 * stalling the cluster until the lease expires.
 */
import { LeaseHeldError, LeaseLostError } from '../../store/errors.js';
import type { Lease } from '../../store/types.js';
import type { LeaseRequest, LeaseResult } from '../contracts.js';
import { depsOf } from '../deps.js';
import { checkHolder } from '../lease-holder.js';
import { log } from '../telemetry.js';

/** The steps between acquire and release act only while their execution holds the lease. */
export function assertHoldsLease(id: string, owner: string, lease: Lease | undefined): void {
  if (lease?.owner !== owner) throw new LeaseLostError(`lease of ${id} is held by ${lease?.owner}`);
}

export async function leaseStep(req: LeaseRequest): Promise<LeaseResult> {
  const { store, executions, config, now } = depsOf('lease');
  if (req.action === 'release') {
    await store.releaseLease(req.id, req.owner);
    return { released: true };
  }
  const opts = req.executionArn ? { executionArn: req.executionArn } : {};
  try {
    await store.acquireLease(req.id, req.owner, config.leaseTtlMs, now(), opts);
    return { acquired: true };
  } catch (err) {
    if (!(err instanceof LeaseHeldError)) throw err;
    const held = { acquired: false, ...(err.holder ? { holder: err.holder } : {}) };
    if (!err.holder) return held;
    const holder = await checkHolder(executions, err.holderExecutionArn);
    if (!holder.ended) return held;
    try {
      await store.acquireLease(req.id, req.owner, config.leaseTtlMs, now(), {
        ...opts,
        takeOverFrom: err.holder,
      });
    } catch (again) {
      if (again instanceof LeaseHeldError)
        return { acquired: false, ...(again.holder ? { holder: again.holder } : {}) };
      throw again;
    }
    log().warn('took over the lease of an ended execution', {
      clusterId: req.id,
      previous: err.holderExecutionArn,
      detail: holder.detail,
    });
    return { acquired: true, tookOverFrom: err.holder };
  }
}
