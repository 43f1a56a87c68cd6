/** Access policies: EKS's list, and associating them with access entries at cluster or namespace scope. */

import { entryOf } from './access-lookup.js';
import { type AccessScope, associationJson, notStandard } from './access-model.js';
import { ACCESS_POLICIES, isAccessPolicyArn } from './access-policies.js';
import { SimError } from './model.js';
import { type Handler, page, param, stringList } from './request.js';
import { invalidParameter, requireString } from './rules.js';

/** `accessScope`: `cluster` takes no namespaces, `namespace` needs at least one. */
function scopeFrom(v: unknown): AccessScope {
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw invalidParameter('accessScope is required'); // [sim]
  const o = v as Record<string, unknown>;
  const namespaces = stringList(o.namespaces, 'namespaces');
  if (o.type === 'cluster') {
    // [sim] EKS refuses namespaces on a cluster scope.
    if (namespaces.length > 0)
      throw invalidParameter('namespaces can only be specified with an accessScope type of namespace');
    return { type: 'cluster', namespaces: [] };
  }
  if (o.type === 'namespace') {
    // [sim] a namespace scope lists the namespaces it covers.
    if (namespaces.length === 0)
      throw invalidParameter('At least one namespace is required with an accessScope type of namespace');
    return { type: 'namespace', namespaces };
  }
  throw invalidParameter('accessScope type must be one of cluster, namespace'); // [sim]
}

export const listAccessPolicies: Handler = (r) => {
  const { items, nextToken } = page(ACCESS_POLICIES, r.query);
  return { accessPolicies: items.map((p) => ({ ...p })), ...(nextToken ? { nextToken } : {}) };
};

/** Associating a policy again replaces its scope, as EKS does. */
export const associateAccessPolicy: Handler = (r) => {
  const policyArn = requireString(r.body, 'policyArn');
  const scope = scopeFrom(r.body.accessScope);
  const { c, e } = entryOf(r);
  if (!isAccessPolicyArn(policyArn)) {
    throw new SimError(
      404,
      'ResourceNotFoundException',
      `The specified policyArn ${policyArn} could not be found`,
      {
        clusterName: c.name,
      },
    ); // [sim]
  }
  if (e.type !== 'STANDARD') throw notStandard(c);
  const now = r.state.now();
  const prev = e.policies.get(policyArn);
  const a = prev ? { ...prev, scope, modifiedAt: now } : { scope, associatedAt: now, modifiedAt: now };
  e.policies.set(policyArn, a);
  return {
    clusterName: c.name,
    principalArn: e.principalArn,
    associatedAccessPolicy: associationJson(policyArn, a),
  };
};

export const disassociateAccessPolicy: Handler = (r) => {
  const { c, e } = entryOf(r);
  const policyArn = param(r, 'policyArn');
  if (!e.policies.delete(policyArn)) {
    throw new SimError(
      404,
      'ResourceNotFoundException',
      `The policy ${policyArn} is not associated with ${e.principalArn}`,
      {
        clusterName: c.name,
      },
    ); // [sim]
  }
  return {};
};

export const listAssociatedAccessPolicies: Handler = (r) => {
  const { c, e } = entryOf(r);
  const all = [...e.policies].map(([arn, a]) => associationJson(arn, a));
  const { items, nextToken } = page(all, r.query);
  return {
    clusterName: c.name,
    principalArn: e.principalArn,
    associatedAccessPolicies: items,
    ...(nextToken ? { nextToken } : {}),
  };
};
