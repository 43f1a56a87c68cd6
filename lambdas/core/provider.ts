/**
 * The provider contract: the only surface through which CloudOrch reaches EKS. Narrow on purpose:
 * observe a cluster with its node groups, and apply one planned operation as one EKS call.
 *
 * Contract (every implementation, every method):
 * - Nothing is invented. Every field of an {@link Observation} or {@link ApplyResult} comes from an
 *   EKS response; an operation the provider does not implement throws.
 * - `observe` never mutates. A missing cluster is `cluster: null`, not an error.
 * - `apply` makes exactly one mutating EKS call for the operation and is idempotent: create and update
 *   calls send the operation's deterministic `clientRequestToken`.
 * - Errors are thrown as the core's classes (`classifyAwsError`): `NotFoundError` when the target is
 *   gone (for deletes the caller treats that as done), `TransientError`, `PermanentError`.
 * - The status EKS reports right after an update call is not trusted; the returned `updateId` is
 *   tracked with DescribeUpdate on later observations.
 */
import type { Observation } from './observation.js';
import type { MutatingOperation } from './plan/types.js';

export interface ClusterRef {
  readonly clusterName: string;
  readonly region: string;
  /** The target account (`spec.accountId`); absent: the stack's own account. */
  readonly accountId?: string | undefined;
}

/** The target a spec names, as the provider reaches it. */
export function refOf(spec: {
  clusterName: string;
  region: string;
  accountId?: string | undefined;
}): ClusterRef {
  return {
    clusterName: spec.clusterName,
    region: spec.region,
    ...(spec.accountId !== undefined ? { accountId: spec.accountId } : {}),
  };
}

/** An update EKS accepted earlier, to be followed with DescribeUpdate. */
export interface TrackedUpdate {
  readonly id: string;
  readonly nodegroupName?: string;
  readonly addonName?: string;
}

export interface ObserveOptions {
  /** Updates started by CloudOrch whose outcome is not known yet. */
  readonly trackedUpdates?: readonly TrackedUpdate[];
  /**
   * Describe exactly these node groups instead of listing them (the sweep's check, with the names
   * the record's status knows); one EKS no longer knows is left out. The observation then says
   * `nodegroupsListed: false`: a group created since is not in it. Absent: list and describe all.
   */
  readonly nodegroupNames?: readonly string[];
  /** Read the cluster's add-ons (the spec has `addons`, even an empty list). */
  readonly addons?: boolean;
  /** Add-ons whose versions to read (DescribeAddonVersions): the ones the spec lists. */
  readonly addonVersionsOf?: readonly string[];
  /** Read the access entries and their policies (the spec manages access). */
  readonly accessEntries?: boolean;
  /**
   * Read upgrade-readiness insights when the cluster's version differs from this one (an upgrade is
   * pending); absent: never.
   */
  readonly insightsUnlessAt?: string;
}

export interface ApplyResult {
  readonly kind: MutatingOperation['kind'];
  /** The `update.id` EKS returned for update calls. */
  readonly updateId?: string;
  /** The resource status in EKS's response (informational; not trusted for decisions). */
  readonly status?: string;
  /** The ARN in EKS's response for creates. */
  readonly arn?: string;
}

export interface ClusterProvider {
  observe(ref: ClusterRef, opts?: ObserveOptions): Promise<Observation>;
  apply(op: MutatingOperation): Promise<ApplyResult>;
}
