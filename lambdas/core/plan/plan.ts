/**
 * `plan(desired, observed) -> Operation[]`: the impossible differences, then the operations in the
 * order they will run. The first entry that is not `Impossible` is what the next step does; the rest
 * is a preview computed by projecting each operation's result. A `Wait` ends the list: nothing is
 * planned past work EKS has not finished.
 */
import { accessPolicyName } from '../access-policies.js';
import { InternalError } from '../errors.js';
import type { Observation, ObservedTaint } from '../observation.js';
import { project } from './project.js';
import { nextStep } from './step.js';
import {
  type Desired,
  isMutating,
  type MutatingOperation,
  type Operation,
  type PlanDefaults,
  type UpdateNodegroupConfig,
  type Wait,
} from './types.js';

/** More steps than any real plan needs (version steps are bounded by the catalog's versions). */
const MAX_STEPS = 64;

export function plan(d: Desired, o: Observation, defaults: PlanDefaults = {}): Operation[] {
  const first = nextStep(d, o, defaults);
  const ops: Operation[] = [...first.impossible];
  let step = first;
  let cur = o;
  for (let i = 0; step.next; i++) {
    if (i >= MAX_STEPS)
      throw new InternalError(`planner exceeded ${MAX_STEPS} steps for ${d.id}: this is a bug`);
    const next = step.next;
    ops.push(...(step.warnings ?? []), next);
    if (next.kind === 'Wait') break;
    cur = project(cur, next);
    step = nextStep(d, cur, defaults);
  }
  // A later step the gate would hold is said, not silently dropped (the first step's holds are above).
  const heldNow = first.impossible.some((i) => i.upgradeBlocked);
  const held =
    step !== first && !heldNow ? step.impossible.find((i) => i.upgradeBlocked)?.upgradeBlocked : undefined;
  if (held) ops.push({ kind: 'UpgradeHeld', gate: held });
  return ops;
}

/** What the next step should do: one mutating operation, a wait, or nothing. */
export function firstAction(ops: readonly Operation[]): MutatingOperation | Wait | undefined {
  return ops.find((op): op is MutatingOperation | Wait => op.kind === 'Wait' || isMutating(op));
}

const ADDON_UPDATE_REASON = {
  incompatible: "its version does not run on the cluster's minor",
  version: 'the spec asks for another version',
  settings: 'settings',
} as const;

const DELETION_REASON = {
  replaced: 'replaced in pool',
  'pool-removed': 'its pool left the spec',
  foreign: 'not created by CloudOrch',
  'cluster-deletion': 'cluster deletion',
} as const;

/** What one UpdateNodegroupConfig changes, member by member. */
function configChanges(op: UpdateNodegroupConfig): string[] {
  const out: string[] = [];
  if (op.scaling) out.push(`scaling ${JSON.stringify(op.from)} -> ${JSON.stringify(op.scaling)}`);
  if (op.labels) {
    const set = Object.entries(op.labels.addOrUpdateLabels).map(([k, v]) => `${k}=${v}`);
    out.push(`labels +[${set.join(', ')}] -[${op.labels.removeLabels.join(', ')}]`);
  }
  if (op.taints) {
    const t = (xs: readonly ObservedTaint[]) =>
      xs.map((x) => `${x.key}${x.value ? `=${x.value}` : ''}:${x.effect}`).join(', ');
    out.push(`taints +[${t(op.taints.addOrUpdateTaints)}] -[${t(op.taints.removeTaints)}]`);
  }
  if (op.updateConfig) out.push(`updateConfig ${JSON.stringify(op.updateConfig)}`);
  return out;
}

/** A one-line description of an operation for status, CLI and logs. */
export function describeOperation(op: Operation): string {
  switch (op.kind) {
    case 'CreateCluster':
      return `create cluster ${op.clusterName} (${op.version}) in ${op.region}`;
    case 'CreateNodegroup':
      return `create node group ${op.nodegroupName} for pool ${op.pool} (${op.instanceTypes.join(', ')}, ${op.capacityType}, ${op.scaling.desiredSize} nodes, ${op.version})`;
    case 'UpdateClusterVersion':
      return `upgrade control plane ${op.fromVersion} -> ${op.toVersion}`;
    case 'UpdateNodegroupVersion':
      return `upgrade node group ${op.nodegroupName} (pool ${op.pool}) ${op.fromVersion} -> ${op.toVersion}`;
    case 'UpdateNodegroupConfig':
      return `configure node group ${op.nodegroupName} (pool ${op.pool}): ${configChanges(op).join('; ')}`;
    case 'TagResource':
      return `tag ${op.resourceArn} with ${Object.keys(op.tags).join(', ')}`;
    case 'UntagResource':
      return `untag ${op.resourceArn}: ${op.tagKeys.join(', ')}`;
    case 'DeleteNodegroup':
      return `delete node group ${op.nodegroupName} (${DELETION_REASON[op.reason]}${op.pool && op.reason !== 'pool-removed' ? ` ${op.pool}` : ''})`;
    case 'DeleteCluster':
      return `delete cluster ${op.clusterName}`;
    case 'CreateAddon':
      return `create add-on ${op.addonName} ${op.addonVersion}`;
    case 'UpdateAddon':
      return `update add-on ${op.addonName} ${op.fromVersion} -> ${op.addonVersion} (${ADDON_UPDATE_REASON[op.reason]})`;
    case 'DeleteAddon':
      return `delete add-on ${op.addonName} (it left the spec; preserve keeps its Kubernetes resources)`;
    case 'UpdateClusterConfig':
      return `change authentication mode ${op.fromMode} -> ${op.authenticationMode}`;
    case 'CreateAccessEntry':
      return `create access entry ${op.principalArn} (${op.type}${op.kubernetesGroups.length ? `, groups ${op.kubernetesGroups.join(', ')}` : ''})`;
    case 'UpdateAccessEntry':
      return `set the groups of access entry ${op.principalArn} to [${op.kubernetesGroups.join(', ')}]`;
    case 'DeleteAccessEntry':
      return `delete access entry ${op.principalArn} (${op.reason === 'removed' ? 'it left the spec' : 'not in the spec; access is exclusive'})`;
    case 'AssociateAccessPolicy':
      return `associate ${accessPolicyName(op.policyArn)} with ${op.principalArn} (${op.accessScope.type === 'cluster' ? 'cluster' : `namespaces ${op.accessScope.namespaces.join(', ')}`})`;
    case 'DisassociateAccessPolicy':
      return `disassociate ${accessPolicyName(op.policyArn)} from ${op.principalArn}`;
    case 'UpgradeHeld':
      return `then: the upgrade to ${op.gate.toVersion} waits for the readiness gate (${op.gate.missing ?? op.gate.insights.map((i) => `${i.name}: ${i.status}`).join('; ')}); EKS reports insights about each next minor after the step before`;
    case 'UpgradeWarning':
      return `warning: stepping to ${op.gate.toVersion} although the readiness gate would hold it (${op.gate.missing ?? op.gate.insights.map((i) => `${i.name}: ${i.status}`).join('; ')}); spec.upgrade.readiness is warn`;
    case 'Wait':
      return `wait for ${op.resource}: ${op.reason}`;
    case 'Impossible':
      return `cannot converge ${op.field}: ${op.reason}`;
  }
}
