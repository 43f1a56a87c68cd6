/**
 * The EKS reader loaded at the first call, for the drift-event function: every mutating EKS call
 * in the fleet reaches it, CloudOrch's own among them, and only another caller's change to a managed
 * cluster makes it observe the cluster. The provider's module is a chunk its cold load does not read
 * (docs/performance.md, "Bundles"); one provider serves every later call.
 */
import type { ClusterProvider } from '../../core/provider.js';
import type { Wiring } from '../compose.js';
import { once } from './once.js';

export function lazyEksReader(w: Wiring): Pick<ClusterProvider, 'observe'> {
  const get = once(() => import('./eks-reader.js').then((m) => m.eksReader(w)));
  return { observe: async (ref, opts) => (await get()).observe(ref, opts) };
}
