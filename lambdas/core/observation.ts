/**
 * What the provider observed in EKS: facts only, each taken from an API response. The engine decides
 * what to do with them; the provider never interprets desired state.
 */
import type { Health } from './health.js';

export interface InFlightUpdate {
  readonly id: string;
  /** EKS `UpdateType`, e.g. `VersionUpdate`, `ConfigUpdate`. */
  readonly type: string;
  /** EKS `UpdateStatus`. */
  readonly status: string;
  readonly health: Health;
  /** `update.errors[].errorCode` of a failed update. */
  readonly errorCodes: readonly string[];
}

export interface ScalingConfig {
  readonly minSize: number;
  readonly maxSize: number;
  readonly desiredSize: number;
}

/** A Kubernetes taint as EKS reports it (`NO_SCHEDULE`, `NO_EXECUTE`, `PREFER_NO_SCHEDULE`). */
export interface ObservedTaint {
  readonly key: string;
  readonly value?: string | undefined;
  readonly effect: string;
}

/** How many nodes an update may take down at once: a count or a percentage. */
export interface UpdateConfig {
  readonly maxUnavailable?: number | undefined;
  readonly maxUnavailablePercentage?: number | undefined;
}

export interface ObservedNodegroup {
  readonly name: string;
  readonly arn: string;
  readonly version: string;
  /** Raw EKS status, kept for display; decisions use `health`. */
  readonly status: string;
  readonly health: Health;
  readonly instanceTypes: readonly string[];
  readonly capacityType: 'ON_DEMAND' | 'SPOT' | 'CAPACITY_BLOCK';
  readonly scaling: ScalingConfig;
  readonly nodeRole: string;
  readonly subnets: readonly string[];
  readonly tags: Readonly<Record<string, string>>;
  /** Kubernetes labels EKS puts on the nodes (empty when none). */
  readonly labels: Readonly<Record<string, string>>;
  readonly taints: readonly ObservedTaint[];
  /** Absent when EKS did not report it. */
  readonly amiType?: string;
  readonly diskSize?: number;
  readonly updateConfig?: UpdateConfig;
  /** The newest update of this node group if it is still in progress, or the newest failed one. */
  readonly update?: InFlightUpdate;
}

/** One of EKS's health issues of an add-on (`health.issues[]`). */
export interface AddonIssue {
  /** EKS `AddonIssue.code`, e.g. `InsufficientNumberOfReplicas`, `ConfigurationConflict`. */
  readonly code: string;
  readonly message: string;
  readonly resourceIds: readonly string[];
}

/** A pod identity association of an add-on, as DescribePodIdentityAssociation reports it. */
export interface ObservedPodIdentity {
  readonly serviceAccount: string;
  readonly roleArn: string;
  readonly associationArn: string;
}

export interface ObservedAddon {
  readonly name: string;
  readonly arn: string;
  readonly version: string;
  /** Raw EKS status (CREATING, ACTIVE, DEGRADED, UPDATE_FAILED, ...), kept for display. */
  readonly status: string;
  readonly health: Health;
  readonly issues: readonly AddonIssue[];
  readonly serviceAccountRoleArn?: string;
  /** The text EKS holds (CloudOrch sends JSON; someone else may have set YAML). */
  readonly configurationValues?: string;
  readonly podIdentityAssociations: readonly ObservedPodIdentity[];
  readonly tags: Readonly<Record<string, string>>;
  /** The newest update of this add-on if it is still in progress, or the newest failed one. */
  readonly update?: InFlightUpdate;
}

/** One version of an add-on in DescribeAddonVersions, with the cluster versions it runs on. */
export interface AddonVersion {
  readonly version: string;
  readonly compatibilities: readonly {
    readonly clusterVersion: string;
    /** EKS's default version of the add-on for that cluster version. */
    readonly defaultVersion: boolean;
  }[];
}

export interface ObservedAccessPolicy {
  readonly policyArn: string;
  readonly scope: { readonly type: string; readonly namespaces: readonly string[] };
}

export interface ObservedAccessEntry {
  readonly principalArn: string;
  readonly arn: string;
  /** STANDARD, EC2_LINUX, ... */
  readonly type: string;
  readonly kubernetesGroups: readonly string[];
  readonly username?: string;
  readonly tags: Readonly<Record<string, string>>;
  readonly policies: readonly ObservedAccessPolicy[];
}

/** An EKS upgrade insight (category UPGRADE_READINESS). */
export interface ObservedInsight {
  readonly id: string;
  readonly name: string;
  /** The Kubernetes version the insight is about (the upgrade's target). */
  readonly kubernetesVersion?: string;
  /** PASSING, WARNING, ERROR or UNKNOWN. */
  readonly status: string;
  readonly reason?: string;
  readonly description?: string;
  /** From DescribeInsight; read for insights in ERROR only. */
  readonly recommendation?: string;
}

export interface ObservedCluster {
  readonly name: string;
  readonly arn: string;
  readonly region: string;
  readonly version: string;
  readonly status: string;
  readonly health: Health;
  readonly endpoint?: string;
  readonly roleArn: string;
  readonly subnetIds: readonly string[];
  readonly securityGroupIds: readonly string[];
  readonly tags: Readonly<Record<string, string>>;
  readonly createdAt?: string;
  /** The newest update of the control plane if it is still in progress, or the newest failed one. */
  readonly update?: InFlightUpdate;
  /** `accessConfig.authenticationMode`; absent when EKS reports none (EKS then means CONFIG_MAP). */
  readonly authenticationMode?: string;
}

export interface Observation {
  /** `null` when EKS answered "not found" for the cluster. */
  readonly cluster: ObservedCluster | null;
  readonly nodegroups: readonly ObservedNodegroup[];
  /**
   * `false` when the node groups were described by name (the sweep's check) rather than listed:
   * `nodegroups` then holds the named groups that still exist, and a group created since (a foreign
   * one added out of band) is not in it. Absent: listed, `nodegroups` is every group of the cluster.
   * Only the sweep's check reads this way, and its plan only decides whether to start a run (which
   * observes fully): no status is written from it, and the deletion planner refuses it, since "no
   * group left" is exactly what it cannot tell. A group quota counted from it is a lower bound; at
   * worst the check plans a create where the run makes room first, and either way a run starts.
   */
  readonly nodegroupsListed?: false;
  /** When the observation was taken (ISO 8601). */
  readonly observedAt: string;
  /** Every add-on of the cluster. Absent: not read (an observation from before add-ons). */
  readonly addons?: readonly ObservedAddon[];
  /**
   * DescribeAddonVersions for each add-on the spec lists, by name (an empty list: EKS offers no such
   * add-on). Absent for an add-on: not read.
   */
  readonly addonVersions?: Readonly<Record<string, readonly AddonVersion[]>>;
  /** The cluster's access entries with their policies; absent when not read (the spec manages no access). */
  readonly accessEntries?: readonly ObservedAccessEntry[];
  /** Upgrade-readiness insights; absent when not read (no upgrade pending, or readiness `ignore`). */
  readonly insights?: readonly ObservedInsight[];
}
