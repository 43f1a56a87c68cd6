/**
 * The EKS statements of the `eks:read` and `eks:write` capabilities, and the ARN patterns they name.
 *
 * What IAM can and cannot express here:
 * - EKS reads cannot be tag-scoped: observing an unowned cluster is how CloudOrch finds out that it
 *   must refuse it (or adopt it), so DescribeCluster and friends run on every cluster of the account.
 * - Mutations of existing clusters and node groups require `aws:ResourceTag/cloudorch.io/managed-by`
 *   = cloudorch. Creates have no resource tags yet, so they require the same pair in
 *   `aws:RequestTag` (and an owner tag in the request).
 * - Tagging an owned resource may change any tag except the two ownership tags and the pool tag
 *   (`cloudorch.io/pool`, set only in the CreateNodegroup request); untagging may never remove them.
 *   Claiming an unowned cluster (spec `adopt: true`) may only add the ownership tags, and only where
 *   there is no owner tag yet, so an owner cannot be replaced or forged. IAM cannot
 *   see the spec: whether a claim is wanted (`adopt`) and whether the owner value equals the record
 *   id are enforced by the planner's ownership guard, not by IAM.
 * - A `Retain` deletion leaves the cluster running with its owner tag (which nothing may remove) and
 *   adds `cloudorch.io/released=<record id>`, an ordinary tag. Only a cluster carrying that marker
 *   may have its owner replaced (EksClaimReleased), again with nothing but the two ownership tags.
 *   Which record may claim it is decided by the target claim item, not by IAM.
 * - Add-ons and access entries (`cluster-part` calls: update, delete, policy associations) are
 *   granted without a tag condition: an add-on CloudOrch adopts from the spec, or an entry made by
 *   hand that `access.exclusive` removes, carries no CloudOrch tag, and EKS's own entries have none
 *   either. The planner acts on them only within clusters the record owns, and never on the entries
 *   EKS made (node roles). Creating them needs the ownership tags in the request, like any create.
 * - DescribeAddonVersions names no resource (it reads EKS's catalog), so its statement is `*`.
 * - Node groups CloudOrch did not create (an adopted cluster's own, say) carry no ownership tag, so
 *   IAM refuses to change them, and to delete them unless the stack opts in (`deleteForeignNodegroups`:
 *   EksDeleteForeignNodegroups, apply only). Even then the policy decides whether the plan may.
 */
import { Aws, type Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { EKS_READ_CALLS, type EksGrant, OPERATION_CALLS } from '../../lambdas/config.js';
import {
  ADDON_VERSION_TAG,
  MANAGED_BY_TAG,
  MANAGED_BY_VALUE,
  OWNER_TAG,
  POOL_TAG,
  RELEASED_TAG,
} from '../../lambdas/core/ownership.js';
import { resourceFinding } from './nag.js';

const eks = (call: string) => `eks:${call}`;
/** The calls of every operation kind IAM scopes one way, in the order config.ts lists the kinds. */
const eksActions = (grant: EksGrant) =>
  Object.values(OPERATION_CALLS)
    .filter((o) => o.grant === grant)
    .map((o) => eks(o.call));

export const EKS_READ_ACTIONS = EKS_READ_CALLS.map(eks);
/** Read calls that name no resource (IAM requires `*`): EKS's add-on catalog. */
const EKS_CATALOG_READS: readonly string[] = [eks('DescribeAddonVersions')];
/** Calls on an add-on or access entry of a cluster: no tag condition (see the file comment). */
export const EKS_CLUSTER_PART_ACTIONS = eksActions('cluster-part');
/** Calls on existing resources: allowed only where the resource carries CloudOrch's tag. */
export const EKS_OWNED_RESOURCE_ACTIONS = eksActions('owned');
export const EKS_CREATE_ACTIONS = eksActions('create');
/** Tag changes: never of the ownership tags, except to claim a cluster (the statements below). */
const EKS_TAG_ACTIONS = eksActions('tag');
const TAG_RESOURCE = eks(OPERATION_CALLS.TagResource.call);

interface EksArns {
  readonly clusters: string;
  readonly nodegroups: string;
  /** `addon/<cluster>/<addon>/<uuid>` */
  readonly addons: string;
  /** `access-entry/<cluster>/<role|user>/<account>/<principal name>/<uuid>` */
  readonly accessEntries: string;
  /** `podidentityassociation/<cluster>/<association id>` */
  readonly podIdentities: string;
}

function eksArns(scope: Stack): EksArns {
  // Any region: a spec names its region, and one deployment manages clusters in several.
  const base = `arn:${Aws.PARTITION}:eks:*:${scope.account}`;
  return {
    clusters: `${base}:cluster/*`,
    nodegroups: `${base}:nodegroup/*/*/*`,
    addons: `${base}:addon/*/*/*`,
    accessEntries: `${base}:access-entry/*/*/*/*/*`,
    podIdentities: `${base}:podidentityassociation/*/*`,
  };
}

const tagged = (key: string) => ({ StringEquals: { [key]: MANAGED_BY_VALUE } });
const OWNERSHIP_KEYS = [OWNER_TAG, MANAGED_BY_TAG];
/**
 * Keys no tag change may touch on an owned resource: the ownership tags, and the pool tag, which is
 * set only in the CreateNodegroup request (a group's pool never changes; moving it would hand the
 * group to another pool's plan).
 */
const FIXED_KEYS = [...OWNERSHIP_KEYS, POOL_TAG];

/** `eks:write`: creates, owned-resource changes, cluster parts, tags and claims. */
export function eksWrite(scope: Stack, deleteForeign: boolean): iam.PolicyStatement[] {
  const { clusters, nodegroups, addons, accessEntries } = eksArns(scope);
  // Opt-in: a foreign node group has no tag a condition could require. The policy still decides.
  const foreign = new iam.PolicyStatement({
    sid: 'EksDeleteForeignNodegroups',
    actions: [eks(OPERATION_CALLS.DeleteNodegroup.call)],
    resources: [nodegroups],
  });
  return [
    ...(deleteForeign ? [foreign] : []),
    new iam.PolicyStatement({
      sid: 'EksCreateOnlyOwned',
      actions: [...EKS_CREATE_ACTIONS],
      resources: [clusters],
      conditions: {
        ...tagged(`aws:RequestTag/${MANAGED_BY_TAG}`),
        Null: { [`aws:RequestTag/${OWNER_TAG}`]: 'false' },
      },
    }),
    new iam.PolicyStatement({
      sid: 'EksMutateOwned',
      actions: [...EKS_OWNED_RESOURCE_ACTIONS],
      resources: [clusters, nodegroups],
      conditions: tagged(`aws:ResourceTag/${MANAGED_BY_TAG}`),
    }),
    // Adopted add-ons and entries made by hand carry no CloudOrch tag; the planner changes them only
    // on clusters its record owns (the ownership guard), which IAM cannot see from here.
    new iam.PolicyStatement({
      sid: 'EksClusterParts',
      actions: [...EKS_CLUSTER_PART_ACTIONS],
      resources: [addons, accessEntries],
    }),
    // An add-on the spec adopts has no CloudOrch tag; the planner records the spec's version keyword
    // on it, and nothing else may be tagged there.
    new iam.PolicyStatement({
      sid: 'EksTagAddonVersion',
      actions: [TAG_RESOURCE],
      resources: [addons],
      conditions: { 'ForAllValues:StringEquals': { 'aws:TagKeys': [ADDON_VERSION_TAG] } },
    }),
    new iam.PolicyStatement({
      sid: 'EksTagOwnedNotOwnership',
      actions: EKS_TAG_ACTIONS,
      resources: [clusters, nodegroups, addons, accessEntries],
      conditions: {
        ...tagged(`aws:ResourceTag/${MANAGED_BY_TAG}`),
        'ForAllValues:StringNotEquals': { 'aws:TagKeys': FIXED_KEYS },
      },
    }),
    // A cluster released by a `Retain` deletion keeps its old owner tag (no statement may remove it) and
    // carries the released marker: a new owner may overwrite exactly the two ownership tags.
    new iam.PolicyStatement({
      sid: 'EksClaimReleased',
      actions: [TAG_RESOURCE],
      resources: [clusters],
      conditions: {
        Null: { [`aws:ResourceTag/${RELEASED_TAG}`]: 'false', [`aws:RequestTag/${OWNER_TAG}`]: 'false' },
        ...tagged(`aws:RequestTag/${MANAGED_BY_TAG}`),
        'ForAllValues:StringEquals': { 'aws:TagKeys': OWNERSHIP_KEYS },
      },
    }),
    new iam.PolicyStatement({
      sid: 'EksClaimUnowned',
      actions: [TAG_RESOURCE],
      resources: [clusters],
      conditions: {
        Null: { [`aws:ResourceTag/${OWNER_TAG}`]: 'true', [`aws:RequestTag/${OWNER_TAG}`]: 'false' },
        ...tagged(`aws:RequestTag/${MANAGED_BY_TAG}`),
        'ForAllValues:StringEquals': { 'aws:TagKeys': OWNERSHIP_KEYS },
      },
    }),
  ];
}

/** `eks:read`: every cluster and its parts (see the file comment), and EKS's add-on catalog. */
export function eksRead(scope: Stack): iam.PolicyStatement[] {
  const { clusters, nodegroups, addons, accessEntries, podIdentities } = eksArns(scope);
  return [
    new iam.PolicyStatement({
      sid: 'EksRead',
      actions: EKS_READ_ACTIONS.filter((a) => !EKS_CATALOG_READS.includes(a)),
      resources: [clusters, nodegroups, addons, accessEntries, podIdentities],
    }),
    new iam.PolicyStatement({
      sid: 'EksReadAddonCatalog',
      actions: [...EKS_CATALOG_READS],
      resources: ['*'],
    }),
  ];
}

/**
 * Why the EKS statements name every cluster and node group of the account: cluster names come from
 * records at run time, in any region; reads must see unowned clusters to refuse or adopt them, and
 * writes are narrowed by the ownership-tag conditions above instead of by name.
 */
export const EKS_WILDCARD_REASON =
  'Cluster names and regions come from desired-state records at run time. Reads must see unowned ' +
  'clusters to refuse or adopt them; mutations are limited by CloudOrch ownership-tag conditions, ' +
  'except on add-ons and access entries the spec adopts or removes, which carry no CloudOrch tag. ' +
  'DescribeAddonVersions reads the EKS add-on catalog and names no resource.';

/**
 * cdk-nag finding ids for the EKS resource patterns above, built from the same ARNs the statements
 * hold, so they match whether the stack's account is a token or a concrete account.
 */
export function eksWildcardFindings(scope: Stack): string[] {
  return [...Object.values(eksArns(scope)), '*'].map((arn) =>
    resourceFinding(scope, 'AwsSolutions-IAM5', arn),
  );
}
