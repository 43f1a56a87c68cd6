/**
 * The request bodies of the access calls (the cluster's authentication mode, access entries and their
 * policies). Pure: the operation in, the SDK input out; what EKS must never receive from CloudOrch is
 * refused before it does.
 */
import {
  type AssociateAccessPolicyCommandInput,
  AuthenticationMode,
  type CreateAccessEntryCommandInput,
  type UpdateAccessEntryCommandInput,
  type UpdateClusterConfigCommandInput,
} from '@aws-sdk/client-eks';
import { createdByCloudOrch } from '../core/ownership.js';
import type {
  AssociateAccessPolicy,
  CreateAccessEntry,
  UpdateAccessEntry,
  UpdateClusterConfig,
} from '../core/plan/types.js';
import { ProviderBugError } from './errors.js';

const BUG = 'This is a planner bug: report it with the plan shown in status.';

/** Only STANDARD entries take Kubernetes groups (EKS rejects them on node types). */
const STANDARD = 'STANDARD';

const MODES: readonly string[] = Object.values(AuthenticationMode);
const isMode = (v: string): v is AuthenticationMode => MODES.includes(v);

/** The mode as EKS's enum; a name EKS does not know is a planner bug. */
export function authenticationMode(mode: string): AuthenticationMode {
  if (!isMode(mode)) throw new ProviderBugError(`refusing to send authentication mode ${mode}`, BUG);
  return mode;
}

/** Refused when the mode does not move: EKS would answer that nothing changes. */
export function updateClusterConfigInput(op: UpdateClusterConfig): UpdateClusterConfigCommandInput {
  if (op.authenticationMode === op.fromMode) {
    throw new ProviderBugError(
      `refusing to send an empty or no-op authentication mode update (${op.fromMode})`,
      BUG,
    );
  }
  return {
    name: op.clusterName,
    accessConfig: { authenticationMode: authenticationMode(op.authenticationMode) },
    clientRequestToken: op.clientRequestToken,
  };
}

/** Refused without both ownership tags: the planner would later take the entry for one made by hand. */
export function createAccessEntryInput(op: CreateAccessEntry): CreateAccessEntryCommandInput {
  if (!createdByCloudOrch(op.tags)) {
    throw new ProviderBugError(
      `refusing to create the access entry of ${op.principalArn} without the ownership tags`,
      BUG,
    );
  }
  const groups =
    op.type === STANDARD && op.kubernetesGroups.length > 0 ? [...op.kubernetesGroups] : undefined;
  return {
    clusterName: op.clusterName,
    principalArn: op.principalArn,
    type: op.type,
    ...(groups ? { kubernetesGroups: groups } : {}),
    tags: { ...op.tags },
    clientRequestToken: op.clientRequestToken,
  };
}

/** An empty list clears the entry's groups (what the spec asks when it lists none). */
export function updateAccessEntryInput(op: UpdateAccessEntry): UpdateAccessEntryCommandInput {
  return {
    clusterName: op.clusterName,
    principalArn: op.principalArn,
    kubernetesGroups: [...op.kubernetesGroups],
    clientRequestToken: op.clientRequestToken,
  };
}

/** A namespace scope names its namespaces; a cluster scope names none. */
export function associateAccessPolicyInput(op: AssociateAccessPolicy): AssociateAccessPolicyCommandInput {
  const { type, namespaces } = op.accessScope;
  if (type === 'namespace' && namespaces.length === 0) {
    throw new ProviderBugError(
      `refusing to associate ${op.policyArn} with ${op.principalArn} on a namespace scope without namespaces`,
      BUG,
    );
  }
  return {
    clusterName: op.clusterName,
    principalArn: op.principalArn,
    policyArn: op.policyArn,
    accessScope: type === 'namespace' ? { type, namespaces: [...namespaces] } : { type },
  };
}
