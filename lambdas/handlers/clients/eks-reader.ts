/** The client of capability `eks:read`: observe: the functions that only look (observe, the sweep shards, drift events). */
import { EksReader } from '../../provider/eks-reader.js';
import type { Wiring } from '../compose.js';
import { eksOptions } from './eks.js';

export function eksReader(w: Wiring): EksReader {
  const side = new EksReader(eksOptions(w));
  w.own(side.clients);
  return side;
}
