/**
 * The policy input and decision: the one contract between the pipeline and the Rego entrypoint
 * `cloudorch/decision`. Every field a rule reads is built here, so no rule depends on a value that
 * nothing writes (the estimate, in particular, is always present).
 */
import type { CostEstimate } from './cost/estimate.js';
import type { Observation } from './observation.js';
import type { Desired, Operation } from './plan/types.js';
import type { CloudClusterSpec } from './spec/schema.js';
import type { PolicyApproval, PolicyViolation } from './status.js';

export interface PolicyClusterMetadata {
  /** Record id (`<namespace>/<name>`); waivers and cost overrides are granted per id. */
  readonly id: string;
  readonly name: string;
  readonly namespace: string;
  readonly generation: number;
  readonly deletionRequested: boolean;
}

/**
 * The desired spec as validation normalised it, with the record's metadata beside it: the pools are
 * `nodeGroups` (flat-field specs arrive as the one pool `default`); the flat fields are never here.
 */
export type PolicyCluster = CloudClusterSpec & { readonly metadata: PolicyClusterMetadata };

export interface PolicyInput {
  readonly cluster: PolicyCluster;
  /** What EKS reported; `cluster: null` before creation (and at admission). */
  readonly observed: Observation;
  /** The whole plan, preview included: guards see what the next steps would do. */
  readonly plan: readonly Operation[];
  readonly estimate: CostEstimate;
  /** RFC 3339 UTC. Time-dependent rules read this, never the wall clock. */
  readonly now: string;
}

export interface PolicyDecision {
  /** True when no violation has severity `error`. */
  readonly allow: boolean;
  readonly violations: readonly PolicyViolation[];
  /**
   * Operations of the plan a human must approve before they run. They never change `allow`: a
   * denied plan lists them too, and nothing of it runs either way.
   */
  readonly approvals: readonly PolicyApproval[];
}

export interface PolicyInputParts {
  readonly desired: Desired;
  readonly observation: Observation;
  readonly plan: readonly Operation[];
  readonly estimate: CostEstimate;
  readonly now: Date;
}

/** Splits a record id into namespace and name; ids without a namespace live in `default`. */
function splitId(id: string): { namespace: string; name: string } {
  const slash = id.indexOf('/');
  return slash < 0
    ? { namespace: 'default', name: id }
    : { namespace: id.slice(0, slash), name: id.slice(slash + 1) };
}

/**
 * Builds the policy input from the pipeline's values.
 *
 * @example
 * const input = buildPolicyInput({ desired, observation, plan: ops, estimate, now: new Date() });
 */
export function buildPolicyInput(parts: PolicyInputParts): PolicyInput {
  const { desired, observation, plan, estimate, now } = parts;
  return {
    cluster: {
      ...desired.spec,
      metadata: {
        id: desired.id,
        ...splitId(desired.id),
        generation: desired.generation,
        deletionRequested: desired.deletionRequested,
      },
    },
    observed: observation,
    plan,
    estimate,
    now: now.toISOString(),
  };
}

/** The observation used before a cluster exists or when nothing was observed (admission). */
export function emptyObservation(now: Date): Observation {
  return { cluster: null, nodegroups: [], observedAt: now.toISOString() };
}
