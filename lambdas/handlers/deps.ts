/**
 * What the handlers need from the outside world, injected once per process. Production builds it
 * from the environment (env-deps.ts); `cloudorch dev` and the tests inject the same real
 * implementations pointed at local endpoints. Handlers never construct clients themselves.
 */

import type { PlanDefaults } from '../core/plan/types.js';
import type { PolicyDecision, PolicyInput } from '../core/policy-input.js';
import type { ClusterProvider } from '../core/provider.js';
import type { DesiredStateStore } from '../store/types.js';
import type { Trigger } from './contracts.js';

export interface PolicyEvaluator {
  /** Never throws: a broken engine answers a deny with `degraded: true` (fail closed). */
  evaluate(input: PolicyInput): Promise<PolicyDecision & { readonly degraded: boolean }>;
}

export interface ExecutionStarter {
  /**
   * Starts a Reconcile execution. `started: false` when an execution of that name already exists
   * (duplicate triggers are absorbed by the name).
   */
  start(
    name: string,
    input: { id: string; trigger: Trigger },
  ): Promise<{ started: boolean; executionArn?: string }>;
  /**
   * Whether an execution still runs. `ended` also covers an execution Step Functions does not know
   * (a local control plane restarted after a crash); `unknown` when it could not be asked, and then
   * nobody takes its lease early.
   */
  status(executionArn: string): Promise<ExecutionStatus>;
}

export type ExecutionStatus =
  | { readonly state: 'running'; readonly startedAt?: string }
  | { readonly state: 'ended' | 'unknown'; readonly detail?: string };

export interface PipelineConfig {
  readonly defaults: PlanDefaults;
  readonly leaseTtlMs: number;
  /** Deletion calls per record before DeletionStuck. */
  readonly maxDeletionCalls: number;
  /** The role CloudOrch itself uses in EKS: drift events it caused are ignored. */
  readonly ownRoleArns: readonly string[];
}

export interface Deps {
  readonly store: DesiredStateStore;
  readonly provider: ClusterProvider;
  readonly policy: PolicyEvaluator;
  readonly executions: ExecutionStarter;
  readonly now: () => Date;
  readonly config: PipelineConfig;
}

export const DEFAULT_CONFIG: Omit<PipelineConfig, 'defaults' | 'ownRoleArns'> = {
  leaseTtlMs: 15 * 60_000,
  maxDeletionCalls: 12,
};

let current: Deps | undefined;
let factory: (() => Deps) | undefined;

export function setDeps(d: Deps | undefined): void {
  current = d;
}

/** Production entry points register how to build deps from the environment. */
export function setDepsFactory(f: () => Deps): void {
  factory = f;
}

export function deps(): Deps {
  if (!current) {
    if (!factory) throw new Error('handler dependencies were not configured');
    current = factory();
  }
  return current;
}
