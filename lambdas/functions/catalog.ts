/**
 * Every Lambda CloudOrch deploys, with the capabilities its job needs and nothing more. The CDK
 * stack grants exactly these (and a test fails if a function gets more), and in Lambda the composition
 * root (handlers/compose.ts) gives each function exactly the clients they name, so this is the one
 * place that says who may do what. `cloudorch dev`, one process for every function, hands every
 * handler every client; there only the types hold a handler to its capabilities.
 */
import type { StepFunctionKey } from '../statemachine/definition.js';
import type { RolloutFunctionKey } from '../statemachine/rollout-definition.js';

export type Capability =
  /** Read records (GetItem, Scan). */
  | 'table:read'
  /** Conditional updates of lease, status, history, intent; delete of a released record. */
  | 'table:reconcile'
  /** DescribeCluster, ListNodegroups, DescribeNodegroup, ListUpdates, DescribeUpdate. */
  | 'eks:read'
  /** The mutating calls the planner's operations map to, on owned clusters. */
  | 'eks:write'
  /** iam:PassRole of the cluster and node roles, to EKS only. */
  | 'iam:pass-eks-roles'
  /** Read the policy bundle object. */
  | 'policy:read'
  /** Start Reconcile executions. */
  | 'sfn:start'
  /** DescribeExecution of Reconcile executions: is the execution a lease names still running? */
  | 'sfn:describe'
  /** SendTaskFailure to a Reconcile execution's approval wait: a spec change cancels the wait. */
  | 'sfn:callback'
  /** Read the desired-state table's stream. */
  | 'table:stream'
  /** Claim EKS request slots of the shared budget (UpdateItem of `budget#*` in the coordination table). */
  | 'budget:claim'
  /** Invoke the sweep shard function (the dispatcher hands it runs of shards). */
  | 'lambda:invoke-shard'
  /** Take and release sweep shard leases (and their cursors) on the coordination table. */
  | 'shard:lease'
  /** Write a cluster's spec as its next generation (a rollout's change), as `cloudorch apply` does. */
  | 'table:spec'
  /** Read and write rollout records and their cluster locks (the rollout table). */
  | 'rollout:write'
  /** Publish to the rollout notification topic (approval needed, halted, completed). */
  | 'notify:publish'
  /** DescribeAlarms: the alarms a rollout's failure policy names. */
  | 'alarms:read';

export interface FunctionSpec {
  /** File in lambdas/functions. */
  readonly entry: string;
  readonly description: string;
  readonly capabilities: readonly Capability[];
  /** The state machine step it serves, if any (of the Reconcile or the Rollout machine). */
  readonly step?: StepFunctionKey | RolloutFunctionKey;
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
}

export const FUNCTIONS = {
  lease: {
    entry: 'lease.ts',
    step: 'lease',
    description: 'Acquire and release the per-cluster lease',
    capabilities: ['table:read', 'table:reconcile', 'sfn:describe'],
    timeoutSeconds: 10,
    memoryMb: 256,
  },
  observe: {
    entry: 'observe.ts',
    step: 'observe',
    description: 'Read the record and observe the cluster in EKS',
    capabilities: ['table:read', 'table:reconcile', 'eks:read', 'budget:claim'],
    timeoutSeconds: 60,
    memoryMb: 512,
  },
  plan: {
    entry: 'plan.ts',
    step: 'plan',
    description: 'Plan the next step, drift and cost (pure)',
    capabilities: [],
    timeoutSeconds: 10,
    memoryMb: 256,
  },
  policy: {
    entry: 'policy.ts',
    step: 'policy',
    description: 'Evaluate the WASM policy bundle',
    capabilities: ['policy:read'],
    timeoutSeconds: 20,
    memoryMb: 512,
  },
  apply: {
    entry: 'apply.ts',
    step: 'apply',
    description: 'Apply exactly one EKS operation',
    capabilities: ['table:read', 'table:reconcile', 'eks:write', 'iam:pass-eks-roles', 'budget:claim'],
    timeoutSeconds: 60,
    memoryMb: 512,
  },
  writeStatus: {
    entry: 'write-status.ts',
    step: 'writeStatus',
    description: 'Write status conditions and history',
    capabilities: ['table:read', 'table:reconcile'],
    timeoutSeconds: 20,
    memoryMb: 256,
  },
  classifyError: {
    entry: 'classify-error.ts',
    step: 'classifyError',
    description: 'Classify a caught error (pure)',
    capabilities: [],
    timeoutSeconds: 10,
    memoryMb: 256,
  },
  onChange: {
    entry: 'on-change.ts',
    description:
      'Start reconciles for spec, generation and deletion changes; cancel approval waits they make stale',
    capabilities: ['table:stream', 'sfn:start', 'sfn:callback'],
    timeoutSeconds: 30,
    memoryMb: 256,
  },
  sweep: {
    entry: 'sweep.ts',
    description: 'Scheduled sweep dispatcher: scan, group by account and region, invoke shard runs',
    capabilities: ['table:read', 'lambda:invoke-shard'],
    timeoutSeconds: 300,
    memoryMb: 512,
  },
  sweepShard: {
    entry: 'sweep-shard.ts',
    description:
      'Sweep shard run: check the clusters of a few (account, region) shards, start runs where needed',
    capabilities: ['table:read', 'eks:read', 'sfn:start', 'sfn:describe', 'shard:lease', 'budget:claim'],
    // At least the sweep period (300 s by default): the lease lasts as long as the invocation may.
    timeoutSeconds: 360,
    // Measured by bench:fleet: one run of 8 shards of 50 clusters peaks at about 245 MB resident (an
    // unconstrained process); 320 MB keeps a quarter of headroom.
    memoryMb: 320,
  },
  driftEvent: {
    entry: 'drift-event.ts',
    description: 'Reconcile at once after an out-of-band EKS call',
    capabilities: ['table:read', 'eks:read', 'sfn:start', 'budget:claim'],
    timeoutSeconds: 30,
    memoryMb: 256,
  },
  reconcileNow: {
    entry: 'reconcile-now.ts',
    description: 'Reconcile one cluster now',
    capabilities: ['table:read', 'sfn:start', 'sfn:describe'],
    timeoutSeconds: 10,
    memoryMb: 256,
  },
  rolloutPlan: {
    entry: 'rollout-plan.ts',
    step: 'rolloutPlan',
    description: 'Plan a rollout: pick, stage, preview and lock its clusters',
    capabilities: ['table:read', 'rollout:write'],
    timeoutSeconds: 60,
    memoryMb: 512,
  },
  rolloutApply: {
    entry: 'rollout-apply.ts',
    step: 'rolloutApply',
    description: "Write a rollout's change to one cluster as its next generation",
    capabilities: ['table:read', 'table:spec', 'rollout:write'],
    timeoutSeconds: 20,
    memoryMb: 256,
  },
  rolloutWatch: {
    entry: 'rollout-watch.ts',
    step: 'rolloutWatch',
    description: 'Watch one cluster of a rollout: Ready at its generation, then healthy; alarms',
    capabilities: ['table:read', 'rollout:write', 'alarms:read'],
    timeoutSeconds: 20,
    memoryMb: 256,
  },
  rolloutReport: {
    entry: 'rollout-report.ts',
    step: 'rolloutReport',
    description: "A rollout's stages, approvals, soaks and outcome; notifications",
    capabilities: ['rollout:write', 'notify:publish'],
    timeoutSeconds: 20,
    memoryMb: 256,
  },
} as const satisfies Record<string, FunctionSpec>;

export type FunctionKey = keyof typeof FUNCTIONS;
