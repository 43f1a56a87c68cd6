/**
 * Probes that count what AWS would bill or throttle, without changing product code: every step
 * Lambda invocation (count, duration, optional injected crash), every EKS HTTP request (time,
 * region, operation, cluster, outcome) and the DynamoDB capacity units of every store call.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { EKSClient } from '@aws-sdk/client-eks';
import type { ClusterProvider } from '../../lambdas/core/provider.js';
import { type Deps, setDeps } from '../../lambdas/handlers/deps.js';
import { STEP_HANDLERS } from '../../lambdas/handlers/steps/index.js';
import { EksProvider } from '../../lambdas/provider/eks-provider.js';
import type { StepFunctionKey } from '../../lambdas/statemachine/definition.js';
import { DynamoDesiredStateStore } from '../../lambdas/store/dynamo-store.js';
import { type ControlPlane, LOCAL_ACCOUNT } from '../../local/runtime/control-plane.js';
import { LOCAL_CREDENTIALS } from '../../local/runtime/credentials.js';
import { feedWrites } from '../../local/store/write-tap.js';

const OWN_ACCOUNT = LOCAL_ACCOUNT;
export const TABLE = 'cloudorch-desired-state';
const LOCAL = { region: 'us-east-1', credentials: LOCAL_CREDENTIALS };

export const now = (): number => performance.timeOrigin + performance.now();

/**
 * Who made a request: code run inside `origin.run('sweep', ...)` is the sweep. Executions run in
 * the local Step Functions endpoint's own request context, so they are never attributed to it.
 */
export const origin = new AsyncLocalStorage<string>();

// ---------------------------------------------------------------------------------------------
// Step Lambdas

type StepFn = (input: unknown) => Promise<unknown>;
export interface StepCall {
  readonly key: StepFunctionKey;
  readonly ms: number;
}
export interface StepProbe {
  calls: StepCall[];
  /** Runs before the real handler; throwing here is a crash of that invocation. */
  before?: ((key: StepFunctionKey, input: unknown) => Promise<void>) | undefined;
  /** Runs after the real handler succeeded (a crash after the work was done). */
  after?: ((key: StepFunctionKey, input: unknown) => Promise<void>) | undefined;
}

export const stepProbe: StepProbe = { calls: [] };
let installed = false;

/**
 * Wraps every step handler. The control plane builds its handler map from STEP_HANDLERS when it
 * starts, so this must run before startControlPlane.
 */
export function installStepProbe(): void {
  if (installed) return;
  installed = true;
  const table = STEP_HANDLERS as unknown as Record<StepFunctionKey, StepFn>;
  for (const key of Object.keys(table) as StepFunctionKey[]) {
    const real = table[key];
    table[key] = async (input: unknown) => {
      const t = performance.now();
      try {
        await stepProbe.before?.(key, input);
        const out = await real(input);
        await stepProbe.after?.(key, input);
        return out;
      } finally {
        stepProbe.calls.push({ key, ms: performance.now() - t });
      }
    };
  }
}

// ---------------------------------------------------------------------------------------------
// EKS requests

export interface EksRequest {
  /** Epoch ms with sub-ms precision, when the attempt was sent. */
  readonly at: number;
  readonly region: string;
  /** The target account: the assumed role's, else the simulator's default (the stack's own). */
  readonly account: string;
  readonly op: string;
  readonly cluster: string | undefined;
  readonly token: string | undefined;
  /** HTTP status, 0 when the attempt failed without one. */
  readonly status: number;
  readonly error: string | undefined;
  readonly origin: string | undefined;
}

interface EksInput {
  name?: string;
  clusterName?: string;
  resourceArn?: string;
  clientRequestToken?: string;
}

/** `arn:aws:eks:r:a:cluster/NAME` and `.../nodegroup/NAME/ng/id` -> NAME. */
function clusterOf(input: EksInput): string | undefined {
  if (input.clusterName ?? input.name) return input.clusterName ?? input.name;
  return input.resourceArn ? /:(?:cluster|nodegroup)\/([^/]+)/.exec(input.resourceArn)?.[1] : undefined;
}

export class EksLog {
  readonly requests: EksRequest[] = [];
  private readonly seen = new WeakSet<EKSClient>();

  /** Logs every HTTP attempt: the deserialize step runs once per attempt, inside the SDK's retries. */
  attach(client: EKSClient, region: string, account = OWN_ACCOUNT): void {
    if (this.seen.has(client)) return;
    this.seen.add(client);
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as EksInput;
        const base = {
          at: now(),
          region,
          account,
          op: (context.commandName ?? 'Unknown').replace(/Command$/, ''),
          cluster: clusterOf(input),
          token: input.clientRequestToken,
          origin: origin.getStore(),
        };
        try {
          const out = await next(args);
          // Added in the deserialize step, this sees the raw HTTP response before it becomes an error.
          const res = out.response as { statusCode?: number; headers?: Record<string, string> };
          const status = res.statusCode ?? 0;
          const error =
            status >= 300 ? (res.headers?.['x-amzn-errortype']?.split(':')[0] ?? 'Unknown') : undefined;
          this.requests.push({ ...base, status, error });
          return out;
        } catch (e) {
          const err = e as { name?: string; $metadata?: { httpStatusCode?: number } };
          this.requests.push({ ...base, status: err.$metadata?.httpStatusCode ?? 0, error: err.name });
          throw e;
        }
      },
      { step: 'deserialize', name: 'benchEksLog' },
    );
  }

  /** Logs the requests of every client the provider creates (one per region). */
  instrument(provider: ClusterProvider): void {
    if (!(provider instanceof EksProvider)) throw new Error('the control plane should use the EksProvider');
    const clients = provider.clients;
    const original = clients.forRegion.bind(clients);
    clients.forRegion = (region: string, roleArn?: string) => {
      const c = original(region, roleArn);
      this.attach(c, region, roleArn ? (/:iam::(\d{12}):/.exec(roleArn)?.[1] ?? '?') : OWN_ACCOUNT);
      return c;
    };
  }

  clear(): void {
    this.requests.length = 0;
  }
}

/** The largest number of requests inside any window of `windowMs` (times need not be sorted). */
export function maxInWindow(times: readonly number[], windowMs: number): number {
  const t = Float64Array.from(times).sort();
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < t.length; hi++) {
    while (t[hi]! - t[lo]! >= windowMs) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

// ---------------------------------------------------------------------------------------------
// DynamoDB capacity

const READS = new Set(['GetItemCommand', 'ScanCommand', 'QueryCommand', 'BatchGetItemCommand']);
const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand']);

type Consumed = { CapacityUnits?: number } | { CapacityUnits?: number }[] | undefined;
const units = (c: Consumed) =>
  (Array.isArray(c) ? c : c ? [c] : []).reduce((n, x) => n + (x.CapacityUnits ?? 0), 0);

/** Read and write request units as DynamoDB on-demand bills them, reported by the server per call. */
export class DynamoMeter {
  readUnits = 0;
  writeUnits = 0;
  /** Read units of Scans (the sweep's only table access). */
  scanUnits = 0;
  readonly calls: Record<string, number> = {};

  attach(client: DynamoDBClient): void {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const name = context.commandName ?? '';
        const metered = READS.has(name) || WRITES.has(name);
        if (metered) (args.input as { ReturnConsumedCapacity?: string }).ReturnConsumedCapacity = 'TOTAL';
        this.calls[name] = (this.calls[name] ?? 0) + 1;
        try {
          const out = await next(args);
          const n = units((out.output as { ConsumedCapacity?: Consumed }).ConsumedCapacity);
          if (READS.has(name)) this.readUnits += n;
          if (name === 'ScanCommand') this.scanUnits += n;
          if (WRITES.has(name)) this.writeUnits += n;
          return out;
        } catch (e) {
          // DynamoDB bills a write whose condition failed (at least one unit); the server reports none.
          if (WRITES.has(name) && (e as Error).name === 'ConditionalCheckFailedException')
            this.writeUnits += 1;
          throw e;
        }
      },
      { step: 'initialize', name: 'benchDynamoMeter' },
    );
  }

  reset(): void {
    this.readUnits = 0;
    this.writeUnits = 0;
    this.scanUnits = 0;
    for (const k of Object.keys(this.calls)) delete this.calls[k];
  }
}

export interface Metered {
  readonly ddb: DynamoDBClient;
  readonly store: DynamoDesiredStateStore;
  readonly meter: DynamoMeter;
  readonly eks: EksLog;
}

/**
 * Points the handlers at a store whose client reports capacity units, and logs the provider's EKS
 * requests. Same table, same change feed: only the client differs.
 */
export function meter(cp: ControlPlane): Metered {
  const m = new DynamoMeter();
  // Fleet seeding batch-writes items straight to the table on its own client, unheard by the change
  // feed (whose tap refuses batch writes), as before; the store's writes are heard, as in dev.
  const ddb = new DynamoDBClient({ endpoint: cp.endpoints.dynamodb, ...LOCAL });
  const storeClient = feedWrites(new DynamoDBClient({ endpoint: cp.endpoints.dynamodb, ...LOCAL }), cp.feed);
  m.attach(ddb);
  m.attach(storeClient);
  const store = new DynamoDesiredStateStore({ client: storeClient, tableName: TABLE });
  const deps: Deps = { ...cp.deps, store };
  setDeps(deps);
  const eks = new EksLog();
  eks.instrument(cp.deps.provider);
  return { ddb, store, meter: m, eks };
}

export const localCredentials = LOCAL;
