/**
 * The planner and the provider together against the simulator: drift made through the admin API is
 * observed as fact and converged back with one EKS call per step. The clock moves only when the loop
 * waits, so each run issues the same calls.
 */
import { CreateClusterCommand, EKSClient } from '@aws-sdk/client-eks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OWNER_TAG } from '../../lambdas/core/ownership.js';
import { SimAdminClient } from '../../local/eks-sim/admin-client.js';
import { DEFAULT_DURATIONS } from '../../local/eks-sim/model.js';
import { type EksSimulator, startEksSimulator } from '../../local/eks-sim/server.js';
import { converge, DEFAULTS, desiredOf } from './support/reconcile.js';
import { type providerFor as ProviderFor, providerFor, REGION, TEST_CREDENTIALS } from './support/servers.js';

const SPEC = {
  provider: 'aws',
  region: REGION,
  clusterName: 'drifty',
  kubernetesVersion: '1.31',
  nodeCount: 2,
  instanceType: 't3.large',
  tags: { team: 'a' },
} as const;
const ID = 'team-a/drifty';

describe('reconcile against the simulator', () => {
  let sim: EksSimulator;
  let admin: SimAdminClient;
  let provider: ReturnType<typeof ProviderFor>;
  const wait = () => ({ onWait: () => admin.advance(DEFAULT_DURATIONS.clusterVersionUpdate) });

  beforeAll(async () => {
    sim = await startEksSimulator({ seed: 21, speed: 1 });
    admin = new SimAdminClient(sim.url, REGION);
    provider = providerFor(sim.url);
  });
  afterAll(async () => {
    provider.clients.destroy();
    await sim.close();
  });
  beforeEach(async () => {
    await admin.reset();
  });

  it('converges from nothing, then puts drifted size and tags back', async () => {
    const first = await converge(provider, desiredOf(ID, SPEC), DEFAULTS, wait());
    expect(first.applied.map((op) => op.kind)).toEqual(['CreateCluster', 'CreateNodegroup']);
    const ng = first.observation.nodegroups[0];
    expect(ng).toMatchObject({ instanceTypes: ['t3.large'], scaling: { desiredSize: 2 }, version: '1.31' });

    await admin.driftNodegroup('drifty', ng?.name ?? '', { scaling: { desiredSize: 5, maxSize: 5 } });
    await admin.driftCluster('drifty', { tags: { [OWNER_TAG]: ID, 'cloudorch.io/managed-by': 'cloudorch' } });
    const healed = await converge(provider, desiredOf(ID, SPEC), DEFAULTS, wait());
    expect(healed.applied.map((op) => op.kind)).toEqual(['UpdateNodegroupScaling', 'TagResource']);
    expect(healed.observation.nodegroups[0]?.scaling).toEqual({ minSize: 2, maxSize: 2, desiredSize: 2 });
    expect(healed.observation.cluster?.tags.team).toBe('a');
  });

  it('replaces the node group when the instance type changes: create the new one, then delete the old', async () => {
    const first = await converge(provider, desiredOf(ID, SPEC), DEFAULTS, wait());
    const old = first.observation.nodegroups[0]?.name ?? '';
    const changed = await converge(
      provider,
      desiredOf(ID, { ...SPEC, instanceType: 'm5.large' }, 2),
      DEFAULTS,
      wait(),
    );
    expect(changed.applied.map((op) => op.kind)).toEqual(['CreateNodegroup', 'DeleteNodegroup']);
    expect(changed.applied[1]).toMatchObject({ nodegroupName: old });
    expect(changed.observation.nodegroups.map((n) => n.instanceTypes)).toEqual([['m5.large']]);
  });

  it('adopts an unowned cluster only when asked: tag it, then manage it', async () => {
    const raw = new EKSClient({ endpoint: sim.url, region: REGION, credentials: TEST_CREDENTIALS });
    await raw.send(
      new CreateClusterCommand({
        name: 'drifty',
        version: '1.31',
        roleArn: DEFAULTS.clusterRoleArn,
        resourcesVpcConfig: { subnetIds: DEFAULTS.subnetIds },
      }),
    );
    raw.destroy();
    await admin.advance(DEFAULT_DURATIONS.clusterCreate);
    await expect(converge(provider, desiredOf(ID, SPEC), DEFAULTS, wait())).rejects.toThrow(/adopt/);
    expect((await admin.calls()).TagResource).toBeUndefined();
    const adopted = await converge(provider, desiredOf(ID, { ...SPEC, adopt: true }), DEFAULTS, wait());
    expect(adopted.applied.map((op) => op.kind)).toEqual(['TagResource', 'CreateNodegroup', 'TagResource']);
    expect(adopted.observation.cluster?.tags[OWNER_TAG]).toBe(ID);
  });
});
