/**
 * The pure side of the cluster's parts: response mapping (a missing member is an error, never a
 * default; absent lists and maps are empty) and bounded paging (a list longer than its limit is a
 * typed error with a remediation, never a truncated observation).
 */
import type { EKSClient } from '@aws-sdk/client-eks';
import { describe, expect, it } from 'vitest';
import { PermanentError } from '../../lambdas/core/errors.js';
import { OBSERVE_LIMITS, observeCallBound } from '../../lambdas/provider/eks-provider.js';
import { listAddons } from '../../lambdas/provider/observe-addons.js';
import { TooManyPagesError } from '../../lambdas/provider/paging.js';
import { MalformedResponseError } from '../../lambdas/provider/to-observation.js';
import {
  associationIdOf,
  toAddonVersions,
  toObservedAccessEntry,
  toObservedAddon,
  toObservedInsight,
} from '../../lambdas/provider/to-observed-parts.js';

const addon = {
  addonName: 'coredns',
  addonArn: 'arn:aws:eks:eu-west-1:111111111111:addon/c/coredns/u',
  addonVersion: 'v1.11.4-eksbuild.2',
  status: 'ACTIVE' as const,
};

describe('parts -> observation (pure)', () => {
  it('maps an add-on; absent issues, tags and associations are none; ACTIVE with issues is Degraded', () => {
    expect(toObservedAddon(addon, [])).toEqual({
      name: 'coredns',
      arn: addon.addonArn,
      version: addon.addonVersion,
      status: 'ACTIVE',
      health: 'Healthy',
      issues: [],
      podIdentityAssociations: [],
      tags: {},
    });
    const degraded = toObservedAddon(
      { ...addon, health: { issues: [{ code: 'ConfigurationConflict', message: 'm', resourceIds: ['r'] }] } },
      [],
    );
    expect(degraded).toMatchObject({
      health: 'Degraded',
      issues: [{ code: 'ConfigurationConflict', message: 'm', resourceIds: ['r'] }],
    });
  });

  it('an add-on in CREATE_FAILED is Failed, UPDATING Progressing', () => {
    expect(toObservedAddon({ ...addon, status: 'CREATE_FAILED' }, []).health).toBe('Failed');
    expect(toObservedAddon({ ...addon, status: 'UPDATING' }, []).health).toBe('Progressing');
  });

  it('keeps only the versions of the add-on asked about; defaultVersion absent is false', () => {
    const versions = toAddonVersions(
      [
        {
          addonName: 'coredns',
          addonVersions: [
            {
              addonVersion: 'v1',
              compatibilities: [{ clusterVersion: '1.30', defaultVersion: true }, { clusterVersion: '1.31' }],
            },
          ],
        },
        { addonName: 'kube-proxy', addonVersions: [{ addonVersion: 'v9' }] },
      ],
      'coredns',
    );
    expect(versions).toEqual([
      {
        version: 'v1',
        compatibilities: [
          { clusterVersion: '1.30', defaultVersion: true },
          { clusterVersion: '1.31', defaultVersion: false },
        ],
      },
    ]);
  });

  it('maps an access entry with its policies; an insight with its status and reason', () => {
    const entry = toObservedAccessEntry(
      {
        principalArn: 'arn:p',
        accessEntryArn: 'arn:e',
        type: 'EC2_LINUX',
        username: 'system:node:{{EC2PrivateDNSName}}',
      },
      [{ policyArn: 'arn:pol', accessScope: { type: 'cluster' } }],
    );
    expect(entry).toEqual({
      principalArn: 'arn:p',
      arn: 'arn:e',
      type: 'EC2_LINUX',
      kubernetesGroups: [],
      username: 'system:node:{{EC2PrivateDNSName}}',
      tags: {},
      policies: [{ policyArn: 'arn:pol', scope: { type: 'cluster', namespaces: [] } }],
    });
    expect(
      toObservedInsight({ id: 'i', name: 'n', insightStatus: { status: 'ERROR', reason: 'r' } }, 'do this'),
    ).toEqual({ id: 'i', name: 'n', status: 'ERROR', reason: 'r', recommendation: 'do this' });
  });

  it('the association id is the last segment of its ARN', () => {
    expect(associationIdOf('arn:aws:eks:us-east-1:0:podidentityassociation/c/a-abc')).toBe('a-abc');
    expect(() => associationIdOf('a-abc')).toThrow(MalformedResponseError);
  });

  it.each([
    ['addon.addonVersion', () => toObservedAddon({ ...addon, addonVersion: undefined }, [])],
    ['addon.status', () => toObservedAddon({ ...addon, status: undefined }, [])],
    [
      'addon.health.issues[].code',
      () => toObservedAddon({ ...addon, health: { issues: [{ message: 'x' }] } }, []),
    ],
    ['accessEntry.type', () => toObservedAccessEntry({ principalArn: 'p', accessEntryArn: 'e' }, [])],
    [
      'accessScope.type',
      () =>
        toObservedAccessEntry({ principalArn: 'p', accessEntryArn: 'e', type: 'STANDARD' }, [
          { policyArn: 'x', accessScope: {} },
        ]),
    ],
    ['insight.insightStatus.status', () => toObservedInsight({ id: 'i', name: 'n' })],
  ])('a response without %s is MalformedResponseError, not a default', (what, fn) => {
    expect(fn).toThrow(MalformedResponseError);
    expect(fn).toThrow(what);
  });
});

describe('bounded lists', () => {
  it('an add-on list longer than its pages is a typed error, after exactly maxAddonPages calls', async () => {
    let calls = 0;
    const client = {
      send: async () => {
        calls++;
        return { addons: [`a${calls}`], nextToken: 'more' };
      },
    } as unknown as EKSClient;
    const err = await listAddons(client, 'c').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TooManyPagesError);
    expect(err).toBeInstanceOf(PermanentError);
    expect((err as TooManyPagesError).code).toBe('TooManyAddons');
    expect((err as TooManyPagesError).remediation).toMatch(/remove the add-ons/);
    expect(calls).toBe(OBSERVE_LIMITS.maxAddonPages);
  });

  it('the call bound adds each part only when it is read', () => {
    const base = observeCallBound(1, 1);
    expect(observeCallBound(1, 1, {})).toBe(base);
    const L = OBSERVE_LIMITS;
    // 1 + 2 + n + t + (1 + n) x (1 + 2): the bound of a cluster whose spec reads no part.
    expect(base).toBe(11);
    expect(observeCallBound(1, 1, { addons: 0 })).toBe(base + L.maxAddonPages);
    expect(observeCallBound(1, 1, { addons: 2, podIdentities: 1 })).toBe(
      base + L.maxAddonPages + 2 + 1 + 2 * (1 + L.maxUntrackedDescribes),
    );
    expect(observeCallBound(1, 1, { addonVersionsOf: 3 })).toBe(base + 3 * L.maxAddonVersionPages);
    expect(observeCallBound(1, 1, { accessEntries: 0 })).toBe(base + L.maxAccessEntryPages);
    expect(observeCallBound(1, 1, { accessEntries: 2 })).toBe(
      base + L.maxAccessEntryPages + 2 * (1 + L.maxAccessPolicyPages),
    );
    expect(observeCallBound(1, 1, { insights: true })).toBe(base + L.maxInsightPages + L.maxInsightDescribes);
    // Node groups described by name (the sweep's check): no list page.
    expect(observeCallBound(1, 1, { nodegroupsByName: true })).toBe(base - L.maxNodegroupPages);
  });
});
