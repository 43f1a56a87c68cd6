/** Acquire or release the per-cluster lease: one execution per cluster at a time. */
import { LeaseHeldError } from '../../store/errors.js';
import type { LeaseRequest, LeaseResult } from '../contracts.js';
import { deps } from '../deps.js';

export async function leaseStep(req: LeaseRequest): Promise<LeaseResult> {
  const { store, config, now } = deps();
  if (req.action === 'release') {
    await store.releaseLease(req.id, req.owner);
    return { released: true };
  }
  try {
    await store.acquireLease(req.id, req.owner, config.leaseTtlMs, now());
    return { acquired: true };
  } catch (err) {
    if (err instanceof LeaseHeldError)
      return { acquired: false, ...(err.holder ? { holder: err.holder } : {}) };
    throw err;
  }
}
