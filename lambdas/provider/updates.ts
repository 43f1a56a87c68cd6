/**
 * The updates an observation reports: DescribeUpdate for every tracked update, and ListUpdates only
 * for a resource (control plane, node group, add-on) that is UPDATING without a tracked update in
 * progress (someone else started it, or its id was lost).
 */
import { DescribeUpdateCommand, type EKSClient, ListUpdatesCommand, type Update } from '@aws-sdk/client-eks';
import type { TrackedUpdate } from '../core/provider.js';
import { unlessGone } from './eks-calls.js';
import { OBSERVE_LIMITS } from './observe-limits.js';

/** Which resource an update is of: the control plane when neither name is set. */
export interface UpdateTarget {
  readonly nodegroupName?: string | undefined;
  readonly addonName?: string | undefined;
}

/** One key per resource ('' is the control plane). */
export const scopeOf = (t: UpdateTarget): string =>
  t.nodegroupName !== undefined
    ? `nodegroup/${t.nodegroupName}`
    : t.addonName !== undefined
      ? `addon/${t.addonName}`
      : '';

/** The request members naming the resource (DescribeUpdate and ListUpdates take the same two). */
const targetParams = (t: UpdateTarget) => ({
  ...(t.nodegroupName !== undefined ? { nodegroupName: t.nodegroupName } : {}),
  ...(t.addonName !== undefined ? { addonName: t.addonName } : {}),
});

export interface UpdateReads {
  readonly clusterName: string;
  readonly tracked: readonly TrackedUpdate[];
  /** Whether the resource still exists: a tracked update of one that is gone has nothing to report. */
  readonly exists: (t: UpdateTarget) => boolean;
  /** The resources whose status is UPDATING. */
  readonly updating: readonly UpdateTarget[];
}

/** The updates read for each resource, by {@link scopeOf}. */
export async function readUpdates(client: EKSClient, r: UpdateReads): Promise<Map<string, Update[]>> {
  const byScope = new Map<string, Update[]>();
  const add = (scope: string, u: Update) => byScope.set(scope, [...(byScope.get(scope) ?? []), u]);
  const describe = (updateId: string, t: UpdateTarget) =>
    unlessGone(() =>
      client.send(new DescribeUpdateCommand({ name: r.clusterName, updateId, ...targetParams(t) })),
    );
  for (const t of r.tracked) {
    // A tracked update names one resource: a node group's, else an add-on's, else the control plane's.
    const target: UpdateTarget =
      t.nodegroupName !== undefined ? { nodegroupName: t.nodegroupName } : { addonName: t.addonName };
    if (!r.exists(target)) continue;
    const out = await describe(t.id, target);
    if (out?.update) add(scopeOf(target), out.update);
  }
  for (const target of r.updating) {
    const scope = scopeOf(target);
    if ((byScope.get(scope) ?? []).some((u) => u.status === 'InProgress')) continue;
    const list = await unlessGone(() =>
      client.send(
        new ListUpdatesCommand({
          name: r.clusterName,
          maxResults: OBSERVE_LIMITS.listUpdatesPageSize,
          ...targetParams(target),
        }),
      ),
    );
    // EKS does not document the order of ListUpdates; look from the end of the page, where the
    // newest ids are when the list is chronological, and stop at the first one in progress.
    const ids = [...(list?.updateIds ?? [])].reverse().slice(0, OBSERVE_LIMITS.maxUntrackedDescribes);
    for (const id of ids) {
      const out = await describe(id, target);
      if (!out?.update) continue;
      add(scope, out.update);
      if (out.update.status === 'InProgress') break;
    }
  }
  return byScope;
}
