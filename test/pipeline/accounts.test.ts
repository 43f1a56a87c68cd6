/**
 * Pipeline scenarios for target accounts (issue 18): the real handlers, state machine, store and
 * provider against the simulator, whose STS issues credentials for roles in other accounts.
 */
import { CreateClusterCommand, EKSClient } from '@aws-sdk/client-eks';
import { fromTemporaryCredentials } from '@aws-sdk/credential-providers';
import { beforeEach, describe, expect, it } from 'vitest';
import { LOCAL_ACCOUNT, LOCAL_TARGET_ROLE } from '../../local/runtime/control-plane.js';
import {
  applyAndSettle,
  condition,
  type Harness,
  LOCAL_CREDENTIALS,
  mutating,
  spec,
  statusOf,
  useHarness,
} from './support.js';

const B = '222233334444';
/** What a cluster in another account names itself: the deployment's defaults are the own account's. */
const inAccount = (account: string) => ({
  accountId: account,
  clusterRoleArn: `arn:aws:iam::${account}:role/eks-cluster`,
  nodeRoleArn: `arn:aws:iam::${account}:role/eks-node`,
  network: { subnetIds: ['subnet-0a000000000000001', 'subnet-0b000000000000002'] },
});
const C = '333344445555';

const { harness } = useHarness();
let h: Harness;
beforeEach(() => {
  h = harness();
});

const sim = () => h.cp.simAdmin;
/** The simulator's clusters of one account, by name (read in process: no EKS call). */
const clustersOf = (account: string) =>
  h.cp.sim.state
    .allClusters()
    .filter((c) => c.account === account)
    .map((c) => c.name);

describe('pipeline scenarios: target accounts', () => {
  it('a cluster in a second account: created there through its role, nothing in the own account', async () => {
    await sim().createRole(B, LOCAL_TARGET_ROLE);
    await applyAndSettle(h, 'team/b', spec('in-b', inAccount(B)));
    expect(await statusOf(h, 'team/b')).toMatchObject({ ready: true });
    expect(clustersOf(B)).toContain('in-b');
    expect(clustersOf(LOCAL_ACCOUNT)).not.toContain('in-b');
    expect((await statusOf(h, 'team/b'))?.observed?.arn).toContain(`:${B}:cluster/in-b`);
    const calls = await sim().calls();
    expect(calls['AssumeRole']?.succeeded ?? 0).toBeGreaterThan(0);
    expect(mutating(calls)).toMatchObject({ CreateCluster: 1, CreateNodegroup: 1 });
  });

  it('a missing target role: a permanent error naming the role, and nothing created', async () => {
    await applyAndSettle(h, 'team/c', spec('in-c', inAccount(C)));
    const st = await statusOf(h, 'team/c');
    expect(st?.ready).toBe(false);
    const ready = condition(st, 'Ready');
    expect(ready?.message).toContain(`arn:aws:iam::${C}:role/${LOCAL_TARGET_ROLE}`);
    expect(ready?.remediation).toContain(`Create arn:aws:iam::${C}:role/${LOCAL_TARGET_ROLE}`);
    expect(clustersOf(C)).toEqual([]);
    // It never had a cluster: deleting it releases the record without touching EKS, although the
    // target still cannot be reached.
    await h.cp.store.requestDeletion('team/c');
    await h.cp.settle();
    expect(await h.cp.store.get('team/c')).toBeUndefined();
    expect(clustersOf(C)).toEqual([]);
  });

  it('the same name in two accounts is two targets; the ownership guard holds in each', async () => {
    await sim().createRole(B, LOCAL_TARGET_ROLE);
    // Someone made 'twin' by hand in account B, with B's own credentials.
    const inB = new EKSClient({
      endpoint: h.cp.endpoints.eks,
      region: 'us-east-1',
      credentials: fromTemporaryCredentials({
        params: { RoleArn: `arn:aws:iam::${B}:role/${LOCAL_TARGET_ROLE}`, RoleSessionName: 'by-hand' },
        masterCredentials: LOCAL_CREDENTIALS,
        clientConfig: { region: 'us-east-1', endpoint: h.cp.endpoints.eks },
      }),
    });
    await inB.send(
      new CreateClusterCommand({
        name: 'twin',
        version: '1.34',
        roleArn: `arn:aws:iam::${B}:role/by-hand`,
        resourcesVpcConfig: { subnetIds: ['subnet-0a000000000000001', 'subnet-0b000000000000002'] },
      }),
    );
    inB.destroy();
    await sim().resetCalls();
    // A record for B's 'twin' never changes it without adopt; a record for the own account's 'twin'
    // is another target, claimed and created apart.
    await applyAndSettle(h, 'team/twin-b', spec('twin', inAccount(B)));
    const b = await statusOf(h, 'team/twin-b');
    expect(b?.ready).toBe(false);
    expect(condition(b, 'Ready')?.reason).toBe('NotOwned');
    expect(mutating(await sim().calls())).toEqual({});
    await applyAndSettle(h, 'team/twin-own', spec('twin'));
    expect(await statusOf(h, 'team/twin-own')).toMatchObject({ ready: true });
    expect(clustersOf(LOCAL_ACCOUNT)).toContain('twin');
    expect(clustersOf(B)).toEqual(expect.arrayContaining(['twin']));
  });
});
