/** A typed client for the simulator's admin API (`/_sim/`), over HTTP like any other tool would use it. */

import type { AddonIssueCode } from './addon-state.js';
import type { CallCounts, FaultSpec } from './admin.js';
import type { InsightInput } from './insights.js';
import type { HealthIssue, Taint, UpdateConfig } from './model.js';

export interface ClusterDrift {
  readonly version?: string;
  readonly status?: string;
  readonly tags?: Record<string, string>;
  readonly healthIssues?: readonly HealthIssue[];
}

export interface NodegroupDrift extends ClusterDrift {
  readonly scaling?: { minSize?: number; maxSize?: number; desiredSize?: number };
  readonly instanceTypes?: readonly string[];
  readonly capacityType?: string;
  readonly labels?: Record<string, string>;
  readonly taints?: readonly Taint[];
  readonly updateConfig?: UpdateConfig;
}

/** One health issue of a DEGRADED add-on: an EKS AddonIssueCode and an optional message. */
export interface AddonHealthIssue {
  readonly code: AddonIssueCode;
  readonly message?: string;
}

/** One account as `accounts()` lists it: its quota, roles and cluster count per region. */
export interface SimAccount {
  readonly account: string;
  readonly clustersPerRegion: number;
  readonly roles: readonly { name: string; arn: string; externalId?: string }[];
  readonly clusters: Record<string, number>;
}

/** The admin API refused a call: its HTTP status and the simulator's own message. */
export class SimAdminError extends Error {
  override readonly name = 'SimAdminError';
  constructor(
    readonly status: number,
    readonly detail: string,
    what: string,
  ) {
    super(`admin ${what}: ${status} ${detail}`);
  }
}

export class SimAdminClient {
  constructor(
    private readonly url: string,
    private readonly region = 'us-east-1',
    /** The account whose clusters the cluster methods act on; the simulator's default account if unset. */
    private readonly account?: string,
  ) {}

  /** The same simulator's admin client for another account's clusters (roles and quotas are per call anyway). */
  forAccount(account: string): SimAdminClient {
    return new SimAdminClient(this.url, this.region, account);
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.url}/_sim/${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json = (await res.json()) as T & { message?: string };
    if (!res.ok) throw new SimAdminError(res.status, json.message ?? '', `${method} ${path}`);
    return json;
  }

  private cluster(name: string): string {
    const scope = this.account === undefined ? '' : `accounts/${encodeURIComponent(this.account)}/`;
    return `${scope}regions/${encodeURIComponent(this.region)}/clusters/${encodeURIComponent(name)}`;
  }

  reset(seed?: number): Promise<unknown> {
    return this.call('POST', 'reset', seed === undefined ? {} : { seed });
  }
  async calls(): Promise<CallCounts> {
    return (await this.call<{ calls: CallCounts }>('GET', 'calls')).calls;
  }
  resetCalls(): Promise<unknown> {
    return this.call('DELETE', 'calls');
  }
  setFaults(faults: Record<string, FaultSpec>): Promise<unknown> {
    return this.call('PUT', 'faults', faults);
  }
  clearFaults(): Promise<unknown> {
    return this.call('DELETE', 'faults');
  }
  advance(ms: number): Promise<unknown> {
    return this.call('POST', 'clock/advance', { ms });
  }
  driftCluster(name: string, drift: ClusterDrift): Promise<unknown> {
    return this.call('PATCH', this.cluster(name), drift);
  }
  driftNodegroup(cluster: string, nodegroup: string, drift: NodegroupDrift): Promise<unknown> {
    return this.call('PATCH', `${this.cluster(cluster)}/node-groups/${encodeURIComponent(nodegroup)}`, drift);
  }
  /** Deletes a cluster and its node groups at once, as if someone removed it outside CloudOrch. */
  vanishCluster(name: string): Promise<unknown> {
    return this.call('DELETE', this.cluster(name));
  }
  failNextUpdate(cluster: string, errorCode: string, nodegroupName?: string): Promise<unknown> {
    return this.call('POST', `${this.cluster(cluster)}/fail-next-update`, {
      errorCode,
      ...(nodegroupName ? { nodegroupName } : {}),
    });
  }
  /** Makes the add-on's next UpdateAddon end Failed with `errorCode` (the add-on goes UPDATE_FAILED). */
  failNextAddonUpdate(cluster: string, addonName: string, errorCode: string): Promise<unknown> {
    return this.call('POST', `${this.cluster(cluster)}/fail-next-update`, { errorCode, addonName });
  }
  /**
   * Sets (adds, or replaces the one with the same name or id) an insight on a cluster; it is about the
   * cluster's next minor unless `kubernetesVersion` says otherwise. Returns the insight's id and version.
   */
  setInsight(cluster: string, insight: InsightInput): Promise<{ id: string; kubernetesVersion: string }> {
    return this.call('PUT', `${this.cluster(cluster)}/insights`, insight);
  }
  /** Removes one insight by id, or every insight of the cluster. */
  clearInsights(cluster: string, id?: string): Promise<unknown> {
    return this.call('DELETE', `${this.cluster(cluster)}/insights`, id === undefined ? {} : { id });
  }
  /** Replaces an add-on's health issues: an ACTIVE add-on turns DEGRADED (one still moving, when it settles). */
  degradeAddon(
    cluster: string,
    addon: string,
    issues: readonly AddonHealthIssue[],
  ): Promise<{ status: string }> {
    return this.call('PUT', this.addonHealth(cluster, addon), { issues });
  }
  /** Clears an add-on's health issues: a DEGRADED add-on returns to ACTIVE. */
  clearAddonHealth(cluster: string, addon: string): Promise<{ status: string }> {
    return this.call('DELETE', this.addonHealth(cluster, addon));
  }
  /**
   * Creates (or replaces) a role in `account` that the simulator's STS lets anyone assume, presenting
   * `externalId` when one is given. Returns the role's ARN.
   */
  async createRole(account: string, name: string, opts: { externalId?: string } = {}): Promise<string> {
    const body = opts.externalId === undefined ? {} : { externalId: opts.externalId };
    return (await this.call<{ arn: string }>('PUT', this.role(account, name), body)).arn;
  }
  /** Deletes a role: AssumeRole is refused from now on; credentials already issued keep working. */
  deleteRole(account: string, name: string): Promise<unknown> {
    return this.call('DELETE', this.role(account, name));
  }
  /** Sets one account's cluster quota per region (default: the simulator's `clustersPerRegion`). */
  setClusterQuota(account: string, clustersPerRegion: number): Promise<unknown> {
    return this.call('PUT', `accounts/${encodeURIComponent(account)}/quota`, { clustersPerRegion });
  }
  /** The default account and every account with a role or quota, with their clusters per region. */
  async accounts(): Promise<SimAccount[]> {
    return (await this.call<{ accounts: SimAccount[] }>('GET', 'accounts')).accounts;
  }
  private role(account: string, name: string): string {
    return `accounts/${encodeURIComponent(account)}/roles/${encodeURIComponent(name)}`;
  }
  private addonHealth(cluster: string, addon: string): string {
    return `${this.cluster(cluster)}/addons/${encodeURIComponent(addon)}/health`;
  }
}
