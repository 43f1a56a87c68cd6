/**
 * The EKS provider loaded at the first call, for the drift-event function: every mutating EKS call
 * in the fleet reaches it, CloudOrch's own among them, and only another caller's change to a
 * cluster makes it look at EKS. Most of its cold loads then read no EKS client
 * (docs/performance.md, "Bundles"); one provider serves every later call.
 */
import type { ClusterProvider } from '../../core/provider.js';
import type { Wiring } from '../compose.js';

export function lazyEksProvider(w: Wiring): ClusterProvider {
  let provider: Promise<ClusterProvider> | undefined;
  const get = () => {
    provider ??= import('./eks.js').then((m) => m.eksProvider(w));
    return provider;
  };
  return {
    observe: async (ref, opts) => (await get()).observe(ref, opts),
    apply: async (op) => (await get()).apply(op),
  };
}
