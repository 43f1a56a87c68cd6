/**
 * The simulator's in-memory model: configuration, records, the seeded PRNG and the error type every
 * rule throws. Records hold simulator state; wire.ts renders them into EKS's JSON shapes.
 */

/** Durations of asynchronous transitions at speed 1 (milliseconds). Real EKS takes minutes. */
export interface Durations {
  readonly clusterCreate: number;
  readonly clusterDelete: number;
  readonly clusterVersionUpdate: number;
  readonly nodegroupCreate: number;
  readonly nodegroupDelete: number;
  readonly nodegroupVersionUpdate: number;
  readonly nodegroupConfigUpdate: number;
  /**
   * How long a resource still reads ACTIVE after an update was accepted: EKS documents the status
   * transition as eventually consistent, which is why callers must track the update id.
   */
  readonly statusLag: number;
}

export const DEFAULT_DURATIONS: Durations = {
  clusterCreate: 600_000,
  clusterDelete: 300_000,
  clusterVersionUpdate: 900_000,
  nodegroupCreate: 240_000,
  nodegroupDelete: 180_000,
  nodegroupVersionUpdate: 600_000,
  nodegroupConfigUpdate: 60_000,
  statusLag: 5_000,
};

export interface SimConfig {
  readonly seed: number;
  /** Transition durations are divided by this factor (e.g. 60_000 turns ten minutes into 10 ms). */
  readonly speed: number;
  readonly accountId: string;
  /** Used when a request carries no SigV4 credential scope. */
  readonly defaultRegion: string;
  readonly supportedVersions: readonly string[];
  readonly defaultVersion: string;
  /**
   * Node group skew allowed before a control-plane upgrade. The API reference requires node groups to
   * match the cluster version (`strict-match`); the user guide allows kubelets up to three minors
   * behind (`n-3`). CloudOrch must work under both, so the strict one is the default.
   */
  readonly nodegroupSkew: 'strict-match' | 'n-3';
  /** Service quota "Clusters" per account and region (EKS default 100); the admin API can set one account's. */
  readonly clustersPerRegion: number;
  readonly durations: Durations;
}

export const DEFAULT_CONFIG: SimConfig = {
  seed: 1,
  speed: 1,
  accountId: '000000000000',
  defaultRegion: 'us-east-1',
  supportedVersions: ['1.28', '1.29', '1.30', '1.31', '1.32', '1.33', '1.34', '1.35'],
  defaultVersion: '1.33',
  nodegroupSkew: 'strict-match',
  clustersPerRegion: 100,
  durations: DEFAULT_DURATIONS,
};

/** A pending status change; `to: null` means the resource disappears. */
export interface Transition {
  readonly at: number;
  readonly to: string | null;
}

export interface UpdateRec {
  readonly id: string;
  readonly type: 'VersionUpdate' | 'ConfigUpdate' | 'AccessConfigUpdate';
  status: 'InProgress' | 'Successful' | 'Failed';
  readonly params: readonly { type: string; value: string }[];
  readonly createdAt: number;
  readonly nodegroupName?: string;
  /** When the update stops being visible as ACTIVE (eventual consistency) and when it completes. */
  readonly visibleAt: number;
  readonly doneAt: number;
  readonly failure?: { errorCode: string; errorMessage: string };
  errors: { errorCode: string; errorMessage: string; resourceIds: string[] }[];
  /** Applied when the update succeeds. */
  readonly effect: () => void;
}

export interface HealthIssue {
  readonly code: string;
  readonly message: string;
}

/** A Kubernetes taint as EKS models it; key and effect identify it, as in Kubernetes. */
export interface Taint {
  readonly key: string;
  readonly value?: string;
  readonly effect: string;
}

/** `updateConfig`: exactly one of the two members is set. */
export type UpdateConfig =
  | { readonly maxUnavailable: number }
  | { readonly maxUnavailablePercentage: number };

export interface NodegroupRec {
  readonly name: string;
  readonly arn: string;
  readonly clusterName: string;
  version: string;
  releaseVersion: string;
  status: string;
  transition?: Transition | undefined;
  capacityType: string;
  instanceTypes: string[];
  scaling: { minSize: number; maxSize: number; desiredSize: number };
  readonly subnets: string[];
  readonly nodeRole: string;
  readonly amiType: string;
  readonly diskSize: number;
  labels: Record<string, string>;
  taints: Taint[];
  updateConfig: UpdateConfig;
  tags: Record<string, string>;
  readonly createdAt: number;
  modifiedAt: number;
  healthIssues: HealthIssue[];
  readonly asgName: string;
}

export interface ClusterRec {
  readonly name: string;
  readonly arn: string;
  /** The account the cluster lives in: the caller's (docs/eks-api.md, accounts). */
  readonly account: string;
  /** The IAM principal that created it: its access entry when the creator is bootstrapped. */
  readonly creatorArn: string;
  readonly region: string;
  version: string;
  platformVersion: string;
  status: string;
  transition?: Transition | undefined;
  readonly roleArn: string;
  readonly subnetIds: string[];
  readonly securityGroupIds: string[];
  readonly endpointPublicAccess: boolean;
  readonly endpointPrivateAccess: boolean;
  readonly endpoint: string;
  readonly caData: string;
  readonly clusterSecurityGroupId: string;
  readonly vpcId: string;
  tags: Record<string, string>;
  readonly createdAt: number;
  readonly clientRequestToken?: string;
  healthIssues: HealthIssue[];
  readonly nodegroups: Map<string, NodegroupRec>;
  /** Cluster and node group updates, oldest first (ListUpdates order). */
  readonly updates: UpdateRec[];
  /** Set by the admin API: the next update on this cluster or node group fails with this code. */
  failNext: Map<string, string>;
}

/** An EKS error: HTTP status, `x-amzn-ErrorType`, message, and the name members EKS echoes. */
export class SimError extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly extra: { clusterName?: string; nodegroupName?: string } = {},
  ) {
    super(message);
  }
}

/** mulberry32: small, fast and deterministic under a seed. */
export class Prng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  hex(n: number): string {
    let out = '';
    for (let i = 0; i < n; i++) out += Math.floor(this.next() * 16).toString(16);
    return out;
  }
  uuid(): string {
    const h = this.hex(32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }
}
