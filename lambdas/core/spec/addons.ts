/**
 * `spec.addons`: the EKS add-ons CloudOrch manages. Add-ons not listed are left alone; one removed from
 * the list is deleted only if CloudOrch created it, with `preserve` so its Kubernetes resources stay.
 */
import {
  array,
  maxLength,
  minLength,
  object,
  oneOf,
  optional,
  record,
  refine,
  regex,
  rule,
  string,
  unknown,
  withDefault,
} from './build.js';
import type { Output } from './kit.js';
import { roleArnSchema } from './pools.js';
import { LIMITS, RESERVED_OBJECT_KEYS } from './rules.js';

/** `default`: EKS's default for the cluster's minor; `latest`: the newest compatible; else exact. */
export const ADDON_VERSION_KEYWORDS = ['default', 'latest'] as const;

/** An add-on's version; a rollout's change may set it. */
export const addonVersionSchema = string(
  'version must be a string',
  refine(
    (v) => (ADDON_VERSION_KEYWORDS as readonly string[]).includes(v) || LIMITS.addon.versionPattern.test(v),
    (v) =>
      `version ${JSON.stringify(v)} must be "default", "latest" or an exact EKS add-on version like "v1.19.0-eksbuild.1"`,
  ),
);

/** Deeper than any add-on's configuration schema goes; also where a value that contains itself ends. */
const MAX_CONFIGURATION_DEPTH = 64;

/**
 * Whether a value survives JSON as it is: finite numbers, plain objects and arrays, no reserved keys,
 * nested at most MAX_CONFIGURATION_DEPTH levels (a value containing itself never ends).
 */
function jsonIssue(value: unknown, path: string, depth = 0): string | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `${path} is not a finite number`;
  if (depth >= MAX_CONFIGURATION_DEPTH)
    return `${path} is nested deeper than ${MAX_CONFIGURATION_DEPTH} levels (or contains itself)`;
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) {
      const issue = jsonIssue(v, `${path}[${i}]`, depth + 1);
      if (issue) return issue;
    }
    return undefined;
  }
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    for (const [k, v] of Object.entries(value)) {
      if (RESERVED_OBJECT_KEYS.has(k)) return `${path}.${k} is a reserved key`;
      const issue = jsonIssue(v, `${path}.${k}`, depth + 1);
      if (issue) return issue;
    }
    return undefined;
  }
  return `${path} is not a JSON value`;
}

const configurationSchema = record(
  unknown(),
  'configurationValues must be an object (it is sent as JSON)',
  rule((v, add) => {
    const issue = jsonIssue(v, 'configurationValues');
    if (issue) add([], `${issue}: configurationValues must be plain JSON`);
    else if (Buffer.byteLength(JSON.stringify(v)) > LIMITS.addon.maxConfigurationBytes)
      add([], `configurationValues is larger than ${LIMITS.addon.maxConfigurationBytes} bytes as JSON`);
  }),
);

const podIdentitySchema = object(
  {
    serviceAccount: string(
      'serviceAccount must be a string',
      regex(
        /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/,
        'serviceAccount must be a Kubernetes service account name',
      ),
    ),
    roleArn: roleArnSchema('roleArn'),
  },
  'a pod identity association is an object with serviceAccount and roleArn',
);

/** An add-on's name; a rollout's change names add-ons by it. */
export const addonNameSchema = string(
  'name must be a string',
  minLength(1, 'name must not be empty'),
  maxLength(LIMITS.addon.nameMaxLength, `name must be at most ${LIMITS.addon.nameMaxLength} characters`),
  regex(
    LIMITS.addon.namePattern,
    'name must be an EKS add-on name like "vpc-cni" (lower-case letters, digits, - and _)',
  ),
);

export const addonSchema = object(
  {
    name: addonNameSchema,
    version: withDefault(addonVersionSchema, () => 'default'),
    configurationValues: optional(configurationSchema),
    serviceAccountRoleArn: optional(roleArnSchema('serviceAccountRoleArn')),
    podIdentityAssociations: optional(
      array(
        podIdentitySchema,
        'podIdentityAssociations must be a list',
        maxLength(10, 'at most 10 pod identity associations per add-on'),
      ),
    ),
    resolveConflicts: withDefault(
      oneOf(['OVERWRITE', 'PRESERVE'], 'resolveConflicts must be "OVERWRITE" or "PRESERVE"'),
      () => 'OVERWRITE' as const,
    ),
  },
  'an add-on must be an object with a name',
);

export type Addon = Output<typeof addonSchema>;

type Add = (path: PropertyKey[], message: string) => void;

/** Rules across add-ons and within one that the shape cannot say. */
export function checkAddons(addons: readonly Addon[], add: Add): void {
  const seen = new Set<string>();
  for (const [i, a] of addons.entries()) {
    if (seen.has(a.name)) add([i, 'name'], `add-on ${a.name} is listed twice`);
    seen.add(a.name);
    if (a.serviceAccountRoleArn && a.podIdentityAssociations?.length)
      add(
        [i, 'podIdentityAssociations'],
        `add-on ${a.name}: use serviceAccountRoleArn (IRSA) or podIdentityAssociations, not both`,
      );
    const accounts = new Set<string>();
    for (const [j, p] of (a.podIdentityAssociations ?? []).entries()) {
      if (accounts.has(p.serviceAccount))
        add(
          [i, 'podIdentityAssociations', j, 'serviceAccount'],
          `service account ${p.serviceAccount} is listed twice`,
        );
      accounts.add(p.serviceAccount);
    }
  }
}
