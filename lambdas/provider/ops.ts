/**
 * Each planned operation is exactly one EKS call. Create and update calls carry the operation's
 * deterministic `clientRequestToken`. Before sending, the provider refuses what EKS must never receive
 * from CloudOrch: an empty or no-op update (an add-on update that changes nothing, an authentication
 * mode that does not move), a create without the ownership tags (a cluster, node group, add-on or
 * access entry; a node group also without its pool tag), a create missing its role or subnets. The
 * planner resolves roles and subnets (spec, then deployment defaults); the provider only asserts they
 * are there, never fills them in. Results carry only what the response says.
 */
import {
  AssociateAccessPolicyCommand,
  CreateAccessEntryCommand,
  CreateAddonCommand,
  CreateClusterCommand,
  CreateNodegroupCommand,
  DeleteAccessEntryCommand,
  DeleteAddonCommand,
  DeleteClusterCommand,
  DeleteNodegroupCommand,
  DisassociateAccessPolicyCommand,
  type EKSClient,
  TagResourceCommand,
  UntagResourceCommand,
  UpdateAccessEntryCommand,
  UpdateAddonCommand,
  UpdateClusterConfigCommand,
  UpdateClusterVersionCommand,
  UpdateNodegroupConfigCommand,
  UpdateNodegroupVersionCommand,
} from '@aws-sdk/client-eks';
import { DEFAULTS_ENV } from '../config.js';
import { OWNER_TAG } from '../core/ownership.js';
import type { MutatingOperation } from '../core/plan/types.js';
import type { ApplyResult } from '../core/provider.js';
import {
  associateAccessPolicyInput,
  authenticationMode,
  createAccessEntryInput,
  updateAccessEntryInput,
  updateClusterConfigInput,
} from './access-requests.js';
import { createAddonInput, deleteAddonInput, updateAddonInput } from './addon-requests.js';
import { ProviderBugError, ProviderRefusedError } from './errors.js';
import { createNodegroupInput, updateNodegroupConfigInput } from './nodegroup-requests.js';
import { required } from './to-observation.js';

export { ProviderBugError, ProviderRefusedError } from './errors.js';

function refuseEmpty(what: string, empty: boolean): void {
  if (empty) {
    throw new ProviderBugError(
      `refusing to send an empty or no-op ${what}`,
      'This is a planner bug: report it with the plan shown in status.',
    );
  }
}

type UpdateOut = { update?: { id?: string | undefined; status?: string | undefined } | undefined };

/** An update call: refused before sending when it changes nothing; the result is the update EKS started. */
async function sendUpdate(
  kind: MutatingOperation['kind'],
  what: string,
  noOp: boolean,
  send: () => Promise<UpdateOut>,
): Promise<ApplyResult> {
  refuseEmpty(what, noOp);
  const u = required((await send()).update, 'update');
  return { kind, updateId: required(u.id, 'update.id'), ...(u.status ? { status: u.status } : {}) };
}

type Op<K extends MutatingOperation['kind']> = Extract<MutatingOperation, { kind: K }>;
type Sender<K extends MutatingOperation['kind']> = (client: EKSClient, op: Op<K>) => Promise<ApplyResult>;

async function createCluster(client: EKSClient, op: Op<'CreateCluster'>): Promise<ApplyResult> {
  const { roleArn, subnetIds, securityGroupIds } = op;
  if (!roleArn || subnetIds.length < 2) {
    throw new ProviderRefusedError(
      `cannot create cluster ${op.clusterName}: ${roleArn ? 'fewer than two subnets' : 'no cluster role'}`,
      `Set spec.clusterRoleArn and spec.network.subnetIds, or ${DEFAULTS_ENV.clusterRoleArn} and ${DEFAULTS_ENV.subnetIds}.`,
    );
  }
  if (!op.tags[OWNER_TAG]) {
    throw new ProviderBugError(
      `refusing to create cluster ${op.clusterName} without the ownership tag ${OWNER_TAG}`,
      'This is a planner bug (every cluster CloudOrch creates carries its ownership tag): report it with the plan shown in status.',
    );
  }
  // EKS requires the creator's admin entry under CONFIG_MAP; CloudOrch never asks for one.
  if (op.accessConfig.authenticationMode === 'CONFIG_MAP') {
    throw new ProviderBugError(
      `refusing to create cluster ${op.clusterName} in CONFIG_MAP mode without the creator's admin entry`,
      'This is a planner bug (CloudOrch creates clusters in an API authentication mode): report it with the plan shown in status.',
    );
  }
  const out = await client.send(
    new CreateClusterCommand({
      name: op.clusterName,
      version: op.version,
      roleArn,
      resourcesVpcConfig: { subnetIds: [...subnetIds], securityGroupIds: [...securityGroupIds] },
      tags: { ...op.tags },
      accessConfig: {
        authenticationMode: authenticationMode(op.accessConfig.authenticationMode),
        bootstrapClusterCreatorAdminPermissions: op.accessConfig.bootstrapClusterCreatorAdminPermissions,
      },
      clientRequestToken: op.clientRequestToken,
    }),
  );
  const c = required(out.cluster, 'cluster');
  return { kind: op.kind, arn: required(c.arn, 'cluster.arn'), ...(c.status ? { status: c.status } : {}) };
}

async function createNodegroup(client: EKSClient, op: Op<'CreateNodegroup'>): Promise<ApplyResult> {
  const { nodeRoleArn: nodeRole, subnetIds: subnets } = op;
  if (!nodeRole || subnets.length === 0) {
    throw new ProviderRefusedError(
      `cannot create node group ${op.nodegroupName} of pool ${op.pool}: ${nodeRole ? 'no subnets' : 'no node role'}`,
      `Set the pool's nodeRoleArn and subnetIds (or spec.network.subnetIds), or deploy CloudOrch with ${DEFAULTS_ENV.nodeRoleArn} and ${DEFAULTS_ENV.subnetIds}.`,
    );
  }
  const out = await client.send(new CreateNodegroupCommand(createNodegroupInput(op, nodeRole, subnets)));
  const ng = required(out.nodegroup, 'nodegroup');
  return {
    kind: op.kind,
    arn: required(ng.nodegroupArn, 'nodegroup.nodegroupArn'),
    ...(ng.status ? { status: ng.status } : {}),
  };
}

/** Every change of one pool's group in one call: EKS runs one update per node group at a time. */
async function updateConfig(client: EKSClient, op: Op<'UpdateNodegroupConfig'>): Promise<ApplyResult> {
  const input = updateNodegroupConfigInput(op);
  return sendUpdate(op.kind, 'node group config update', false, () =>
    client.send(new UpdateNodegroupConfigCommand(input)),
  );
}

async function createAddon(client: EKSClient, op: Op<'CreateAddon'>): Promise<ApplyResult> {
  const a = required((await client.send(new CreateAddonCommand(createAddonInput(op)))).addon, 'addon');
  return {
    kind: op.kind,
    arn: required(a.addonArn, 'addon.addonArn'),
    ...(a.status ? { status: a.status } : {}),
  };
}

async function createAccessEntry(client: EKSClient, op: Op<'CreateAccessEntry'>): Promise<ApplyResult> {
  const out = await client.send(new CreateAccessEntryCommand(createAccessEntryInput(op)));
  const e = required(out.accessEntry, 'accessEntry');
  return { kind: op.kind, arn: required(e.accessEntryArn, 'accessEntry.accessEntryArn') };
}

/** One sender per operation kind: a kind without one fails the type-check. */
const SEND: { readonly [K in MutatingOperation['kind']]: Sender<K> } = {
  CreateCluster: createCluster,
  CreateNodegroup: createNodegroup,
  UpdateClusterVersion: (client, op) =>
    sendUpdate(op.kind, 'cluster version update', op.toVersion === op.fromVersion, () =>
      client.send(
        new UpdateClusterVersionCommand({
          name: op.clusterName,
          version: op.toVersion,
          clientRequestToken: op.clientRequestToken,
        }),
      ),
    ),
  UpdateNodegroupVersion: (client, op) =>
    sendUpdate(op.kind, 'node group version update', op.toVersion === op.fromVersion, () =>
      client.send(
        new UpdateNodegroupVersionCommand({
          clusterName: op.clusterName,
          nodegroupName: op.nodegroupName,
          version: op.toVersion,
          clientRequestToken: op.clientRequestToken,
        }),
      ),
    ),
  UpdateNodegroupConfig: updateConfig,
  TagResource: async (client, op) => {
    refuseEmpty('tag request', Object.keys(op.tags).length === 0);
    await client.send(new TagResourceCommand({ resourceArn: op.resourceArn, tags: { ...op.tags } }));
    return { kind: op.kind };
  },
  UntagResource: async (client, op) => {
    refuseEmpty('untag request', op.tagKeys.length === 0);
    await client.send(new UntagResourceCommand({ resourceArn: op.resourceArn, tagKeys: [...op.tagKeys] }));
    return { kind: op.kind };
  },
  DeleteNodegroup: async (client, op) => {
    const out = await client.send(
      new DeleteNodegroupCommand({ clusterName: op.clusterName, nodegroupName: op.nodegroupName }),
    );
    const status = out.nodegroup?.status;
    return { kind: op.kind, ...(status ? { status } : {}) };
  },
  DeleteCluster: async (client, op) => {
    const out = await client.send(new DeleteClusterCommand({ name: op.clusterName }));
    const status = out.cluster?.status;
    return { kind: op.kind, ...(status ? { status } : {}) };
  },
  CreateAddon: createAddon,
  UpdateAddon: (client, op) => {
    const input = updateAddonInput(op);
    return sendUpdate(op.kind, 'add-on update', false, () => client.send(new UpdateAddonCommand(input)));
  },
  DeleteAddon: async (client, op) => {
    const out = await client.send(new DeleteAddonCommand(deleteAddonInput(op)));
    const status = out.addon?.status;
    return { kind: op.kind, ...(status ? { status } : {}) };
  },
  UpdateClusterConfig: (client, op) => {
    const input = updateClusterConfigInput(op);
    return sendUpdate(op.kind, 'cluster config update', false, () =>
      client.send(new UpdateClusterConfigCommand(input)),
    );
  },
  CreateAccessEntry: createAccessEntry,
  UpdateAccessEntry: async (client, op) => {
    const out = await client.send(new UpdateAccessEntryCommand(updateAccessEntryInput(op)));
    const arn = out.accessEntry?.accessEntryArn;
    return { kind: op.kind, ...(arn ? { arn } : {}) };
  },
  DeleteAccessEntry: async (client, op) => {
    await client.send(
      new DeleteAccessEntryCommand({ clusterName: op.clusterName, principalArn: op.principalArn }),
    );
    return { kind: op.kind };
  },
  AssociateAccessPolicy: async (client, op) => {
    await client.send(new AssociateAccessPolicyCommand(associateAccessPolicyInput(op)));
    return { kind: op.kind };
  },
  DisassociateAccessPolicy: async (client, op) => {
    await client.send(
      new DisassociateAccessPolicyCommand({
        clusterName: op.clusterName,
        principalArn: op.principalArn,
        policyArn: op.policyArn,
      }),
    );
    return { kind: op.kind };
  },
};

/** Sends the one EKS call for `op`. Errors propagate unclassified; the provider classifies them. */
export async function applyOperation(client: EKSClient, op: MutatingOperation): Promise<ApplyResult> {
  // Operations arrive as JSON from the state machine: a kind the types rule out can still come.
  const send = Object.hasOwn(SEND, op.kind) ? (SEND[op.kind] as Sender<typeof op.kind>) : undefined;
  if (!send) {
    throw new ProviderBugError(
      `the EKS provider does not implement operation ${String(op.kind)}`,
      'This is a CloudOrch bug (the planner produced an operation the provider cannot apply): report it with the execution history.',
    );
  }
  return send(client, op);
}
