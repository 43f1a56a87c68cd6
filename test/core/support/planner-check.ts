/**
 * The planner's convergence property over several pools, shared by the property test and the
 * mutant test (which runs the same check against deliberately broken planners). A scenario
 * (pool-scenarios.ts) is a spec with 1-4 pools and a starting observation; `checkConvergence`
 * plans, applies the first action in the EKS model (a Wait lets transitions complete), and throws a
 * `PropertyViolation` at the first broken rule.
 */
import type { Observation, ObservedNodegroup } from '../../../lambdas/core/observation.js';
import { createdByCloudOrch, POOL_TAG } from '../../../lambdas/core/ownership.js';
import { detectDrift } from '../../../lambdas/core/plan/fields.js';
import { desiredNodegroup } from '../../../lambdas/core/plan/nodegroup.js';
import { firstAction } from '../../../lambdas/core/plan/plan.js';
import type {
  Desired,
  MutatingOperation,
  Operation,
  PlanDefaults,
} from '../../../lambdas/core/plan/types.js';
import { DEFAULT_POOL } from '../../../lambdas/core/spec/pools.js';
import type { CloudClusterSpec } from '../../../lambdas/core/spec/schema.js';
import { applyToModel, minorsBetween, settle } from './eks-model.js';
import { DEFAULTS, ID } from './fixtures.js';

export type Planner = (d: Desired, o: Observation, defaults: PlanDefaults) => Operation[];

export class PropertyViolation extends Error {
  override readonly name = 'PropertyViolation';
}

function violated(msg: string): never {
  throw new PropertyViolation(msg);
}

import type { Scenario } from './pool-scenarios.js';

export { type Scenario, scenarioArb } from './pool-scenarios.js';

/** The pool a group serves, read from what EKS reports (its pool tag; CloudOrch's untagged groups are `default`'s). */
function poolOf(ng: ObservedNodegroup): string | undefined {
  if (!createdByCloudOrch(ng.tags)) return undefined;
  return ng.tags[POOL_TAG] ?? DEFAULT_POOL;
}

/** A group whose nodes serve the pool: ACTIVE, or ACTIVE before the update it is running. */
const serving = (ng: ObservedNodegroup) => ng.status === 'ACTIVE' || ng.status === 'UPDATING';

const servedPools = (spec: CloudClusterSpec, o: Observation) =>
  new Set(
    spec.nodeGroups
      .filter((p) => o.nodegroups.some((ng) => poolOf(ng) === p.name && serving(ng)))
      .map((p) => p.name),
  );

/**
 * Enough steps for every operation the scenario can need, each followed by a wait: the cluster's
 * create and tags, per pool a create, a replacement, a configuration, tags and a catch-up, each
 * orphan's and foreign group's deletion, and per control-plane minor one step plus one per pool.
 */
export function stepBound({ spec, start }: Scenario): number {
  const pools = spec.nodeGroups.length;
  const minors = start.cluster ? minorsBetween(spec.kubernetesVersion, start.cluster.version) : 0;
  const ops = 3 + pools * 6 + start.nodegroups.length + minors * (1 + pools);
  return 2 * ops + 2;
}

/** What one step may do to the pools: checked before the action is applied. */
function checkAction(spec: CloudClusterSpec, o: Observation, op: MutatingOperation): void {
  const listed = new Set(spec.nodeGroups.map((p) => p.name));
  if (op.kind === 'DeleteNodegroup') {
    const ng = o.nodegroups.find((n) => n.name === op.nodegroupName);
    const pool = ng && poolOf(ng);
    if (ng && pool !== undefined && !listed.has(pool)) {
      const waiting = spec.nodeGroups.filter((p) => {
        const name = desiredNodegroup(p, spec, DEFAULTS).name;
        return !o.nodegroups.some((n) => n.name === name && n.status === 'ACTIVE');
      });
      if (waiting.length > 0)
        violated(
          `orphan ${ng.name} deleted while pools ${waiting.map((p) => p.name).join(', ')} are not ACTIVE`,
        );
    }
    // The reason a deletion gives is what policies and status read: it must match the group.
    const reason = pool === undefined ? 'foreign' : listed.has(pool) ? 'replaced' : 'pool-removed';
    if (ng && op.reason !== reason) violated(`${ng.name} deleted as ${op.reason}, but it is ${reason}`);
  }
  if (op.kind === 'UpdateClusterVersion') {
    const behind = o.nodegroups.filter((n) => n.version !== o.cluster?.version);
    if (behind.length > 0)
      violated(
        `control plane moved to ${op.toVersion} while ${behind.map((n) => n.name).join(', ')} are behind`,
      );
  }
}

/** Version calls so far: the control plane one minor at a time, each minor's pool upgrades in spec order. */
function checkVersionOrder(spec: CloudClusterSpec, ops: readonly MutatingOperation[]): void {
  const order = spec.nodeGroups.map((p) => p.name);
  let last = -1;
  for (const op of ops) {
    if (op.kind === 'UpdateClusterVersion') {
      if (minorsBetween(op.toVersion, op.fromVersion) !== 1)
        violated(`control plane ${op.fromVersion} -> ${op.toVersion}`);
      last = -1;
    }
    if (op.kind === 'UpdateNodegroupVersion') {
      const at = order.indexOf(op.pool);
      if (at < last)
        violated(`pool ${op.pool} upgraded after pool ${order[last]} (spec order: ${order.join(', ')})`);
      last = at;
    }
  }
}

export interface Run {
  readonly final: Observation;
  readonly applied: readonly MutatingOperation[];
}

/** Plans and applies the first action until nothing is left, checking every step's rules. */
export function converge(planner: Planner, { spec, start }: Scenario, bound: number): Run {
  const d: Desired = { id: ID, spec, generation: 1, deletionRequested: false };
  let o = start;
  const applied: MutatingOperation[] = [];
  for (let i = 0; i < bound; i++) {
    const action = firstAction(planner(d, o, DEFAULTS));
    if (!action) return { final: o, applied };
    if (action.kind === 'Wait') {
      o = settle(o);
      continue;
    }
    checkAction(spec, o, action);
    const before = servedPools(spec, o);
    try {
      o = applyToModel(o, action);
    } catch (e) {
      violated(
        `EKS refused ${action.kind} after ${applied.map((a) => a.kind).join(', ')}: ${(e as Error).message}`,
      );
    }
    const after = servedPools(spec, o);
    const gap = [...before].filter((p) => !after.has(p));
    if (gap.length > 0)
      violated(`capacity gap in pool ${gap.join(', ')} after ${action.kind} ${JSON.stringify(action)}`);
    applied.push(action);
    checkVersionOrder(spec, applied);
  }
  violated(`did not converge within ${bound} steps; applied ${applied.map((a) => a.kind).join(', ')}`);
}

/** The whole property for one scenario: converges within its bound, then plans nothing and nothing drifts. */
export function checkConvergence(planner: Planner, sc: Scenario): Run {
  const run = converge(planner, sc, stepBound(sc));
  const d: Desired = { id: ID, spec: sc.spec, generation: 1, deletionRequested: false };
  const after = planner(d, run.final, DEFAULTS);
  if (after.length > 0) violated(`converged state still plans ${JSON.stringify(after)}`);
  const drift = detectDrift(sc.spec, run.final, DEFAULTS);
  if (drift.length > 0) violated(`converged state still drifts: ${JSON.stringify(drift)}`);
  const extra = run.final.nodegroups.filter(
    (ng) => poolOf(ng) === undefined || !sc.spec.nodeGroups.some((p) => p.name === poolOf(ng)),
  );
  if (extra.length > 0) violated(`groups no pool wants remain: ${extra.map((n) => n.name).join(', ')}`);
  return run;
}
