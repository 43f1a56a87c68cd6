/**
 * Step Functions loaded at the first call, for functions most of whose runs never call it: a sweep
 * shard starts an execution only for a cluster that needs one; the lease step (like the shard) asks
 * about an execution only when another holds the lease; the drift-event function starts one only
 * for another caller's change to a managed cluster. The client's module is a chunk their cold load
 * does not read (docs/performance.md, "Bundles"); one client serves every later call. A module of
 * its own, apart from the EKS one: a function bundles every chunk its dynamic imports name.
 */
import type { Wiring } from '../compose.js';
import type { ExecutionStarter } from '../deps.js';
import { once } from './once.js';

export function lazySfnExecutions(w: Wiring): ExecutionStarter {
  const get = once(() => import('./sfn.js').then((m) => m.sfnExecutions(w)));
  return {
    start: async (name, input) => (await get()).start(name, input),
    status: async (executionArn) => (await get()).status(executionArn),
  };
}
