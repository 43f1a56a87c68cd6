/**
 * `spec.access`: who may reach the cluster through EKS access entries. CloudOrch creates clusters with
 * `bootstrapClusterCreatorAdminPermissions: false` (it needs no Kubernetes access itself) and these
 * entries. Under `exclusive`, entries that are not listed are removed, except those EKS makes itself.
 */
import { ACCESS_POLICY_NAMES } from '../access-policies.js';
import {
  array,
  boolean,
  maxLength,
  object,
  oneOf,
  optional,
  regex,
  rule,
  string,
  withDefault,
} from './build.js';
import type { Output } from './kit.js';
import { LIMITS } from './rules.js';

const policySchema = object(
  {
    name: oneOf(
      ACCESS_POLICY_NAMES,
      (input) =>
        `access policy ${JSON.stringify(input)} is not an EKS access policy (${ACCESS_POLICY_NAMES.join(', ')})`,
    ),
    scope: withDefault(
      oneOf(['cluster', 'namespace'], 'scope must be "cluster" or "namespace"'),
      () => 'cluster' as const,
    ),
    namespaces: optional(
      array(
        string(
          undefined,
          regex(
            LIMITS.access.namespacePattern,
            'namespaces are Kubernetes namespace names, optionally ending in * for a prefix',
          ),
        ),
        'namespaces must be a list',
        maxLength(
          LIMITS.access.maxNamespaces,
          `at most ${LIMITS.access.maxNamespaces} namespaces per access scope (EKS limit)`,
        ),
      ),
    ),
  },
  'an access policy is an object with name, scope and (for scope namespace) namespaces',
  rule((p, add) => {
    if (p.scope === 'namespace' && !p.namespaces?.length)
      add(['namespaces'], 'scope namespace needs at least one namespace');
    if (p.scope === 'cluster' && p.namespaces !== undefined)
      add(['namespaces'], 'namespaces apply only to scope namespace (scope cluster covers every namespace)');
  }),
);

const entrySchema = object(
  {
    principalArn: string(
      'principalArn must be a string',
      regex(
        LIMITS.access.principalPattern,
        'principalArn must be an IAM role or user ARN (arn:aws:iam::<12-digit account>:role/<name>)',
      ),
    ),
    type: withDefault(
      oneOf(LIMITS.access.entryTypes, `type must be one of ${LIMITS.access.entryTypes.join(', ')}`),
      () => 'STANDARD' as const,
    ),
    kubernetesGroups: optional(
      array(
        string(
          undefined,
          regex(LIMITS.access.groupPattern, 'a Kubernetes group is 1-255 characters without spaces'),
        ),
        'kubernetesGroups must be a list of group names',
        maxLength(100, 'at most 100 Kubernetes groups per entry'),
      ),
    ),
    policies: withDefault(
      array(
        policySchema,
        'policies must be a list of access policies',
        maxLength(20, 'at most 20 access policies per entry'),
      ),
      () => [],
    ),
  },
  'an access entry is an object with principalArn and policies',
);

export const accessSchema = object(
  {
    // Absent: at least API_AND_CONFIG_MAP (a cluster already at API stays there; EKS never moves back).
    authenticationMode: optional(
      oneOf(
        LIMITS.access.authenticationModes,
        'authenticationMode must be "API_AND_CONFIG_MAP" or "API" (CloudOrch manages access entries, which CONFIG_MAP lacks)',
      ),
    ),
    exclusive: withDefault(boolean('exclusive must be true or false'), () => false),
    entries: withDefault(
      array(
        entrySchema,
        'entries must be a list of access entries',
        maxLength(
          LIMITS.access.maxEntries,
          `at most ${LIMITS.access.maxEntries} access entries per cluster (EKS quota)`,
        ),
      ),
      () => [],
    ),
  },
  'access must be an object with authenticationMode, exclusive and entries',
);

export type Access = Output<typeof accessSchema>;
export type AccessEntry = Access['entries'][number];
export type AccessPolicy = AccessEntry['policies'][number];

type Add = (path: PropertyKey[], message: string) => void;

/** Rules across entries and within one that the shape cannot say (EKS's own refusals, said first). */
export function checkAccess(access: Access, add: Add): void {
  const seen = new Set<string>();
  for (const [i, e] of access.entries.entries()) {
    const at = (...rest: PropertyKey[]) => ['entries', i, ...rest];
    // IAM names are unique regardless of case: role/Admin and role/admin are one principal.
    const key = e.principalArn.toLowerCase();
    if (seen.has(key))
      add(at('principalArn'), `${e.principalArn} has two entries; EKS allows one per principal`);
    seen.add(key);
    const groups = e.kubernetesGroups ?? [];
    if (new Set(groups).size !== groups.length)
      add(at('kubernetesGroups'), 'a Kubernetes group is listed twice');
    for (const [j, p] of e.policies.entries())
      if (p.namespaces && new Set(p.namespaces).size !== p.namespaces.length)
        add(at('policies', j, 'namespaces'), 'a namespace is listed twice');
    if (e.type !== 'STANDARD' && !/:role\//.test(e.principalArn))
      add(
        at('principalArn'),
        `a ${e.type} entry is for a node role: its principal must be an IAM role (EKS rule)`,
      );
    if (e.type !== 'STANDARD' && (e.policies.length > 0 || e.kubernetesGroups?.length))
      add(
        at('type'),
        `a ${e.type} entry takes no policies or kubernetesGroups (EKS rule); only STANDARD entries do`,
      );
    for (const [j, g] of (e.kubernetesGroups ?? []).entries())
      if (g.startsWith(LIMITS.access.reservedGroupPrefix))
        add(
          at('kubernetesGroups', j),
          `group ${g}: EKS refuses groups starting with "system:"; use an access policy`,
        );
    const policies = new Set<string>();
    for (const [j, p] of e.policies.entries()) {
      if (policies.has(p.name))
        add(at('policies', j, 'name'), `${p.name} is listed twice for ${e.principalArn}`);
      policies.add(p.name);
    }
  }
}
