/** Access entries (create, describe, list, update, delete) and the routes of every access operation. */
import {
  associateAccessPolicy,
  disassociateAccessPolicy,
  listAccessPolicies,
  listAssociatedAccessPolicies,
} from './access-associations.js';
import { updateClusterConfig } from './access-config.js';
import { apiCluster, entryOf } from './access-lookup.js';
import { addEntry, ENTRY_TYPES, entryInUse, entryJson, notStandard } from './access-model.js';
import {
  fingerprint,
  type Handler,
  optionalString,
  page,
  stringList,
  stringMap,
  tokenKey,
} from './request.js';
import { CLUSTER_PATH, type Route } from './route.js';
import { checkTags, invalidParameter, requireString } from './rules.js';

const PRINCIPAL = /^arn:aws:iam::\d{12}:(role|user)\/.+$/;

function checkPrincipal(arn: string): void {
  // [sim] EKS accepts IAM roles and users; the exact text is not documented.
  if (!PRINCIPAL.test(arn))
    throw invalidParameter(`The principalArn ${arn} is not a valid IAM role or user ARN`);
}

/** Groups and usernames are the caller's only on STANDARD entries; EKS sets them for the others. */
function checkTypeMembers(type: string, groups: string[], username: string | undefined): void {
  if (!(ENTRY_TYPES as readonly string[]).includes(type)) {
    throw invalidParameter(`type must be one of ${ENTRY_TYPES.join(', ')}`); // [sim]
  }
  if (type !== 'STANDARD' && (groups.length > 0 || username !== undefined)) {
    // [sim] EKS refuses kubernetesGroups and username on non-STANDARD entries.
    throw invalidParameter(`kubernetesGroups and username can only be set on entries of type STANDARD`);
  }
}

const createAccessEntry: Handler = (r) => {
  const { state, body: b } = r;
  const principalArn = requireString(b, 'principalArn');
  checkPrincipal(principalArn);
  const type = optionalString(b, 'type') ?? 'STANDARD';
  const kubernetesGroups = stringList(b.kubernetesGroups, 'kubernetesGroups');
  const username = optionalString(b, 'username');
  checkTypeMembers(type, kubernetesGroups, username);
  const tags = stringMap(b.tags, 'tags');
  checkTags(tags);
  const target = `${r.params.name}/${principalArn}`;
  return state.idempotent(tokenKey(r, 'CreateAccessEntry', target), fingerprint(r), () => {
    const { c, access } = apiCluster(r);
    if (access.entries.has(principalArn)) throw entryInUse(c);
    const e = addEntry(state, c, { principalArn, type, username, kubernetesGroups, tags });
    return { accessEntry: entryJson(c, e) };
  });
};

const describeAccessEntry: Handler = (r) => {
  const { c, e } = entryOf(r);
  return { accessEntry: entryJson(c, e) };
};

const listAccessEntries: Handler = (r) => {
  const { access } = apiCluster(r);
  const policy = r.query.get('associatedPolicyArn');
  const arns = [...access.entries.values()]
    .filter((e) => policy === null || e.policies.has(policy))
    .map((e) => e.principalArn);
  const { items, nextToken } = page(arns, r.query);
  return { accessEntries: items, ...(nextToken ? { nextToken } : {}) };
};

const updateAccessEntry: Handler = (r) => {
  const { state, body: b } = r;
  const groups =
    b.kubernetesGroups === undefined ? undefined : stringList(b.kubernetesGroups, 'kubernetesGroups');
  const username = optionalString(b, 'username');
  const target = `${r.params.name}/${r.params.principalArn}`;
  return state.idempotent(tokenKey(r, 'UpdateAccessEntry', target), fingerprint(r), () => {
    const { c, e } = entryOf(r);
    if (e.type !== 'STANDARD') throw notStandard(c);
    if (groups !== undefined) e.kubernetesGroups = groups;
    if (username !== undefined) e.username = username;
    e.modifiedAt = state.now();
    return { accessEntry: entryJson(c, e) };
  });
};

const deleteAccessEntry: Handler = (r) => {
  const { access, e } = entryOf(r);
  access.entries.delete(e.principalArn);
  return {};
};

const C = CLUSTER_PATH;
const ENTRIES = [...C, 'access-entries'] as const;
const ENTRY = [...ENTRIES, ':principalArn'] as const;
const POLICIES = [...ENTRY, 'access-policies'] as const;

export const ACCESS_ROUTES: readonly Route[] = [
  ['POST', [...C, 'update-config'], 'UpdateClusterConfig', updateClusterConfig],
  ['POST', ENTRIES, 'CreateAccessEntry', createAccessEntry],
  ['GET', ENTRIES, 'ListAccessEntries', listAccessEntries],
  ['GET', ENTRY, 'DescribeAccessEntry', describeAccessEntry],
  ['POST', ENTRY, 'UpdateAccessEntry', updateAccessEntry],
  ['DELETE', ENTRY, 'DeleteAccessEntry', deleteAccessEntry],
  ['GET', ['access-policies'], 'ListAccessPolicies', listAccessPolicies],
  ['POST', POLICIES, 'AssociateAccessPolicy', associateAccessPolicy],
  ['GET', POLICIES, 'ListAssociatedAccessPolicies', listAssociatedAccessPolicies],
  ['DELETE', [...POLICIES, ':policyArn'], 'DisassociateAccessPolicy', disassociateAccessPolicy],
];
