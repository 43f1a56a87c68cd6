/**
 * The request bodies of the two node group calls that carry a pool's configuration: CreateNodegroup
 * and UpdateNodegroupConfig. Pure: the operation in, the SDK input out; what the planner left empty is
 * not sent, and an update with nothing left to send is refused before EKS sees it.
 */
import {
  AMITypes,
  type CreateNodegroupCommandInput,
  TaintEffect,
  type UpdateNodegroupConfigCommandInput,
  type Taint as WireTaint,
} from '@aws-sdk/client-eks';
import type { ObservedTaint, ScalingConfig } from '../core/observation.js';
import { createdByCloudOrch, POOL_TAG } from '../core/ownership.js';
import type { CreateNodegroup, UpdateNodegroupConfig } from '../core/plan/types.js';
import { ProviderBugError } from './errors.js';

const BUG = 'This is a planner bug: report it with the plan shown in status.';
const AMI_TYPES: readonly string[] = Object.values(AMITypes);
const EFFECTS: readonly string[] = Object.values(TaintEffect);

const isAmiType = (v: string): v is AMITypes => AMI_TYPES.includes(v);
const isEffect = (v: string): v is TaintEffect => EFFECTS.includes(v);

/** Taint effects are EKS's wire names already (NO_SCHEDULE...); anything else is a planner bug. */
function wireTaint(t: ObservedTaint): WireTaint {
  if (!isEffect(t.effect)) {
    throw new ProviderBugError(`refusing to send taint ${t.key} with effect ${t.effect}`, BUG);
  }
  return { key: t.key, ...(t.value !== undefined ? { value: t.value } : {}), effect: t.effect };
}

/**
 * The create body. Refused when the group would not be recognisably CloudOrch's: without both
 * ownership tags the planner would later see it as foreign, and without its pool tag as no pool's.
 */
export function createNodegroupInput(
  op: CreateNodegroup,
  nodeRole: string,
  subnets: readonly string[],
): CreateNodegroupCommandInput {
  if (!createdByCloudOrch(op.tags) || op.tags[POOL_TAG] !== op.pool) {
    throw new ProviderBugError(
      `refusing to create node group ${op.nodegroupName} without the ownership tags and ${POOL_TAG}=${op.pool}`,
      BUG,
    );
  }
  if (!isAmiType(op.amiType)) {
    throw new ProviderBugError(
      `refusing to create node group ${op.nodegroupName}: AMI type ${op.amiType}`,
      BUG,
    );
  }
  return {
    clusterName: op.clusterName,
    nodegroupName: op.nodegroupName,
    version: op.version,
    instanceTypes: [...op.instanceTypes],
    amiType: op.amiType,
    ...(op.diskSize !== undefined ? { diskSize: op.diskSize } : {}),
    capacityType: op.capacityType,
    scalingConfig: { ...op.scaling },
    labels: { ...op.labels },
    taints: op.taints.map(wireTaint),
    ...(op.updateConfig ? { updateConfig: { ...op.updateConfig } } : {}),
    nodeRole,
    subnets: [...subnets],
    tags: { ...op.tags },
    clientRequestToken: op.clientRequestToken,
  };
}

const SCALING_KEYS = ['minSize', 'maxSize', 'desiredSize'] as const;

/** The scaling members given; none when every one of them equals what the group has. */
function scalingToSend(op: UpdateNodegroupConfig): Partial<ScalingConfig> | undefined {
  const given = op.scaling ?? {};
  const keys = SCALING_KEYS.filter((k) => given[k] !== undefined);
  if (keys.every((k) => given[k] === op.from[k])) return undefined;
  return Object.fromEntries(keys.map((k) => [k, given[k]]));
}

function labelsToSend(op: UpdateNodegroupConfig): UpdateNodegroupConfigCommandInput['labels'] {
  const add = op.labels?.addOrUpdateLabels ?? {};
  const remove = op.labels?.removeLabels ?? [];
  if (Object.keys(add).length === 0 && remove.length === 0) return undefined;
  return {
    ...(Object.keys(add).length > 0 ? { addOrUpdateLabels: { ...add } } : {}),
    ...(remove.length > 0 ? { removeLabels: [...remove] } : {}),
  };
}

function taintsToSend(op: UpdateNodegroupConfig): UpdateNodegroupConfigCommandInput['taints'] {
  const add = op.taints?.addOrUpdateTaints ?? [];
  const remove = op.taints?.removeTaints ?? [];
  if (add.length === 0 && remove.length === 0) return undefined;
  return {
    ...(add.length > 0 ? { addOrUpdateTaints: add.map(wireTaint) } : {}),
    ...(remove.length > 0 ? { removeTaints: remove.map(wireTaint) } : {}),
  };
}

/**
 * The update body: every member the operation gives that changes something, in one call (one EKS
 * update). Refused when nothing is left: an empty update is a planner bug, and EKS would reject it.
 */
export function updateNodegroupConfigInput(op: UpdateNodegroupConfig): UpdateNodegroupConfigCommandInput {
  const scalingConfig = scalingToSend(op);
  const labels = labelsToSend(op);
  const taints = taintsToSend(op);
  const { updateConfig } = op;
  if (!scalingConfig && !labels && !taints && !updateConfig) {
    throw new ProviderBugError(
      `refusing to send an empty or no-op node group config update to ${op.nodegroupName}`,
      BUG,
    );
  }
  return {
    clusterName: op.clusterName,
    nodegroupName: op.nodegroupName,
    ...(scalingConfig ? { scalingConfig } : {}),
    ...(labels ? { labels } : {}),
    ...(taints ? { taints } : {}),
    ...(updateConfig ? { updateConfig: { ...updateConfig } } : {}),
    clientRequestToken: op.clientRequestToken,
  };
}
