/**
 * The sweep's decision in each observation tier, on a provider that answers from a scripted EKS (the
 * provider's own reads are counted against the simulator in test/provider/observe-tiers.test.ts):
 * what a check asks for, what it finds (node groups), what only a full look finds (add-ons, a group
 * added out of band), and the settings reader.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { ENV, SETTING_DEFAULTS } from '../../../lambdas/config.js';
import type { Observation } from '../../../lambdas/core/observation.js';
import { periodsPerFull, stableHash } from '../../../lambdas/core/observe-tier.js';
import { ownershipTags } from '../../../lambdas/core/ownership.js';
import type { ClusterProvider, ObserveOptions } from '../../../lambdas/core/provider.js';
import type { ClusterStatus } from '../../../lambdas/core/status.js';
import { DEFAULT_CONFIG, setDepsFactory } from '../../../lambdas/handlers/deps.js';
import {
  DEFAULT_TIER_SETTINGS,
  decide,
  fullObservePeriodFrom,
} from '../../../lambdas/handlers/triggers/sweep-decide.js';
import { EksBudgetExhaustedError } from '../../../lambdas/store/errors.js';
import type { ClusterRecord } from '../../../lambdas/store/types.js';
import { converged, DEFAULTS, ID, nodegroupFor, spec } from '../../core/support/fixtures.js';

const SPEC = spec({ addons: [{ name: 'kube-proxy', version: 'default' }] });
const GROUP = nodegroupFor(SPEC);
const TIERS = { periodSeconds: 300, fullObservePeriodSeconds: 3600 };

/** The start of the sweep period in which the record gets its full look, and of the next one (a check). */
const k = periodsPerFull(TIERS.periodSeconds, TIERS.fullObservePeriodSeconds);
const fullPeriod = 1_000_000 * k + (stableHash(ID) % k);
const FULL_AT = new Date(fullPeriod * 300 * 1000);
const CHECK_AT = new Date((fullPeriod + 1) * 300 * 1000);

/** EKS as the scripted world holds it: the spec's cluster and group, and no add-on (deleted by hand). */
let world: Observation;
let asked: ObserveOptions[];
let now: Date;

const provider: ClusterProvider = {
  async observe(_ref, opts = {}) {
    asked.push(opts);
    const names = opts.nodegroupNames;
    const { addons, addonVersions, ...rest } = world;
    return {
      ...rest,
      nodegroups: names ? world.nodegroups.filter((ng) => names.includes(ng.name)) : world.nodegroups,
      ...(names ? { nodegroupsListed: false as const } : {}),
      ...(opts.addons && addons ? { addons } : {}),
      ...(opts.addonVersionsOf && addonVersions ? { addonVersions } : {}),
    };
  },
  apply() {
    throw new Error('the sweep never applies');
  },
};

const status: ClusterStatus = {
  conditions: [
    {
      type: 'Ready',
      status: 'True',
      reason: 'Reconciled',
      message: 'Cluster matches the spec',
      observedGeneration: 1,
      lastTransitionTime: '2026-11-29T12:00:00.000Z',
    },
  ],
  observedGeneration: 1,
  ready: true,
  synced: true,
  observed: { health: 'Healthy', pools: [{ name: 'default', nodegroup: GROUP.name, status: 'ACTIVE' }] },
  updatedAt: '2026-11-29T12:00:00.000Z',
};
const record: ClusterRecord = {
  id: ID,
  spec: SPEC,
  specHash: 'h',
  generation: 1,
  version: 1,
  createdAt: '2026-11-29T12:00:00.000Z',
  status,
};

beforeEach(() => {
  world = { ...converged(SPEC), addons: [] };
  asked = [];
  setDepsFactory('sweepShard', () => ({
    now: () => now,
    config: { ...DEFAULT_CONFIG, defaults: DEFAULTS, ownRoleArns: [] },
    provider,
    store: {} as never,
    executions: {} as never,
    shardLeases: {} as never,
  }));
});

describe('the sweep decision by tier', () => {
  it('a check reads the named groups only; an add-on gone out of band waits for the full look', async () => {
    now = CHECK_AT;
    expect(await decide(record, TIERS)).toEqual({ start: false, why: 'in sync', tier: 'check' });
    expect(asked).toEqual([{ trackedUpdates: [], nodegroupNames: [GROUP.name] }]);
    now = FULL_AT;
    const full = await decide(record, TIERS);
    expect(full).toMatchObject({ start: true, tier: 'full' });
    expect(full.why).toMatch(/^drift: .*addons/);
    expect(asked[1]).toMatchObject({ addons: true, addonVersionsOf: ['kube-proxy'] });
    expect(asked[1]).not.toHaveProperty('nodegroupNames');
  });

  it('a group scaled or deleted out of band is found by the check', async () => {
    now = CHECK_AT;
    world = { ...converged(SPEC), nodegroups: [{ ...GROUP, scaling: { ...GROUP.scaling, desiredSize: 9 } }] };
    expect(await decide(record, TIERS)).toMatchObject({ start: true, tier: 'check' });
    world = { ...converged(SPEC), nodegroups: [] };
    const gone = await decide(record, TIERS);
    expect(gone).toMatchObject({ start: true, tier: 'check' });
    expect(gone.why).toMatch(/^drift: nodeGroups/);
  });

  it('a group added by hand is not seen by a check, and is by the full look', async () => {
    const byHand = { ...GROUP, name: 'by-hand', tags: { team: 'a' } };
    world = {
      ...converged(SPEC),
      nodegroups: [GROUP, byHand],
      addons: [
        {
          name: 'kube-proxy',
          arn: 'arn:aws:eks:us-east-1:111122223333:addon/demo/kube-proxy/x',
          version: 'v1.31.0-eksbuild.1',
          status: 'ACTIVE',
          health: 'Healthy',
          issues: [],
          podIdentityAssociations: [],
          tags: ownershipTags(ID),
        },
      ],
    };
    now = CHECK_AT;
    expect(await decide(record, TIERS)).toMatchObject({ start: false, tier: 'check' });
    now = FULL_AT;
    const full = await decide(record, TIERS);
    expect(full).toMatchObject({ start: true, tier: 'full' });
    expect(full.why).toMatch(/by-hand/);
  });

  it('a record whose status names no group is observed fully whatever the period', async () => {
    now = CHECK_AT;
    const { observed: _o, ...bare } = status;
    await decide({ ...record, status: bare }, TIERS);
    expect(asked[0]).toMatchObject({ addons: true });
    expect(asked[0]).not.toHaveProperty('nodegroupNames');
  });
});

describe('tier settings', () => {
  it('the full period comes from the environment, else the default; the sweep period from the defaults', () => {
    expect(fullObservePeriodFrom({ [ENV.fullObservePeriod]: '7200' })).toBe(7200);
    expect(fullObservePeriodFrom({})).toBe(SETTING_DEFAULTS.fullObservePeriodSeconds);
    expect(fullObservePeriodFrom({ [ENV.fullObservePeriod]: 'often' })).toBe(3600);
    expect(DEFAULT_TIER_SETTINGS).toEqual({
      periodSeconds: SETTING_DEFAULTS.sweepPeriodSeconds,
      fullObservePeriodSeconds: SETTING_DEFAULTS.fullObservePeriodSeconds,
    });
  });
});

describe('the sweep decision and the EKS budget', () => {
  it('a slot the budget refuses is not an observation failure: the decision lets the refusal out', async () => {
    now = CHECK_AT;
    setDepsFactory('sweepShard', () => ({
      now: () => now,
      config: { ...DEFAULT_CONFIG, defaults: DEFAULTS, ownRoleArns: [] },
      provider: {
        observe: async () => {
          throw new EksBudgetExhaustedError('every slot of the next 2 s is taken');
        },
        apply: async () => {
          throw new Error('not called');
        },
      },
      store: {} as never,
      executions: {} as never,
      shardLeases: {} as never,
    }));
    await expect(decide(record, TIERS)).rejects.toBeInstanceOf(EksBudgetExhaustedError);
  });
});
