/**
 * describe's Add-ons and Access sections, `get -o wide`'s ADDONS and ACCESS cells, and how `plan`
 * shows a step past EKS's upgrade insights: from statuses as WriteStatus writes them.
 */
import { describe, expect, it } from 'vitest';
import { describeOperation } from '../../lambdas/core/plan/plan.js';
import { isMutating, type Operation } from '../../lambdas/core/plan/types.js';
import { validateSpec } from '../../lambdas/core/spec/validate.js';
import type { AccessSummary, ObservedSummary } from '../../lambdas/core/status.js';
import type { AddonSummary } from '../../lambdas/core/status-parts.js';
import { UPGRADE_WARNING_HINT } from '../../lambdas/core/status-parts.js';
import { operationLine } from '../../local/cli/commands/plan.js';
import type { Output } from '../../local/cli/format.js';
import { accessCell, accessSection, addonsCell, addonsSection } from '../../local/cli/parts.js';

const ADMIN = 'arn:aws:iam::111122223333:role/platform-admin';
const DEVS = 'arn:aws:iam::111122223333:role/checkout-developers';
const NODE = 'arn:aws:iam::111122223333:role/eks-node';
const HAND = 'arn:aws:iam::111122223333:role/someone';

const ADDONS: AddonSummary[] = [
  { name: 'vpc-cni', version: 'v1.22.2-eksbuild.3', status: 'ACTIVE' },
  {
    name: 'coredns',
    version: 'v1.12.1-eksbuild.2',
    status: 'DEGRADED',
    issues: ['InsufficientNumberOfReplicas'],
  },
  { name: 'kube-proxy', status: 'Missing' },
];

const ACCESS: AccessSummary = {
  authenticationMode: 'API_AND_CONFIG_MAP',
  entries: [
    {
      principalArn: ADMIN,
      type: 'STANDARD',
      policies: ['AmazonEKSClusterAdminPolicy (cluster)'],
      listed: true,
    },
    {
      principalArn: DEVS,
      type: 'STANDARD',
      policies: ['AmazonEKSEditPolicy (checkout, checkout-jobs)', 'AmazonEKSViewPolicy (cluster)'],
      listed: true,
    },
    { principalArn: NODE, type: 'EC2_LINUX', policies: [], listed: false },
    { principalArn: HAND, type: 'STANDARD', policies: ['AmazonEKSViewPolicy (cluster)'], listed: false },
  ],
};

/** The spec's access, normalised as describe reads it from the record. */
function specAccess(over: Record<string, unknown> = {}) {
  const v = validateSpec({
    provider: 'aws',
    region: 'us-east-1',
    clusterName: 'web',
    kubernetesVersion: '1.34',
    nodeCount: 2,
    instanceType: 't3.medium',
    addons: [{ name: 'vpc-cni' }, { name: 'coredns', version: 'latest' }],
    access: { authenticationMode: 'API', exclusive: true, entries: [{ principalArn: ADMIN }] },
    ...over,
  });
  if (!v.ok) throw new Error(v.issues.map((i) => i.message).join('; '));
  return v.spec;
}

describe('describe: add-ons', () => {
  it('shows each listed add-on with its version, EKS status and health issue codes', () => {
    expect(addonsSection(ADDONS, undefined)).toEqual([
      '  vpc-cni: v1.22.2-eksbuild.3 ACTIVE',
      '  coredns: v1.12.1-eksbuild.2 DEGRADED (InsufficientNumberOfReplicas)',
      '  kube-proxy: Missing (not created yet)',
    ]);
  });

  it('says what the spec asks while nothing is observed, and when add-ons are not managed at all', () => {
    const spec = specAccess();
    expect(addonsSection(undefined, spec.addons)).toEqual([
      '  vpc-cni: not observed yet; the spec asks for default',
      '  coredns: not observed yet; the spec asks for latest',
    ]);
    expect(addonsSection(undefined, undefined)).toEqual(['  not managed (the spec lists no addons)']);
    expect(addonsSection([], [])[0]).toMatch(/^ {2}none listed; CloudOrch removes the add-ons it created/);
  });
});

describe('describe: access', () => {
  it('shows the mode, exclusive, and each entry with its type, policies and whether the spec lists it', () => {
    const lines = accessSection(ACCESS, specAccess().access);
    expect(lines[0]).toBe('  mode API_AND_CONFIG_MAP (the spec asks for API), exclusive: true');
    const rows = lines.slice(1).map((l) => l.trim().split(/\s{3,}/));
    expect(rows).toEqual([
      ['PRINCIPAL', 'TYPE', 'POLICIES', 'SPEC'],
      [ADMIN, 'STANDARD', 'AmazonEKSClusterAdminPolicy (cluster)', 'listed'],
      [
        DEVS,
        'STANDARD',
        'AmazonEKSEditPolicy (checkout, checkout-jobs); AmazonEKSViewPolicy (cluster)',
        'listed',
      ],
      [NODE, 'EC2_LINUX', '-', "not listed (EKS's own, never touched)"],
      [HAND, 'STANDARD', 'AmazonEKSViewPolicy (cluster)', 'not listed'],
    ]);
  });

  it('before the entries are read it names the listed principals; without spec.access it says not managed', () => {
    expect(accessSection(undefined, specAccess().access)).toEqual([
      '  not observed yet; the spec asks for mode API, exclusive: true',
      `  ${ADMIN}: not observed yet`,
    ]);
    expect(accessSection(undefined, undefined)).toEqual(['  not managed (the spec has no access)']);
  });
});

describe('get -o wide: ADDONS and ACCESS', () => {
  const health = 'Healthy' as const;
  it('counts the ACTIVE add-ons and names each one that is not', () => {
    expect(addonsCell({ health, addons: ADDONS })).toBe('1/3 ACTIVE; coredns:DEGRADED,kube-proxy:Missing');
    expect(addonsCell({ health, addons: ADDONS.slice(0, 1) })).toBe('1/1 ACTIVE');
    expect(addonsCell({ health })).toBe('-');
  });

  it('gives the mode and the entries, counting those the spec does not list', () => {
    expect(accessCell({ health, access: ACCESS })).toBe('API_AND_CONFIG_MAP (4 entries, 2 not listed)');
    expect(accessCell({ health, access: { authenticationMode: 'API' } })).toBe('API');
    expect(accessCell({ health })).toBe('-');
  });
});

describe('plan: a step past ERROR upgrade insights', () => {
  const o: Output = { color: false, out: () => {}, err: () => {} };
  it('is a warning entry with what to check, not an operation', () => {
    const insight = { name: 'Deprecated APIs', id: 'i-1', status: 'ERROR' };
    const op: Operation = { kind: 'UpgradeWarning', gate: { toVersion: '1.34', insights: [insight] } };
    expect(isMutating(op)).toBe(false);
    expect(operationLine(o, op, 1).split('\n')).toEqual([
      `  1. ${describeOperation(op)}`,
      `     hint: ${UPGRADE_WARNING_HINT}`,
    ]);
    expect(describeOperation(op)).toMatch(/^warning: stepping to 1\.34 .*Deprecated APIs/);
  });
});

describe('malformed observed parts in the table', () => {
  it('never break describe or get -o wide: they say the field is malformed', () => {
    const junk = 'garbage' as unknown as AddonSummary[];
    expect(addonsSection(junk, undefined)).toEqual([
      '  status.observed.addons is malformed in the table; cloudorch reconcile writes it again',
    ]);
    expect(addonsCell({ health: 'Healthy', addons: junk } as ObservedSummary)).toBe('malformed');
    const access = { authenticationMode: 'API', entries: 'x' } as unknown as AccessSummary;
    expect(accessSection(access, undefined)[0]).toContain('status.observed.access is malformed');
    expect(accessCell({ health: 'Healthy', access } as ObservedSummary)).toBe('malformed');
  });
});
