/**
 * The EKS provider: the only code that talks to EKS, on `@aws-sdk/client-eks`.
 *
 * Contract (in addition to {@link ClusterProvider}'s):
 * - `observe` reads DescribeCluster, ListNodegroups + DescribeNodegroup (or, given `nodegroupNames`,
 *   DescribeNodegroup of exactly those, without listing: the sweep's check), (when asked) ListAddons + DescribeAddon
 *   (+ DescribePodIdentityAssociation per association), DescribeUpdate for every tracked update, and
 *   ListUpdates only for a resource whose status is UPDATING without a tracked update in progress
 *   (someone else started it, or its id was lost). On request it also reads add-on versions
 *   (`addonVersionsOf`), access entries with their policies (`accessEntries`) and upgrade insights
 *   (`insightsUnlessAt`, only when the cluster's version differs). The number of EKS calls per
 *   observation is bounded by {@link observeCallBound}; each call may be retried within the budget of
 *   {@link EKS_RETRY_BUDGET}. A list longer than its page limit is an error, never a truncated observation.
 * - A resource that vanishes between two calls of one observation is reported as gone (a cluster as
 *   `null`, a node group or add-on left out); a tracked update EKS no longer knows is left out.
 * - `apply` sends exactly one call per operation (see ops.ts); empty or no-op updates are refused.
 * - Every error leaves as one of the core's classes (`classifyAwsError`).
 *
 * @example
 * const provider = new EksProvider();                                      // AWS, default credentials
 * const local = new EksProvider({ endpoint: sim.url, credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
 * const obs = await provider.observe({ clusterName: 'dev', region: 'eu-west-1' });
 */
import type { Observation } from '../core/observation.js';
import type { MutatingOperation } from '../core/plan/types.js';
import type { ApplyResult, ClusterProvider, ClusterRef, ObserveOptions } from '../core/provider.js';
import { EksClients } from './clients.js';
import { EksReader } from './eks-reader.js';
import type { EksProviderOptions } from './eks-targets.js';
import { EksWriter } from './eks-writer.js';

export type { EksProviderOptions } from './eks-targets.js';
export { OBSERVE_LIMITS, type ObservedParts, observeCallBound } from './observe-limits.js';

/** Both sides over one client cache: the CLI, `cloudorch dev` and the tests. */
export class EksProvider implements ClusterProvider {
  readonly clients: EksClients;
  private readonly reader: EksReader;
  private readonly writer: EksWriter;

  constructor(opts: EksProviderOptions = {}) {
    this.clients = opts.clients ?? new EksClients(opts);
    this.reader = new EksReader({ ...opts, clients: this.clients });
    this.writer = new EksWriter({ ...opts, clients: this.clients });
  }

  observe(ref: ClusterRef, opts?: ObserveOptions): Promise<Observation> {
    return this.reader.observe(ref, opts);
  }

  apply(op: MutatingOperation): Promise<ApplyResult> {
    return this.writer.apply(op);
  }
}
