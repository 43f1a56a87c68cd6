/**
 * Per-cluster access state (authentication mode, access entries, their policy associations), kept
 * beside the cluster record in a WeakMap so a deleted cluster takes its entries with it. Records here;
 * EKS's JSON shapes and errors too, so the handlers stay small.
 */
import {
  accessPolicyArn,
  CLUSTER_ADMIN_POLICY as CLUSTER_ADMIN_POLICY_NAME,
} from '../../lambdas/core/access-policies.js';
import { type ClusterRec, SimError } from './model.js';
import { invalidParameter, invalidRequest } from './rules.js';
import type { SimState } from './state.js';

/** EKS moves the mode only forward in this order. */
export const AUTH_MODES = ['CONFIG_MAP', 'API_AND_CONFIG_MAP', 'API'] as const;
export type AuthMode = (typeof AUTH_MODES)[number];

export const ENTRY_TYPES = [
  'STANDARD',
  'EC2_LINUX',
  'EC2_WINDOWS',
  'FARGATE_LINUX',
  'HYBRID_LINUX',
  'EC2',
] as const;

export interface AccessScope {
  readonly type: 'cluster' | 'namespace';
  readonly namespaces: readonly string[];
}

export interface Association {
  scope: AccessScope;
  readonly associatedAt: number;
  modifiedAt: number;
}

export interface EntryRec {
  readonly principalArn: string;
  readonly arn: string;
  readonly type: string;
  username: string;
  kubernetesGroups: string[];
  tags: Record<string, string>;
  readonly createdAt: number;
  modifiedAt: number;
  /** Keyed by policy ARN, in association order. */
  readonly policies: Map<string, Association>;
}

export interface AccessRec {
  mode: AuthMode;
  readonly bootstrap: boolean;
  /** DescribeCluster shows `accessConfig` once the cluster was created with one or its mode changed. */
  shown: boolean;
  readonly entries: Map<string, EntryRec>;
}

export interface AccessConfigInput {
  readonly mode: AuthMode;
  readonly bootstrap: boolean;
}

const ACCESS = new WeakMap<ClusterRec, AccessRec>();

/** The creator's bootstrap entry gets EKS's cluster-admin policy (the one name list is core's). */
export const CLUSTER_ADMIN_POLICY = accessPolicyArn(CLUSTER_ADMIN_POLICY_NAME);

/**
 * The principal of every request not signed with credentials the simulator's STS issued: the simulator
 * does not verify SigV4, so it cannot know the real caller and uses this fixed, clearly simulated role.
 */
export const callerArn = (state: SimState) => `arn:aws:iam::${state.config.accountId}:role/eks-sim-caller`;

/** [real] EKS's text when an access-entry operation meets a CONFIG_MAP cluster. */
export const modeRefused = (c: ClusterRec) =>
  invalidRequest(
    "The cluster's authentication mode must be set to one of [API, API_AND_CONFIG_MAP] to perform this operation.",
    { clusterName: c.name },
  );

/** [real] EKS's ResourceInUseException text for a second entry of one principal. */
export const entryInUse = (c: ClusterRec) =>
  new SimError(
    409,
    'ResourceInUseException',
    'The specified access entry resource is already in use on this cluster.',
    {
      clusterName: c.name,
    },
  );

/** [real] the answer to an update or association on an entry EKS manages (e.g. EC2_LINUX). */
export const notStandard = (c: ClusterRec) =>
  invalidParameter('This operation can only be performed on Access Entries with a type of "STANDARD".', {
    clusterName: c.name,
  });

export const entryNotFound = (c: ClusterRec, principalArn: string) =>
  new SimError(
    404,
    'ResourceNotFoundException',
    `The specified principalArn could not be found: ${principalArn}`,
    {
      clusterName: c.name,
    },
  ); // [sim]

/** CreateCluster's `accessConfig`, validated before anything is created. Absent: EKS's API default. */
export function parseAccessConfig(v: unknown): AccessConfigInput | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw invalidParameter('accessConfig must be an object'); // [sim]
  const o = v as Record<string, unknown>;
  const mode = o.authenticationMode ?? 'CONFIG_MAP';
  if (!AUTH_MODES.includes(mode as AuthMode)) {
    throw invalidParameter(`authenticationMode must be one of ${AUTH_MODES.join(', ')}`); // [sim]
  }
  const bootstrap = o.bootstrapClusterCreatorAdminPermissions ?? true;
  if (typeof bootstrap !== 'boolean') {
    throw invalidParameter('bootstrapClusterCreatorAdminPermissions must be a boolean'); // [sim]
  }
  if (mode === 'CONFIG_MAP' && !bootstrap) {
    // [real] terraform-aws-eks#3026.
    throw invalidParameter(
      'bootstrapClusterCreatorAdminPermissions must be true if cluster authentication mode is set to CONFIG_MAP',
    );
  }
  return { mode: mode as AuthMode, bootstrap };
}

/** `arn:aws:eks:REGION:ACCOUNT:access-entry/CLUSTER/role/ACCOUNT/NAME/UUID`, EKS's form. */
function entryArn(state: SimState, c: ClusterRec, principalArn: string): string {
  const m = /^arn:aws:iam::(\d{12}):(role|user)\/(?:.*\/)?([^/]+)$/.exec(principalArn);
  const kind = m?.[2] ?? 'role';
  const account = m?.[1] ?? c.account;
  const name = m?.[3] ?? principalArn;
  return `arn:aws:eks:${c.region}:${c.account}:access-entry/${c.name}/${kind}/${account}/${name}/${state.rng.uuid()}`;
}

/** EKS's default username: the assumed-role session for roles, the ARN for users, the node name for nodes. */
function defaultUsername(principalArn: string, type: string): string {
  if (type === 'EC2_LINUX' || type === 'EC2_WINDOWS') return 'system:node:{{EC2PrivateDNSName}}';
  if (type === 'FARGATE_LINUX') return 'system:node:{{SessionName}}';
  const m = /^arn:aws:iam::(\d{12}):role\/(?:.*\/)?([^/]+)$/.exec(principalArn);
  return m ? `arn:aws:sts::${m[1]}:assumed-role/${m[2]}/{{SessionName}}` : principalArn;
}

export interface NewEntry {
  readonly principalArn: string;
  readonly type: string;
  readonly username?: string | undefined;
  readonly kubernetesGroups: string[];
  readonly tags: Record<string, string>;
}

export function addEntry(state: SimState, c: ClusterRec, spec: NewEntry): EntryRec {
  const now = state.now();
  const e: EntryRec = {
    principalArn: spec.principalArn,
    arn: entryArn(state, c, spec.principalArn),
    type: spec.type,
    username: spec.username ?? defaultUsername(spec.principalArn, spec.type),
    kubernetesGroups: spec.kubernetesGroups,
    tags: spec.tags,
    createdAt: now,
    modifiedAt: now,
    policies: new Map(),
  };
  accessOf(state, c).entries.set(e.principalArn, e);
  return e;
}

/**
 * Records a new cluster's access config. With bootstrap, the creator gets its cluster-admin entry once
 * entries exist: at creation, or when a CONFIG_MAP cluster leaves that mode (so a cluster created
 * without accessConfig draws nothing from the PRNG and answers exactly as before).
 */
export function initAccess(state: SimState, c: ClusterRec, cfg: AccessConfigInput | undefined): void {
  const rec: AccessRec = {
    mode: cfg?.mode ?? 'CONFIG_MAP',
    bootstrap: cfg?.bootstrap ?? true,
    shown: cfg !== undefined,
    entries: new Map(),
  };
  ACCESS.set(c, rec);
  if (rec.mode !== 'CONFIG_MAP') bootstrapCreator(state, c, rec);
}

/** The creator's entry with AmazonEKSClusterAdminPolicy, when the cluster was created with bootstrap. */
export function bootstrapCreator(state: SimState, c: ClusterRec, rec: AccessRec): void {
  const principalArn = c.creatorArn;
  if (!rec.bootstrap || rec.entries.has(principalArn)) return;
  const e = addEntry(state, c, { principalArn, type: 'STANDARD', kubernetesGroups: [], tags: {} });
  e.policies.set(CLUSTER_ADMIN_POLICY, {
    scope: { type: 'cluster', namespaces: [] },
    associatedAt: e.createdAt,
    modifiedAt: e.createdAt,
  });
}

export function accessOf(state: SimState, c: ClusterRec): AccessRec {
  let rec = ACCESS.get(c);
  if (!rec) {
    initAccess(state, c, undefined);
    rec = ACCESS.get(c) as AccessRec;
  }
  return rec;
}

/** DescribeCluster's `accessConfig` member, only where the cluster has one to show. */
export function accessConfigJson(state: SimState, c: ClusterRec): Record<string, unknown> {
  const a = accessOf(state, c);
  if (!a.shown) return {};
  return {
    accessConfig: { bootstrapClusterCreatorAdminPermissions: a.bootstrap, authenticationMode: a.mode },
  };
}

const seconds = (ms: number) => ms / 1000;

export function entryJson(c: ClusterRec, e: EntryRec): Record<string, unknown> {
  return {
    clusterName: c.name,
    principalArn: e.principalArn,
    kubernetesGroups: e.kubernetesGroups,
    accessEntryArn: e.arn,
    createdAt: seconds(e.createdAt),
    modifiedAt: seconds(e.modifiedAt),
    tags: e.tags,
    username: e.username,
    type: e.type,
  };
}

export function associationJson(policyArn: string, a: Association): Record<string, unknown> {
  return {
    policyArn,
    accessScope: { type: a.scope.type, namespaces: [...a.scope.namespaces] },
    associatedAt: seconds(a.associatedAt),
    modifiedAt: seconds(a.modifiedAt),
  };
}
