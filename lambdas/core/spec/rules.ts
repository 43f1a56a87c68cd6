import { AWS_TAG_PREFIX } from '../ownership.js';

/** Limits the spec enforces, each with where it comes from (EKS model docs and service quotas). */
export const LIMITS = {
  /** EKS cluster names: 1-100 characters, start alphanumeric, then alphanumerics, hyphens, underscores. */
  clusterName: { pattern: /^[0-9A-Za-z][A-Za-z0-9_-]*$/, maxLength: 100 },
  /** Default quota "nodes per managed node group". */
  maxNodes: 450,
  /**
   * EKS tags: at most 50; keys 1-128 and values 0-256 Unicode characters (code points, not UTF-16
   * units) of letters, digits, space separators and `_ . : / = + - @`: the TagKey/TagValue pattern
   * of the AWS API models and the EKS user guide's tag restrictions.
   */
  tags: {
    maxCount: 50,
    maxKeyLength: 128,
    maxValueLength: 256,
    pattern: /^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$/u,
  },
  /** Prefixes nobody may set: `aws:` is reserved by AWS, `cloudorch.io/` marks ownership. */
  reservedTagPrefixes: [AWS_TAG_PREFIX, 'cloudorch.io/'],
  subnets: { min: 2, max: 16, pattern: /^subnet-[0-9a-f]{8,17}$/ },
  securityGroups: { max: 5, pattern: /^sg-[0-9a-f]{8,17}$/ },
  roleArn: /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/,
  /** An AWS account id: 12 digits. */
  accountId: /^\d{12}$/,
  /** Node pools (`spec.nodeGroups`): the default quota of 30 managed node groups per cluster, EKS's rules for their parts. */
  pool: {
    /**
     * One under the default quota "managed node groups per cluster" (30): a replacement runs beside
     * the group it replaces, so one slot stays free for it.
     */
    maxPools: 29,
    /** The default quota "managed node groups per cluster". */
    nodegroupQuota: 30,
    /**
     * The derived node group name (`cloudorch-<pool>-<type>-<od|spot>-<hash>`) must fit EKS's 63
     * characters: 24 leaves room for the longest allowed instance type, with spare.
     */
    nameMaxLength: 24,
    namePattern: /^[0-9A-Za-z][A-Za-z0-9_-]*$/,
    /** Several instance types are a spot diversification list; EKS takes up to 20 (our allow-list is shorter). */
    maxInstanceTypes: 20,
    /** User Guide, "Node taints on managed node groups": at most 50 taints per node group. */
    maxTaints: 50,
    /** Kubernetes allows more; 50 keeps a node group's labels readable and within EKS's request size. */
    maxLabels: 50,
    /**
     * EKS refuses node group label keys containing these ("Label cannot contain reserved prefixes"):
     * the kubelet may not set them on itself (NodeRestriction), so nodes would never join.
     */
    reservedLabelPrefixes: ['kubernetes.io/', 'k8s.io/', 'eks.amazonaws.com/'],
    taintEffects: ['NO_SCHEDULE', 'NO_EXECUTE', 'PREFER_NO_SCHEDULE'],
    /**
     * The EKS model's AMITypes that need nothing beyond a managed node group: CUSTOM needs a launch
     * template and Windows needs cluster-side configuration, neither of which CloudOrch manages.
     */
    amiTypes: [
      'AL2023_x86_64_STANDARD',
      'AL2023_ARM_64_STANDARD',
      'AL2023_x86_64_NVIDIA',
      'AL2023_x86_64_NEURON',
      'BOTTLEROCKET_x86_64',
      'BOTTLEROCKET_ARM_64',
      'BOTTLEROCKET_x86_64_NVIDIA',
      'BOTTLEROCKET_ARM_64_NVIDIA',
    ],
    /** GiB: the AL2023 and Bottlerocket AMIs' own snapshots are 20 (a smaller volume cannot launch); gp3 ends at 16384. */
    diskSize: { min: 20, max: 16384 },
  },
  /** EKS add-ons (`spec.addons`). */
  addon: {
    /** EKS add-on names: lower-case letters, digits, hyphens and underscores (marketplace add-ons use `_`). */
    namePattern: /^[0-9a-z][0-9a-z_-]*$/,
    nameMaxLength: 100,
    /** The form of EKS add-on versions (`aws eks describe-addon-versions`). */
    versionPattern: /^v\d+\.\d+\.\d+-eksbuild\.\d+$/,
    /** More than any cluster runs; keeps one observation's calls bounded. */
    maxAddons: 20,
    /** configurationValues as JSON text: EKS's request size keeps it well under this. */
    maxConfigurationBytes: 16_384,
    /** The add-ons a production cluster must manage (policy `core-addons`): the EKS networking trio. */
    core: ['vpc-cni', 'coredns', 'kube-proxy'],
  },
  /** Access entries (`spec.access`). */
  access: {
    /** IAM roles and users (with an optional path, no empty segment) may be access entry principals. */
    principalPattern: /^arn:aws[a-z-]*:iam::\d{12}:(role|user)\/([\w+=,.@-]+\/){0,20}[\w+=,.@-]{1,64}$/,
    /** Default quota "access entries per cluster". */
    maxEntries: 100,
    /** EKS's access entry types; only STANDARD entries take groups and access policies. */
    entryTypes: ['STANDARD', 'EC2_LINUX', 'EC2_WINDOWS', 'FARGATE_LINUX', 'HYBRID_LINUX', 'EC2'],
    /** Kubernetes group names; EKS refuses `system:` groups on STANDARD entries. */
    groupPattern: /^[^\s]{1,255}$/,
    reservedGroupPrefix: 'system:',
    /** A namespace (DNS-1123 label), optionally ending in `*` as EKS allows for prefixes. */
    namespacePattern: /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$|^[a-z0-9][-a-z0-9]{0,61}\*$/,
    /** EKS: up to 50 namespaces per access scope. */
    maxNamespaces: 50,
    /** The authentication modes a spec may ask for; EKS moves them one way, in this order. */
    authenticationModes: ['API_AND_CONFIG_MAP', 'API'],
  },
} as const;

/**
 * Object keys JavaScript gives a meaning of their own: parsers and object builders drop or misread
 * them (a `__proto__` tag vanishes silently), so no input may carry them at any depth.
 */
export const RESERVED_OBJECT_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
