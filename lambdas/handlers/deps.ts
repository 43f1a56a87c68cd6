/**
 * What the handlers need from the outside world, typed per function: a function's deps hold the
 * clients its catalog capabilities name (lambdas/functions/catalog.ts) and nothing else, so the pure
 * steps hold none. The composition root (compose.ts) builds them; handlers read their own with
 * `depsOf(key)` and never construct a client themselves.
 */

import { InternalError } from '../core/errors.js';
import type { PlanDefaults } from '../core/plan/types.js';
import type { PolicyDecision, PolicyInput } from '../core/policy-input.js';
import type { ClusterProvider } from '../core/provider.js';
import { type Capability, FUNCTIONS, type FunctionKey } from '../functions/catalog.js';
import type { RolloutStore } from '../store/rollouts.js';
import type { ShardLeases } from '../store/shard-leases.js';
import type { DesiredStateStore } from '../store/types.js';
import type { ShardRunPayload, Trigger } from './contracts.js';

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

/**
 * Answers the callback Task of a Reconcile execution waiting for approval (Step Functions'
 * SendTaskSuccess and SendTaskFailure). A token whose task is no longer open (answered, timed out,
 * its execution ended) is not an error: `open: false` says the wait was already over.
 */
export interface TaskCallbacks {
  /** Ends the wait with `output` (JSON-serialisable) as the Task's result. */
  succeed(token: string, output: object): Promise<{ readonly open: boolean }>;
  /** Ends the wait with an error the state machine's Catch matches by name, and a cause. */
  fail(token: string, error: string, cause: string): Promise<{ readonly open: boolean }>;
}

/** Hands a run of sweep shards to the shard function (asynchronously in AWS, awaited in one process). */
export interface ShardInvoker {
  invoke(payload: ShardRunPayload): Promise<void>;
}

export type ExecutionStatus =
  | { readonly state: 'running'; readonly startedAt?: string }
  | { readonly state: 'ended' | 'unknown'; readonly detail?: string };

/** Tells people about a rollout: an approval is needed, it halted, it completed. */
export interface Notifier {
  publish(subject: string, message: string): Promise<void>;
}

/** Which of the named CloudWatch alarms are in ALARM; a name no alarm has is an error, not OK. */
export interface AlarmReader {
  inAlarm(names: readonly string[]): Promise<string[]>;
}

export interface PipelineConfig {
  readonly defaults: PlanDefaults;
  readonly leaseTtlMs: number;
  /** Deletion calls per record before DeletionStuck. */
  readonly maxDeletionCalls: number;
  /** The role CloudOrch itself uses in EKS: drift events it caused are ignored. */
  readonly ownRoleArns: readonly string[];
  /** The stack's account: an event from any other is about a target account's cluster. */
  readonly ownAccountId?: string;
}

export const DEFAULT_CONFIG: Omit<PipelineConfig, 'defaults' | 'ownRoleArns'> = {
  leaseTtlMs: 15 * 60_000,
  maxDeletionCalls: 12,
};

/** Every client a function may be given, by slot. */
export interface Clients {
  readonly store: DesiredStateStore;
  readonly provider: ClusterProvider;
  readonly policy: PolicyEvaluator;
  readonly executions: ExecutionStarter;
  readonly callbacks: TaskCallbacks;
  readonly shardInvoker: ShardInvoker;
  readonly shardLeases: ShardLeases;
  readonly rollouts: RolloutStore;
  readonly notifier: Notifier;
  readonly alarms: AlarmReader;
}
export type ClientSlot = keyof Clients;

/**
 * What each capability lets a function use: observing EKS is not applying to it, asking about an
 * execution is not starting one. Capabilities that IAM or an event source grant give no client.
 */
interface Grants {
  'table:read': { readonly store: DesiredStateStore };
  'table:reconcile': { readonly store: DesiredStateStore };
  'eks:read': { readonly provider: Pick<ClusterProvider, 'observe'> };
  'eks:write': { readonly provider: Pick<ClusterProvider, 'apply'> };
  'iam:pass-eks-roles': object;
  'policy:read': { readonly policy: PolicyEvaluator };
  'sfn:start': { readonly executions: Pick<ExecutionStarter, 'start'> };
  'sfn:describe': { readonly executions: Pick<ExecutionStarter, 'status'> };
  /** Only failing a wait (a spec change cancels it); answering one is a human's, through the CLI. */
  'sfn:callback': { readonly callbacks: Pick<TaskCallbacks, 'fail'> };
  'table:stream': object;
  /** The EKS provider's budget: the provider's maker builds it, so no client of its own. */
  'budget:claim': object;
  'lambda:invoke-shard': { readonly shardInvoker: ShardInvoker };
  'shard:lease': { readonly shardLeases: ShardLeases };
  'table:spec': { readonly store: DesiredStateStore };
  'rollout:write': { readonly rollouts: RolloutStore };
  'notify:publish': { readonly notifier: Notifier };
  'alarms:read': { readonly alarms: AlarmReader };
}
type SlotOfCapability<C extends Capability> = [keyof Grants[C]] extends [never] ? null : keyof Grants[C];

/** The client slot of each capability, at run time (checked against Grants, which must cover all). */
const CLIENT_OF = {
  'table:read': 'store',
  'table:reconcile': 'store',
  'eks:read': 'provider',
  'eks:write': 'provider',
  'iam:pass-eks-roles': null,
  'policy:read': 'policy',
  'sfn:start': 'executions',
  'sfn:describe': 'executions',
  'sfn:callback': 'callbacks',
  'table:stream': null,
  'budget:claim': null,
  'lambda:invoke-shard': 'shardInvoker',
  'shard:lease': 'shardLeases',
  'table:spec': 'store',
  'rollout:write': 'rollouts',
  'notify:publish': 'notifier',
  'alarms:read': 'alarms',
} as const satisfies { readonly [C in Capability]: SlotOfCapability<C> };

/** What every function has: its configuration and a clock. */
export interface BaseDeps {
  readonly now: () => Date;
  readonly config: PipelineConfig;
}

type CapabilityOf<K extends FunctionKey> = (typeof FUNCTIONS)[K]['capabilities'][number];
/** A | B to A & B: a function gets what every one of its capabilities grants. */
type AllOf<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
/** The client slots of one function. */
export type SlotOf<K extends FunctionKey> = Exclude<(typeof CLIENT_OF)[CapabilityOf<K>], null>;
/** The clients one function's capabilities grant, each as narrow as its capabilities say. */
export type GrantsOf<K extends FunctionKey> = AllOf<Grants[CapabilityOf<K>]>;
/** One function's deps: what its capabilities grant, nothing more (the pure steps: no client at all). */
type DepsOf<K extends FunctionKey> = BaseDeps & GrantsOf<K>;
/** Every client: what one process hosting every function holds (local mode, tests). */
export type Deps = BaseDeps & Clients;
type Installed = BaseDeps & Partial<Clients>;

export function slotsOf(key: FunctionKey): ClientSlot[] {
  const caps: readonly Capability[] = FUNCTIONS[key].capabilities;
  return [...new Set(caps.map((c) => CLIENT_OF[c]).filter((s) => s !== null))];
}

let shared: Deps | undefined;
const factories = new Map<FunctionKey, () => Installed>();
const built = new Map<FunctionKey, Installed>();

/** One process hosting every function (local mode, tests, benches) installs one set for all of them. */
export function setDeps(d: Deps | undefined): void {
  shared = d;
}

/** What such a process installed, every client included; handlers read theirs with `depsOf`. */
export function deps(): Deps {
  if (!shared) throw new InternalError('no dependencies were installed for every function (setDeps)');
  return shared;
}

/** A Lambda entry registers how its function's deps are built; they are built on first use. */
export function setDepsFactory(key: FunctionKey, f: () => BaseDeps & Partial<Clients>): void {
  factories.set(key, f);
  built.delete(key);
}

function buildFor(key: FunctionKey): Installed {
  const f = factories.get(key);
  if (!f) throw new InternalError(`the ${key} function's dependencies were not configured`);
  const d = f();
  built.set(key, d);
  return d;
}

export function depsOf<K extends FunctionKey>(key: K): DepsOf<K> {
  const d = shared ?? built.get(key) ?? buildFor(key);
  for (const slot of slotsOf(key)) {
    if (d[slot] === undefined)
      throw new InternalError(`the ${key} function was composed without its ${slot}`);
  }
  // Checked just above: every slot the key's capabilities name is present.
  return d as DepsOf<K>;
}
