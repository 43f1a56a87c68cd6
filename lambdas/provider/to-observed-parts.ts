/**
 * Pure mapping of the cluster's parts (add-ons, add-on versions, access entries, insights) from EKS
 * responses to observation facts, with the same rule as to-observation.ts: a member the observation
 * needs but the response lacks is a {@link MalformedResponseError}; EKS omits empty lists and maps.
 */
import type {
  AccessEntry,
  Addon,
  AddonInfo,
  AssociatedAccessPolicy,
  InsightSummary,
  PodIdentityAssociation,
  AddonIssue as WireAddonIssue,
} from '@aws-sdk/client-eks';
import { addonHealth } from '../core/health.js';
import type {
  AddonIssue,
  AddonVersion,
  InFlightUpdate,
  ObservedAccessEntry,
  ObservedAccessPolicy,
  ObservedAddon,
  ObservedInsight,
  ObservedPodIdentity,
} from '../core/observation.js';
import { MalformedResponseError, required } from './to-observation.js';

function toAddonIssue(i: WireAddonIssue): AddonIssue {
  return {
    code: required(i.code, 'addon.health.issues[].code'),
    // The model makes the message optional; none sent reads as an empty text, the code says what it is.
    message: i.message ?? '',
    resourceIds: i.resourceIds ?? [],
  };
}

export function toObservedPodIdentity(p: PodIdentityAssociation): ObservedPodIdentity {
  return {
    serviceAccount: required(p.serviceAccount, 'podIdentityAssociation.serviceAccount'),
    roleArn: required(p.roleArn, 'podIdentityAssociation.roleArn'),
    associationArn: required(p.associationArn, 'podIdentityAssociation.associationArn'),
  };
}

/** `arn:aws:eks:r:a:podidentityassociation/cluster/a-xyz` -> `a-xyz` (the id DescribePodIdentityAssociation takes). */
export function associationIdOf(arn: string): string {
  const id = arn.split('/').at(-1);
  if (!arn.startsWith('arn:') || !id || !arn.includes('/'))
    throw new MalformedResponseError(`a pod identity association ARN (got ${arn})`);
  return id;
}

export function toObservedAddon(
  a: Addon,
  podIdentityAssociations: readonly ObservedPodIdentity[],
  update?: InFlightUpdate,
): ObservedAddon {
  const status = required(a.status, 'addon.status');
  const issues = (a.health?.issues ?? []).map(toAddonIssue);
  return {
    name: required(a.addonName, 'addon.addonName'),
    arn: required(a.addonArn, 'addon.addonArn'),
    version: required(a.addonVersion, 'addon.addonVersion'),
    status,
    health: addonHealth(status, issues.length),
    issues,
    ...(a.serviceAccountRoleArn ? { serviceAccountRoleArn: a.serviceAccountRoleArn } : {}),
    ...(a.configurationValues !== undefined ? { configurationValues: a.configurationValues } : {}),
    podIdentityAssociations,
    tags: a.tags ?? {},
    ...(update ? { update } : {}),
  };
}

/** The versions of one add-on in a DescribeAddonVersions answer (other add-ons' infos are ignored). */
export function toAddonVersions(infos: readonly AddonInfo[], addonName: string): AddonVersion[] {
  return infos
    .filter((i) => i.addonName === addonName)
    .flatMap((i) => i.addonVersions ?? [])
    .map((v) => ({
      version: required(v.addonVersion, 'addonVersions[].addonVersion'),
      compatibilities: (v.compatibilities ?? []).map((c) => ({
        clusterVersion: required(c.clusterVersion, 'compatibilities[].clusterVersion'),
        // A boolean EKS omits when false.
        defaultVersion: c.defaultVersion === true,
      })),
    }));
}

function toObservedAccessPolicy(p: AssociatedAccessPolicy): ObservedAccessPolicy {
  const scope = required(p.accessScope, 'associatedAccessPolicy.accessScope');
  return {
    policyArn: required(p.policyArn, 'associatedAccessPolicy.policyArn'),
    scope: { type: required(scope.type, 'accessScope.type'), namespaces: scope.namespaces ?? [] },
  };
}

export function toObservedAccessEntry(
  e: AccessEntry,
  policies: readonly AssociatedAccessPolicy[],
): ObservedAccessEntry {
  return {
    principalArn: required(e.principalArn, 'accessEntry.principalArn'),
    arn: required(e.accessEntryArn, 'accessEntry.accessEntryArn'),
    type: required(e.type, 'accessEntry.type'),
    kubernetesGroups: e.kubernetesGroups ?? [],
    ...(e.username ? { username: e.username } : {}),
    tags: e.tags ?? {},
    policies: policies.map(toObservedAccessPolicy),
  };
}

export function toObservedInsight(i: InsightSummary, recommendation?: string): ObservedInsight {
  const reason = i.insightStatus?.reason;
  return {
    id: required(i.id, 'insight.id'),
    name: required(i.name, 'insight.name'),
    ...(i.kubernetesVersion ? { kubernetesVersion: i.kubernetesVersion } : {}),
    status: required(i.insightStatus?.status, 'insight.insightStatus.status'),
    ...(reason ? { reason } : {}),
    ...(i.description ? { description: i.description } : {}),
    ...(recommendation ? { recommendation } : {}),
  };
}
