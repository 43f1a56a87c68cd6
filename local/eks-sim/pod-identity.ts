/**
 * EKS Pod Identity associations, as far as add-ons make them: CreateAddon/UpdateAddon's
 * `podIdentityAssociations` entries become associations in the add-on's namespace, owned by the add-on
 * (`ownerArn`), and DescribePodIdentityAssociation reads them. Kept per cluster record beside the shared
 * state, so a deleted or reset cluster takes them with it.
 */
import type { ClusterRec } from './model.js';
import { SimError } from './model.js';
import { type Handler, param } from './request.js';
import { CLUSTER_PATH, type Route } from './route.js';
import type { SimState } from './state.js';

interface AssociationRec {
  readonly id: string;
  readonly arn: string;
  readonly clusterName: string;
  readonly namespace: string;
  readonly serviceAccount: string;
  readonly roleArn: string;
  readonly ownerArn: string;
  readonly createdAt: number;
}

/** One entry of an add-on's `podIdentityAssociations` (the model's AddonPodIdentityAssociations). */
export interface AddonAssociation {
  readonly serviceAccount: string;
  readonly roleArn: string;
}

const store = new WeakMap<ClusterRec, Map<string, AssociationRec>>();

function associationsOf(c: ClusterRec): Map<string, AssociationRec> {
  let m = store.get(c);
  if (!m) {
    m = new Map();
    store.set(c, m);
  }
  return m;
}

/** Creates one association per entry, owned by `ownerArn`; returns their ARNs in the entries' order. */
export function createAssociations(
  state: SimState,
  region: string,
  c: ClusterRec,
  owner: { readonly ownerArn: string; readonly namespace: string },
  entries: readonly AddonAssociation[],
): string[] {
  const m = associationsOf(c);
  return entries.map((e) => {
    const id = `a-${state.rng.hex(17)}`;
    const rec: AssociationRec = {
      id,
      arn: `arn:aws:eks:${region}:${c.account}:podidentityassociation/${c.name}/${id}`,
      clusterName: c.name,
      namespace: owner.namespace,
      serviceAccount: e.serviceAccount,
      roleArn: e.roleArn,
      ownerArn: owner.ownerArn,
      createdAt: state.now(),
    };
    m.set(id, rec);
    return rec.arn;
  });
}

/** Removes the associations with these ARNs (an add-on's, when it is updated or deleted). */
export function removeAssociations(c: ClusterRec, arns: readonly string[]): void {
  const m = associationsOf(c);
  for (const [id, a] of m) if (arns.includes(a.arn)) m.delete(id);
}

const seconds = (ms: number) => ms / 1000;

export const describePodIdentityAssociation: Handler = (r) => {
  const c = r.state.cluster(r.region, param(r, 'name'), r.caller.account);
  const id = param(r, 'associationId');
  const a = associationsOf(c).get(id);
  if (!a) {
    // [sim] EKS's wording for a missing association is not documented.
    throw new SimError(404, 'ResourceNotFoundException', `No Pod Identity Association found for id: ${id}`, {
      clusterName: c.name,
    });
  }
  return {
    association: {
      clusterName: a.clusterName,
      namespace: a.namespace,
      serviceAccount: a.serviceAccount,
      roleArn: a.roleArn,
      associationArn: a.arn,
      associationId: a.id,
      tags: {},
      createdAt: seconds(a.createdAt),
      modifiedAt: seconds(a.createdAt),
      ownerArn: a.ownerArn,
      disableSessionTags: false,
    },
  };
};

export const POD_IDENTITY_ROUTES: readonly Route[] = [
  [
    'GET',
    [...CLUSTER_PATH, 'pod-identity-associations', ':associationId'],
    'DescribePodIdentityAssociation',
    describePodIdentityAssociation,
  ],
];
