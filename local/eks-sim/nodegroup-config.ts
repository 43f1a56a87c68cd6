/**
 * A node group's Kubernetes-facing configuration, as CreateNodegroup and UpdateNodegroupConfig take
 * it: labels, taints, updateConfig, AMI type, capacity type and disk size. Enums come from the EKS
 * model the SDK ships; lengths from the model's shapes (labelKey, labelValue, taintValue,
 * NonZeroInteger, PercentCapacity) and the User Guide's taint rules.
 */
import { AMITypes, CapacityTypes, TaintEffect } from '@aws-sdk/client-eks';
import type { SimError, Taint, UpdateConfig } from './model.js';
import { optionalString, stringList } from './request.js';
import { invalidParameter } from './rules.js';

/** User Guide, "Node taints on managed node groups": at most 50 taints per node group. */
export const MAX_TAINTS = 50;
/** The model's labelKey and labelValue: 1-63 characters. */
const LABEL_MAX = 63;
/** The model's NodegroupUpdateConfig: maxUnavailable "The maximum number is 100"; the percentage 1-100. */
const MAX_UNAVAILABLE = 100;
export const DEFAULT_UPDATE_CONFIG: UpdateConfig = { maxUnavailable: 1 };

const RESERVED_LABEL_PREFIXES = ['kubernetes.io/', 'k8s.io/', 'eks.amazonaws.com/'];
const EFFECTS: readonly string[] = Object.values(TaintEffect);
const AMI_TYPES: readonly string[] = Object.values(AMITypes);
const CAPACITY: readonly string[] = Object.values(CapacityTypes);
/** User Guide: begins with a letter or number; letters, numbers, hyphens, periods, underscores; 63 max. */
const TAINT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
/** "Optionally, the taint key can begin with a DNS subdomain prefix and a single /" (then 253 max). */
const DNS_SUBDOMAIN = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;

type Extra = SimError['extra'];

export function labelsFrom(v: unknown, key: string, extra: Extra): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw invalidParameter(`${key} must be a map`, extra); // [sim]
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) {
    if (RESERVED_LABEL_PREFIXES.some((p) => k.includes(p))) {
      // [real] eksctl-io/eksctl#4007, kubernetes/cloud-provider-aws#242.
      throw invalidParameter(
        `Label cannot contain reserved prefixes [${RESERVED_LABEL_PREFIXES.join(', ')}]`,
        extra,
      );
    }
    if (k.length < 1 || k.length > LABEL_MAX) {
      throw invalidParameter(`Label key ${k} must be 1-${LABEL_MAX} characters`, extra); // [sim] text; limit from the model
    }
    if (typeof val !== 'string' || val.length < 1 || val.length > LABEL_MAX) {
      throw invalidParameter(`Label value for ${k} must be 1-${LABEL_MAX} characters`, extra); // [sim] text; limit from the model
    }
    out[k] = val;
  }
  return out;
}

function checkTaintKey(key: unknown, extra: Extra): string {
  if (typeof key !== 'string' || key.length === 0) throw invalidParameter('Taint key is required', extra); // [sim]
  const slash = key.lastIndexOf('/');
  const name = slash < 0 ? key : key.slice(slash + 1);
  const prefixOk = slash < 0 || (key.length <= 253 && DNS_SUBDOMAIN.test(key.slice(0, slash)));
  if (!TAINT_NAME.test(name) || !prefixOk) {
    // [sim] text; the rule is the User Guide's.
    throw invalidParameter(
      `Invalid taint key: ${key}. A key is up to 63 letters, numbers, '-', '.' or '_' starting with a letter or number, optionally after a DNS subdomain prefix and '/'`,
      extra,
    );
  }
  return key;
}

function taintFrom(v: unknown, extra: Extra): Taint {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw invalidParameter('A taint must be an object with key, value and effect', extra); // [sim]
  }
  const o = v as Record<string, unknown>;
  const key = checkTaintKey(o.key, extra);
  const value = o.value;
  if (value !== undefined && value !== null) {
    // The model's taintValue is 0-63 characters; the User Guide gives the same characters as the key's name.
    if (typeof value !== 'string' || (value.length > 0 && !TAINT_NAME.test(value))) {
      throw invalidParameter(`Invalid taint value for key ${key}`, extra); // [sim]
    }
  }
  const effect = o.effect;
  if (typeof effect !== 'string' || !EFFECTS.includes(effect)) {
    // [real] awsdocs/amazon-eks-user-guide#617, aws-controllers-k8s/community#2047.
    throw invalidParameter(
      `Invalid taint effect: ${String(effect)}, must be one of these [NO_SCHEDULE, NO_EXECUTE, PREFER_NO_SCHEDULE]`,
      extra,
    );
  }
  return typeof value === 'string' ? { key, value, effect } : { key, effect };
}

/** Key and effect identify a taint, as in Kubernetes (and as the Terraform provider diffs them). */
export const sameTaint = (a: Taint, b: Taint) => a.key === b.key && a.effect === b.effect;

/** A list of taints: each valid, none listed twice (key and effect), at most {@link MAX_TAINTS}. */
export function taintsFrom(v: unknown, key: string, extra: Extra): Taint[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw invalidParameter(`${key} must be a list of taints`, extra); // [sim]
  const out: Taint[] = [];
  for (const raw of v) {
    const t = taintFrom(raw, extra);
    if (out.some((o) => sameTaint(o, t))) {
      throw invalidParameter(`Taint ${t.key}:${t.effect} is listed more than once`, extra); // [sim]
    }
    out.push(t);
  }
  checkTaintCount(out, extra);
  return out;
}

export function checkTaintCount(taints: readonly Taint[], extra: Extra): void {
  if (taints.length > MAX_TAINTS) {
    // [sim] text and error code; the limit is the User Guide's.
    throw invalidParameter(`A node group can have at most ${MAX_TAINTS} taints, got ${taints.length}`, extra);
  }
}

/** UpdateTaintsPayload: what to add or update and what to remove (matched on key and effect). */
export function taintChanges(v: unknown, extra: Extra): { add: Taint[]; remove: Taint[] } {
  if (v === undefined || v === null) return { add: [], remove: [] };
  if (typeof v !== 'object' || Array.isArray(v)) throw invalidParameter('taints must be an object', extra); // [sim]
  const o = v as Record<string, unknown>;
  const add = taintsFrom(o.addOrUpdateTaints, 'addOrUpdateTaints', extra);
  const remove = taintsFrom(o.removeTaints, 'removeTaints', extra);
  const both = add.find((a) => remove.some((r) => sameTaint(a, r)));
  if (both) {
    throw invalidParameter(`Taint ${both.key}:${both.effect} is both added and removed`, extra); // [sim]
  }
  return { add, remove };
}

/** The taints after an update: additions replace a taint with the same key and effect. */
export function applyTaints(current: readonly Taint[], c: { add: Taint[]; remove: Taint[] }): Taint[] {
  const kept = current.filter(
    (t) => !c.add.some((a) => sameTaint(a, t)) && !c.remove.some((r) => sameTaint(r, t)),
  );
  return [...kept, ...c.add];
}

/** UpdateLabelsPayload: labels to add or update and keys to remove. */
export function labelChanges(v: unknown, extra: Extra): { add: Record<string, string>; remove: string[] } {
  if (v === undefined || v === null) return { add: {}, remove: [] };
  if (typeof v !== 'object' || Array.isArray(v)) throw invalidParameter('labels must be an object', extra); // [sim]
  const o = v as Record<string, unknown>;
  return {
    add: labelsFrom(o.addOrUpdateLabels, 'addOrUpdateLabels', extra),
    remove: stringList(o.removeLabels, 'removeLabels'),
  };
}

const inRange = (n: unknown, max: number): n is number =>
  typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= max;

/**
 * NodegroupUpdateConfig: exactly one of maxUnavailable (1-100, and at most the group's maxSize) and
 * maxUnavailablePercentage (1-100). updateStrategy is not implemented.
 */
export function updateConfigFrom(v: unknown, maxSize: number, extra: Extra): UpdateConfig {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw invalidParameter('updateConfig must be an object', extra); // [sim]
  }
  const o = v as Record<string, unknown>;
  if ('updateStrategy' in o) throw invalidParameter('The simulator does not implement updateStrategy', extra); // [sim]
  const n = o.maxUnavailable;
  const pct = o.maxUnavailablePercentage;
  if ((n === undefined) === (pct === undefined)) {
    // [sim] the model: "This value or maxUnavailable is required to have a value"; both at once is refused too.
    throw invalidParameter(
      'Exactly one of maxUnavailable and maxUnavailablePercentage must be specified',
      extra,
    );
  }
  if (n !== undefined) {
    if (!inRange(n, Math.min(maxSize, MAX_UNAVAILABLE))) {
      // [real] hashicorp/terraform-provider-aws#26535 (for a value above maxSize; the 100 cap is the model's).
      throw invalidParameter(
        'max-unavailable must be within the range 1 and max size of the node group',
        extra,
      );
    }
    return { maxUnavailable: n };
  }
  if (!inRange(pct, 100)) {
    throw invalidParameter('max-unavailable-percentage must be within the range 1 and 100', extra); // [sim] modelled on the above
  }
  return { maxUnavailablePercentage: pct };
}

export const sameUpdateConfig = (a: UpdateConfig, b: UpdateConfig) => JSON.stringify(a) === JSON.stringify(b);

/** The AMI type (model enum). CUSTOM needs a launch template, which the simulator does not implement. */
export function amiTypeFrom(body: Readonly<Record<string, unknown>>, extra: Extra): string {
  const ami = optionalString(body, 'amiType');
  if (ami === undefined) return 'AL2023_x86_64_STANDARD'; // [sim] the model documents no default; AL2023 is EKS's current one
  if (!AMI_TYPES.includes(ami)) throw invalidParameter(`Invalid amiType: ${ami}`, extra); // [sim]
  if (ami === 'CUSTOM') throw invalidParameter('The simulator does not implement launch templates', extra); // [sim]
  return ami;
}

export function capacityTypeFrom(body: Readonly<Record<string, unknown>>, extra: Extra): string {
  const capacityType = optionalString(body, 'capacityType') ?? 'ON_DEMAND';
  if (!CAPACITY.includes(capacityType))
    throw invalidParameter(`Invalid capacityType: ${capacityType}`, extra); // [sim]
  return capacityType;
}

/** Model docs: "The default disk size is 20 GiB for Linux and Bottlerocket. The default disk size is 50 GiB for Windows." */
export function diskSizeFrom(v: unknown, amiType: string, extra: Extra): number {
  if (v === undefined || v === null) return amiType.startsWith('WINDOWS_') ? 50 : 20;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) {
    throw invalidParameter('diskSize must be a positive number of GiB', extra); // [sim] the model's BoxedInteger has no range
  }
  return v;
}
