/** Both sides of the EKS provider over one client cache: the CLI and `cloudorch dev`, where one process serves every step. */
import { EksProvider } from '../../provider/eks-provider.js';
import type { Wiring } from '../compose.js';
import { eksOptions } from './eks.js';

export function eksProvider(w: Wiring): EksProvider {
  const provider = new EksProvider(eksOptions(w));
  w.own(provider.clients);
  return provider;
}
