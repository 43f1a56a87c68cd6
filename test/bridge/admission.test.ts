/** The admission decision's claim check: a CR naming a cluster another record holds is refused up front. */
import { describe, expect, it } from 'vitest';
import {
  type AdmissionRequest,
  admit,
  CLAIM_LOOKUP_TIMEOUT_MS,
  type ClaimLookup,
  type Decider,
} from '../../bridge/admission.js';

const allowAll: Decider = {
  decide: async () => ({ allow: true, violations: [], approvals: [], bundleVersion: 'test' }),
};
const spec = {
  provider: 'aws',
  region: 'us-east-1',
  clusterName: 'payments',
  kubernetesVersion: '1.34',
  nodeCount: 2,
  instanceType: 't3.medium',
  tags: { team: 'payments', environment: 'dev' },
};
const create = (namespace: string): AdmissionRequest => ({
  uid: 'u1',
  operation: 'CREATE',
  namespace,
  name: 'payments',
  object: { metadata: { name: 'payments', namespace, generation: 1 }, spec },
});
const held = (holder: string | undefined): ClaimLookup => ({ claimHolder: async () => holder });
const now = new Date('2026-11-30T00:00:00Z');

describe('admission: target claims', () => {
  it('refuses a CR whose cluster another record manages, naming that record', async () => {
    const r = await admit(create('team-b'), allowAll, now, held('team-a/payments'));
    expect(r.allowed).toBe(false);
    expect(r.status?.message).toMatch(/payments in us-east-1 is already managed by record team-a\/payments/);
  });

  it('allows the record that holds the claim, and a free target', async () => {
    expect((await admit(create('team-a'), allowAll, now, held('team-a/payments'))).allowed).toBe(true);
    expect((await admit(create('team-b'), allowAll, now, held(undefined))).allowed).toBe(true);
  });

  it('a failing lookup does not deny: the store still refuses the write and the CR says why', async () => {
    const broken: ClaimLookup = { claimHolder: async () => Promise.reject(new Error('DynamoDB down')) };
    expect((await admit(create('team-b'), allowAll, now, broken)).allowed).toBe(true);
  });

  it('a lookup that never answers does not hold admission past its deadline (DynamoDB hanging)', async () => {
    const hanging: ClaimLookup = { claimHolder: () => new Promise<string | undefined>(() => {}) };
    const started = Date.now();
    expect((await admit(create('team-b'), allowAll, now, hanging, 50)).allowed).toBe(true);
    // Well inside the webhook's timeoutSeconds (10 s) whatever the deadline; here 50 ms.
    expect(Date.now() - started).toBeLessThan(CLAIM_LOOKUP_TIMEOUT_MS);
  });
});

describe('admission: approvals', () => {
  const approval = {
    rule: 'production-deletion-approval',
    operation: 'delete cluster payments',
    reason: 'production',
  };

  it('admits a spec whose operations will need approval, with a warning saying so and how to approve', async () => {
    const decider: Decider = {
      decide: async () => ({
        allow: true,
        violations: [{ rule: 'kubernetes-version', message: 'extended support', severity: 'warn' }],
        approvals: [approval],
      }),
    };
    const r = await admit(create('team-a'), decider, now);
    expect(r).toEqual({
      uid: 'u1',
      allowed: true,
      warnings: [
        'kubernetes-version: extended support',
        'approval will be needed: delete cluster payments (production-deletion-approval): production; once the change is applied, approve it with cloudorch approve team-a/payments',
      ],
    });
  });

  it('a deny wins: the spec is refused, whatever it would need approved', async () => {
    const decider: Decider = {
      decide: async () => ({
        allow: false,
        violations: [{ rule: 'required-tags', message: 'tag team is missing', severity: 'error' }],
        approvals: [approval],
      }),
    };
    const r = await admit(create('team-a'), decider, now);
    expect(r.allowed).toBe(false);
    expect(r.status?.message).toBe('denied by policy: required-tags: tag team is missing');
  });
});
