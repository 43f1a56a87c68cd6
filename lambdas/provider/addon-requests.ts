/**
 * The request bodies of the add-on calls. Pure: the operation in, the SDK input out; what the planner
 * left out is not sent, and what EKS must never receive from CloudOrch is refused before it does.
 */
import type {
  CreateAddonCommandInput,
  DeleteAddonCommandInput,
  UpdateAddonCommandInput,
} from '@aws-sdk/client-eks';
import { createdByCloudOrch } from '../core/ownership.js';
import type { CreateAddon, DeleteAddon, PodIdentity, UpdateAddon } from '../core/plan/types.js';
import { ProviderBugError } from './errors.js';

const BUG = 'This is a planner bug: report it with the plan shown in status.';

/** The settings both CreateAddon and UpdateAddon carry, each only when the planner set it. */
function settings(op: CreateAddon | UpdateAddon) {
  const pods: readonly PodIdentity[] | undefined = op.podIdentityAssociations;
  return {
    clusterName: op.clusterName,
    addonName: op.addonName,
    addonVersion: op.addonVersion,
    ...(op.configurationValues !== undefined ? { configurationValues: op.configurationValues } : {}),
    ...(op.serviceAccountRoleArn !== undefined ? { serviceAccountRoleArn: op.serviceAccountRoleArn } : {}),
    ...(pods !== undefined
      ? {
          podIdentityAssociations: pods.map((p) => ({
            serviceAccount: p.serviceAccount,
            roleArn: p.roleArn,
          })),
        }
      : {}),
    resolveConflicts: op.resolveConflicts,
    clientRequestToken: op.clientRequestToken,
  };
}

/** Refused without both ownership tags: the planner would later take the add-on for one it adopted. */
export function createAddonInput(op: CreateAddon): CreateAddonCommandInput {
  if (!createdByCloudOrch(op.tags)) {
    throw new ProviderBugError(`refusing to create add-on ${op.addonName} without the ownership tags`, BUG);
  }
  return { ...settings(op), tags: { ...op.tags } };
}

/** Refused when it changes nothing: the same version and no setting to send. */
export function updateAddonInput(op: UpdateAddon): UpdateAddonCommandInput {
  const noSettings =
    op.configurationValues === undefined &&
    op.serviceAccountRoleArn === undefined &&
    op.podIdentityAssociations === undefined;
  if (op.addonVersion === op.fromVersion && noSettings) {
    throw new ProviderBugError(`refusing to send an empty or no-op update of add-on ${op.addonName}`, BUG);
  }
  return settings(op);
}

/** Always `preserve`: the add-on's Kubernetes resources stay on the cluster. */
export function deleteAddonInput(op: DeleteAddon): DeleteAddonCommandInput {
  if (op.preserve !== true) {
    throw new ProviderBugError(`refusing to delete add-on ${op.addonName} without preserve`, BUG);
  }
  return { clusterName: op.clusterName, addonName: op.addonName, preserve: true };
}
