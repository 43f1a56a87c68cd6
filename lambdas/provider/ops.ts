/**
 * Each planned operation is exactly one EKS call. Create and update calls carry the operation's
 * deterministic `clientRequestToken`. Before sending, the provider refuses what EKS must never receive
 * from CloudOrch: an empty or no-op update, a create without the ownership tag, a create missing its
 * role or subnets. The planner resolves roles and subnets (spec, then deployment defaults); the
 * provider only asserts they are there, never fills them in. Results carry only what the response says.
 */
import {
  type AMITypes,
  CreateClusterCommand,
  CreateNodegroupCommand,
  DeleteClusterCommand,
  DeleteNodegroupCommand,
  type EKSClient,
  TagResourceCommand,
  UntagResourceCommand,
  UpdateClusterVersionCommand,
  UpdateNodegroupConfigCommand,
  UpdateNodegroupVersionCommand,
} from '@aws-sdk/client-eks';
import { DEFAULTS_ENV } from '../config.js';
import { InternalError, PermanentError } from '../core/errors.js';
import { OWNER_TAG } from '../core/ownership.js';
import type { MutatingOperation } from '../core/plan/types.js';
import type { ApplyResult } from '../core/provider.js';
import { required } from './to-observation.js';

/** A refused operation a human fixes (a spec or a deployment default is missing). */
export class ProviderRefusedError extends PermanentError {
  constructor(message: string, remediation: string) {
    super(message, { code: 'ProviderRefused', remediation });
  }
}

/**
 * A refused operation no spec can cause: the planner broke an invariant. Internal leaves a step as
 * PermanentError like Permanent (same retries); status reports it as a bug.
 */
export class ProviderBugError extends InternalError {
  constructor(message: string, remediation: string) {
    super(message, { code: 'ProviderRefused', remediation });
  }
}

/**
 * AMI type from the instance family: Graviton families (a `g` after the generation digit, e.g. m7g,
 * t4g) run ARM64, GPU families (g*, p*) the NVIDIA variant; AL2023 because AL2 ends with 1.32.
 */
export function amiTypeFor(instanceType: string): AMITypes {
  const family = instanceType.split('.')[0] ?? '';
  if (/^[gp]\d/.test(family)) return 'AL2023_x86_64_NVIDIA';
  if (/^[a-z]+\d+[a-z]*g[a-z]*$/.test(family)) return 'AL2023_ARM_64_STANDARD';
  return 'AL2023_x86_64_STANDARD';
}

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
  const out = await client.send(
    new CreateClusterCommand({
      name: op.clusterName,
      version: op.version,
      roleArn,
      resourcesVpcConfig: { subnetIds: [...subnetIds], securityGroupIds: [...securityGroupIds] },
      tags: { ...op.tags },
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
      `cannot create node group ${op.nodegroupName}: ${nodeRole ? 'no subnets' : 'no node role'}`,
      `Set spec.nodeRoleArn and spec.network.subnetIds, or deploy CloudOrch with ${DEFAULTS_ENV.nodeRoleArn} and ${DEFAULTS_ENV.subnetIds}.`,
    );
  }
  const out = await client.send(
    new CreateNodegroupCommand({
      clusterName: op.clusterName,
      nodegroupName: op.nodegroupName,
      version: op.version,
      instanceTypes: [op.instanceType],
      amiType: amiTypeFor(op.instanceType),
      capacityType: op.capacityType,
      scalingConfig: { ...op.scaling },
      nodeRole,
      subnets: [...subnets],
      tags: { ...op.tags },
      clientRequestToken: op.clientRequestToken,
    }),
  );
  const ng = required(out.nodegroup, 'nodegroup');
  return {
    kind: op.kind,
    arn: required(ng.nodegroupArn, 'nodegroup.nodegroupArn'),
    ...(ng.status ? { status: ng.status } : {}),
  };
}

async function updateScaling(client: EKSClient, op: Op<'UpdateNodegroupScaling'>): Promise<ApplyResult> {
  const keys = (['minSize', 'maxSize', 'desiredSize'] as const).filter((k) => op.scaling[k] !== undefined);
  const noOp = keys.every((k) => op.scaling[k] === op.from[k]);
  return sendUpdate(op.kind, 'scaling update', noOp, () =>
    client.send(
      new UpdateNodegroupConfigCommand({
        clusterName: op.clusterName,
        nodegroupName: op.nodegroupName,
        scalingConfig: Object.fromEntries(keys.map((k) => [k, op.scaling[k]])),
        clientRequestToken: op.clientRequestToken,
      }),
    ),
  );
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
  UpdateNodegroupScaling: updateScaling,
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
