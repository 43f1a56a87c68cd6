/** Finds the cluster and access entry an access operation names, with EKS's refusals. */
import { type AccessRec, accessOf, type EntryRec, entryNotFound, modeRefused } from './access-model.js';
import type { ClusterRec } from './model.js';
import { param, type Req } from './request.js';

/** The cluster and its access state, refused while the cluster authenticates through the ConfigMap only. */
export function apiCluster(r: Req): { c: ClusterRec; access: AccessRec } {
  const c = r.state.cluster(r.region, param(r, 'name'), r.caller.account);
  const access = accessOf(r.state, c);
  if (access.mode === 'CONFIG_MAP') throw modeRefused(c);
  return { c, access };
}

/** The entry named by the path's principal ARN. */
export function entryOf(r: Req): { c: ClusterRec; access: AccessRec; e: EntryRec } {
  const { c, access } = apiCluster(r);
  const principalArn = param(r, 'principalArn');
  const e = access.entries.get(principalArn);
  if (!e) throw entryNotFound(c, principalArn);
  return { c, access, e };
}
