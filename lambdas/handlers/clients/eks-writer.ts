/** The client of capability `eks:write`: apply: the function that changes clusters. */
import { EksWriter } from '../../provider/eks-writer.js';
import type { Wiring } from '../compose.js';
import { eksOptions } from './eks.js';

export function eksWriter(w: Wiring): EksWriter {
  const side = new EksWriter(eksOptions(w));
  w.own(side.clients);
  return side;
}
