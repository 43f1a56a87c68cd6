/** Limits the spec enforces, each with where it comes from (EKS model docs and service quotas). */
export const LIMITS = {
  /** EKS cluster names: 1-100 characters, start alphanumeric, then alphanumerics, hyphens, underscores. */
  clusterName: { pattern: /^[0-9A-Za-z][A-Za-z0-9_-]*$/, maxLength: 100 },
  /** Default quota "nodes per managed node group". */
  maxNodes: 450,
  /** EKS TagMap: at most 50 tags, keys 1-128 characters, values at most 256. */
  tags: { maxCount: 50, maxKeyLength: 128, maxValueLength: 256 },
  /** Prefixes nobody may set: `aws:` is reserved by AWS, `cloudorch.io/` marks ownership. */
  reservedTagPrefixes: ['aws:', 'cloudorch.io/'],
  subnets: { min: 2, max: 16, pattern: /^subnet-[0-9a-f]{8,17}$/ },
  securityGroups: { max: 5, pattern: /^sg-[0-9a-f]{8,17}$/ },
  roleArn: /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/,
} as const;
