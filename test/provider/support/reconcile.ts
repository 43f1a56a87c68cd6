/**
 * A minimal reconcile loop for tests, shaped like the state machine: observe, plan, apply the first
 * action (one EKS call), track the update id it returns, and wait while EKS works (`onWait`: a short
 * sleep, or moving the simulator's clock). Bounded by a number of iterations, never by time.
 */
import type { Observation } from '../../../lambdas/core/observation.js';
import { observeScope } from '../../../lambdas/core/observe-scope.js';
import { firstAction, plan } from '../../../lambdas/core/plan/plan.js';
import type { Desired, MutatingOperation, PlanDefaults } from '../../../lambdas/core/plan/types.js';
import type { ClusterProvider, ObserveOptions, TrackedUpdate } from '../../../lambdas/core/provider.js';
import { type CloudClusterSpecInput, specSchema } from '../../../lambdas/core/spec/schema.js';

/** The simulator's account and the deployment defaults the reconcile tests create with. */
export const ACCOUNT = '000000000000';
export const DEFAULTS = {
  clusterRoleArn: `arn:aws:iam::${ACCOUNT}:role/eks-cluster`,
  nodeRoleArn: `arn:aws:iam::${ACCOUNT}:role/eks-node`,
  subnetIds: ['subnet-0000000a', 'subnet-0000000b'],
};

export interface ConvergeResult {
  readonly observation: Observation;
  readonly applied: MutatingOperation[];
  readonly observations: number;
}

export function desiredOf(
  id: string,
  input: CloudClusterSpecInput,
  generation = 1,
  deletionRequested = false,
): Desired {
  return { id, spec: specSchema.parse(input), generation, deletionRequested };
}

/** What the observe step reads for this spec (the pipeline's own rule), with the tracked updates. */
export function observeOptionsOf(d: Desired, trackedUpdates: readonly TrackedUpdate[]): ObserveOptions {
  return { trackedUpdates, ...observeScope(d.spec) };
}

export async function converge(
  provider: ClusterProvider,
  d: Desired,
  defaults: PlanDefaults,
  opts: { maxIterations?: number; onWait?: () => Promise<unknown> } = {},
): Promise<ConvergeResult> {
  const { maxIterations = 3000, onWait = () => new Promise((r) => setTimeout(r, 2)) } = opts;
  const ref = { clusterName: d.spec.clusterName, region: d.spec.region };
  let tracked: TrackedUpdate[] = [];
  const applied: MutatingOperation[] = [];
  for (let i = 1; i <= maxIterations; i++) {
    const o = await provider.observe(ref, observeOptionsOf(d, tracked));
    // Keep tracking only what EKS still reports as in progress.
    tracked = tracked.filter((t) => {
      const u = t.nodegroupName
        ? o.nodegroups.find((ng) => ng.name === t.nodegroupName)?.update
        : t.addonName
          ? o.addons?.find((a) => a.name === t.addonName)?.update
          : o.cluster?.update;
      return u?.id === t.id && u.status === 'InProgress';
    });
    const ops = plan(d, o, defaults);
    const next = firstAction(ops);
    if (!next) {
      const blocked = ops.filter((op) => op.kind === 'Impossible');
      if (blocked.length > 0) throw new Error(`cannot converge: ${JSON.stringify(blocked)}`);
      return { observation: o, applied, observations: i };
    }
    if (next.kind === 'Wait') {
      await onWait();
      continue;
    }
    const r = await provider.apply(next);
    applied.push(next);
    if (r.updateId) {
      tracked.push({
        id: r.updateId,
        ...('nodegroupName' in next ? { nodegroupName: next.nodegroupName } : {}),
        ...('addonName' in next ? { addonName: next.addonName } : {}),
      });
    }
  }
  throw new Error(`not converged after ${maxIterations} iterations`);
}
