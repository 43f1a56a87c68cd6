/**
 * Records as Kubernetes objects, the shape `get -o yaml|json` prints and `apply -f` reads back:
 * the stored spec as the user wrote it, labels and read-only metadata (which apply ignores), and the
 * status. Nothing only the store needs (specHash, version, lease, history) is shown: `-o record` is
 * for that.
 */
import { API_VERSION, KIND } from '../../../lambdas/core/manifest.js';
import type { ClusterRecord } from '../../../lambdas/store/types.js';
import { splitId } from '../resolve.js';

export interface CloudClusterObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly generation: number;
    readonly creationTimestamp: string;
    readonly deletionTimestamp?: string;
  };
  readonly spec: ClusterRecord['spec'];
  readonly status?: ClusterRecord['status'];
}

export function toObject(r: ClusterRecord): CloudClusterObject {
  const { namespace, name } = splitId(r.id);
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    metadata: {
      name,
      namespace,
      ...(r.labels && Object.keys(r.labels).length > 0 ? { labels: r.labels } : {}),
      generation: r.generation,
      creationTimestamp: r.createdAt,
      ...(r.deletionRequestedAt ? { deletionTimestamp: r.deletionRequestedAt } : {}),
    },
    spec: r.spec,
    ...(r.status ? { status: r.status } : {}),
  };
}

/** kubectl's List, for several results (also zero or one, when no name was given). */
export function toList(records: readonly ClusterRecord[]) {
  return { apiVersion: 'v1', kind: 'List', metadata: { resourceVersion: '' }, items: records.map(toObject) };
}
