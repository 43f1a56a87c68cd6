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
}

export interface Observation {
  /** `null` when EKS answered "not found" for the cluster. */
  readonly cluster: ObservedCluster | null;
  readonly nodegroups: readonly ObservedNodegroup[];
  /** When the observation was taken (ISO 8601). */
  readonly observedAt: string;
}
