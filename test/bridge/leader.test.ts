/**
 * Leader election against the real API server. The standalone server has no coordination.k8s.io,
 * so the suite serves Leases through a CRD of that name (upstream's own trick: protected `*.k8s.io`
 * groups need the "unapproved, test only" annotation). It is not kube-apiserver's Lease type (no
 * field validation), but the API path, resourceVersion conflicts and the client calls are the same.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LeaderElector } from '../../bridge/leader.js';
import { waitFor } from './support.js';
import { startTestEnv, type TestEnv } from './testenv.js';

let env: TestEnv;

const leaseCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: {
    name: 'leases.coordination.k8s.io',
    annotations: { 'api-approved.kubernetes.io': 'unapproved, test only' },
  },
  spec: {
    group: 'coordination.k8s.io',
    scope: 'Namespaced',
    names: { kind: 'Lease', listKind: 'LeaseList', plural: 'leases', singular: 'lease' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        },
      },
    ],
  },
};

beforeAll(async () => {
  env = await startTestEnv();
  const r = await env.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
    body: leaseCrd,
  });
  if (r.status !== 201) throw new Error(`lease CRD: ${r.status} ${r.body}`);
  await waitFor('leases served', async () => {
    const g = await env.request('GET', '/apis/coordination.k8s.io/v1/namespaces/cloudorch-system/leases');
    return g.status === 200 ? true : undefined;
  });
}, 600_000);

afterAll(async () => {
  await env?.stop();
});

describe('leader election on a Lease', () => {
  it('one replica leads; the other takes over when the leader steps down', async () => {
    const events: string[] = [];
    const elector = (identity: string) =>
      new LeaderElector({
        kc: env.kubeConfig(),
        namespace: 'cloudorch-system',
        name: 'cloudorch-bridge-leader',
        identity,
        leaseDurationSeconds: 3,
        onStartedLeading: () => events.push(`${identity} leads`),
        onStoppedLeading: () => events.push(`${identity} stopped`),
        log: () => {},
      });
    const a = elector('replica-a');
    a.start();
    await waitFor('a leads', async () => (a.isLeader() ? true : undefined));
    const b = elector('replica-b');
    b.start();
    // b keeps trying while a renews; it must never lead at the same time.
    await waitFor('b tried several times', async () => {
      const r = await env.request(
        'GET',
        '/apis/coordination.k8s.io/v1/namespaces/cloudorch-system/leases/cloudorch-bridge-leader',
      );
      const lease = JSON.parse(r.body) as { spec: { holderIdentity: string } };
      return lease.spec.holderIdentity === 'replica-a' && events.length === 1 ? true : undefined;
    });
    expect(b.isLeader()).toBe(false);
    await a.stop(); // releases the Lease
    await waitFor('b leads', async () => (b.isLeader() ? true : undefined));
    await b.stop();
    expect(events).toEqual(['replica-a leads', 'replica-b leads']);
    const r = await env.request(
      'GET',
      '/apis/coordination.k8s.io/v1/namespaces/cloudorch-system/leases/cloudorch-bridge-leader',
    );
    expect((JSON.parse(r.body) as { spec: { leaseTransitions: number } }).spec.leaseTransitions).toBe(1);
  }, 60_000);
});
