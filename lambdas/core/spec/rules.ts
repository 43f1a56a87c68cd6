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
} as const;

/**
 * Object keys JavaScript gives a meaning of their own: parsers and object builders drop or misread
 * them (a `__proto__` tag vanishes silently), so no input may carry them at any depth.
 */
export const RESERVED_OBJECT_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
