/**
 * Clients loaded at the first call, for functions most of whose runs never call them: a sweep shard
 * starts an execution only for a cluster that needs one; the lease step (like the shard) asks about
 * an execution only when another holds the lease; every mutating EKS call in the fleet reaches the
 * drift-event function, CloudOrch's own among them, and only another caller's change to a managed
 * cluster makes it observe the cluster and start a run. The client's module is a chunk their cold
 * load does not read (docs/performance.md, "Bundles"); one client serves every later call.
 */
import type { ClusterProvider } from '../../core/provider.js';
import type { Wiring } from '../compose.js';
import type { ExecutionStarter } from '../deps.js';

/** `load` run once, at the first call of what it returns. */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => {
    loaded ??= load();
    return loaded;
  };
}

export function lazySfnExecutions(w: Wiring): ExecutionStarter {
  const get = once(() => import('./sfn.js').then((m) => m.sfnExecutions(w)));
  return {
    start: async (name, input) => (await get()).start(name, input),
    status: async (executionArn) => (await get()).status(executionArn),
  };
}

export function lazyEksProvider(w: Wiring): ClusterProvider {
  const get = once(() => import('./eks.js').then((m) => m.eksProvider(w)));
  return {
    observe: async (ref, opts) => (await get()).observe(ref, opts),
    apply: async (op) => (await get()).apply(op),
  };
}
