/** Tag convergence: desired tags are the spec's plus ownership; every other tag is removed. */
import { AWS_TAG_PREFIX } from '../ownership.js';

export interface TagDiff {
  readonly toSet: Record<string, string>;
  readonly toRemove: string[];
}

export function diffTags(
  desired: Readonly<Record<string, string>>,
  observed: Readonly<Record<string, string>>,
): TagDiff {
  const toSet: Record<string, string> = {};
  for (const [k, v] of Object.entries(desired)) if (observed[k] !== v) toSet[k] = v;
  // Tags under AWS's prefix belong to AWS and cannot be removed.
  const toRemove = Object.keys(observed)
    .filter((k) => !(k in desired) && !k.startsWith(AWS_TAG_PREFIX))
    .sort();
  return { toSet, toRemove };
}
