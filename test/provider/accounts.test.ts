/** Target accounts (issue 18): the provider reaches another account only through its role there. */
import { describe, expect, it } from 'vitest';
import { PermanentError } from '../../lambdas/core/errors.js';
import { plan } from '../../lambdas/core/plan/plan.js';
import { refOf } from '../../lambdas/core/provider.js';
import { validateSpec } from '../../lambdas/core/spec/validate.js';
import { refreshing, targetRoleArn } from '../../lambdas/provider/clients.js';
import { EksProvider } from '../../lambdas/provider/eks-provider.js';
import { EksReader } from '../../lambdas/provider/eks-reader.js';
import { claimId } from '../../lambdas/store/claims.js';
import { baseSpecInput, DEFAULTS, desired, observation } from '../core/support/fixtures.js';
import { useSimulator } from '../eks-sim/support.js';

const OTHER = '222233334444';
const credentials = { accessKeyId: 'x', secretAccessKey: 'x' };

describe('spec.accountId', () => {
  it('is 12 digits, optional, and part of the target everywhere', () => {
    expect(validateSpec({ ...baseSpecInput, accountId: OTHER }).ok).toBe(true);
    expect(validateSpec({ ...baseSpecInput, accountId: '1234' }).ok).toBe(false);
    expect(validateSpec({ ...baseSpecInput, accountId: 222233334444 }).ok).toBe(false);
    const spec = { region: 'us-east-1', clusterName: 'demo' };
    expect(claimId({ ...spec, accountId: OTHER })).not.toBe(claimId(spec));
    expect(refOf({ ...spec, accountId: OTHER })).toEqual({ ...spec, accountId: OTHER });
    expect(refOf(spec)).toEqual(spec);
  });

  it("another account gets none of the deployment's default roles or subnets", () => {
    const ops = plan(desired({ accountId: OTHER }), observation(null), DEFAULTS);
    expect(ops.map((op) => op.kind === 'Impossible' && op.field)).toEqual([
      'clusterRoleArn',
      'network.subnetIds',
      'nodeGroups[default].nodeRoleArn',
    ]);
    const noNodeRole = plan(
      desired({
        accountId: OTHER,
        clusterRoleArn: `arn:aws:iam::${OTHER}:role/eks-cluster`,
        network: { subnetIds: ['subnet-0000000c', 'subnet-0000000d'] },
      }),
      observation(null),
      DEFAULTS,
    );
    // Nothing is created when a pool could not be: a control plane alone is billed and useless.
    expect(noNodeRole.map((op) => op.kind)).toEqual(['Impossible']);
    expect(ops[0]?.kind === 'Impossible' && ops[0].remediation).toContain(`a role in account ${OTHER}`);
  });

  it('every planned call names the target account; a record without one names none', () => {
    const own = {
      accountId: OTHER,
      clusterRoleArn: `arn:aws:iam::${OTHER}:role/eks-cluster`,
      nodeRoleArn: `arn:aws:iam::${OTHER}:role/eks-node`,
      network: { subnetIds: ['subnet-0000000c', 'subnet-0000000d'] },
    };
    const ops = plan(desired(own), observation(null), DEFAULTS);
    expect(ops.length).toBeGreaterThan(0);
    for (const op of ops) expect(op).toMatchObject({ accountId: OTHER });
    for (const op of plan(desired({}), observation(null), DEFAULTS))
      expect(op).not.toHaveProperty('accountId');
  });
});

describe('the provider and target accounts', () => {
  const ref = { clusterName: 'demo', region: 'us-east-1', accountId: OTHER };

  it('refuses another account when the deployment names no target role', async () => {
    const p = new EksProvider({ endpoint: 'http://127.0.0.1:9', credentials });
    const err = await p.observe(ref).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermanentError);
    expect((err as PermanentError).code).toBe('NoTargetAccounts');
    expect((err as PermanentError).remediation).toContain('CLOUDORCH_TARGET_ROLE_NAME');
    p.clients.destroy();
  });

  it("refuses a spec naming the stack's own account (one cluster, one target)", async () => {
    const p = new EksProvider({
      endpoint: 'http://127.0.0.1:9',
      credentials,
      targetRoleName: 'r',
      ownAccountId: OTHER,
    });
    const err = await p.observe(ref).catch((e: unknown) => e);
    expect((err as PermanentError).code).toBe('OwnAccountNamed');
    p.clients.destroy();
  });

  it('builds one client per (account, region), assuming the role named for this function', () => {
    expect(targetRoleArn(OTHER, 'cloudorch-observe')).toBe(`arn:aws:iam::${OTHER}:role/cloudorch-observe`);
    expect(targetRoleArn(OTHER, 'r', 'cn-north-1')).toBe(`arn:aws-cn:iam::${OTHER}:role/r`);
    expect(targetRoleArn(OTHER, 'r', 'us-gov-west-1')).toBe(`arn:aws-us-gov:iam::${OTHER}:role/r`);
    // The target resolution both sides share (EksTargets), through the reader.
    const p = new EksReader({
      endpoint: 'http://127.0.0.1:9',
      credentials,
      targetRoleName: 'cloudorch-observe',
    });
    const at = (region: string, account?: string) =>
      (p as unknown as { client(r: string, a?: string): unknown }).client(region, account);
    const a = at('us-east-1', OTHER);
    expect(at('us-east-1', OTHER)).toBe(a);
    expect(at('us-east-1')).not.toBe(a);
    expect(at('eu-west-1', OTHER)).not.toBe(a);
    expect(p.clients.size).toBe(3);
    p.clients.destroy();
  });
});

describe('assumed-role credentials', () => {
  const creds = (minutes: number, n: number) => ({
    accessKeyId: `k${n}`,
    secretAccessKey: 's',
    expiration: new Date(Date.UTC(2026, 0, 1) + minutes * 60_000),
  });

  it('are asked for once, again only near expiry, and a failure is never kept', async () => {
    let calls = 0;
    let clock = Date.UTC(2026, 0, 1);
    let fail = false;
    const p = refreshing(
      async () => {
        calls++;
        if (fail) throw new Error('AccessDenied');
        return creds(60, calls);
      },
      () => clock,
    );
    expect((await p()).accessKeyId).toBe('k1');
    expect((await p()).accessKeyId).toBe('k1');
    expect(calls).toBe(1);
    clock += 56 * 60_000; // 4 minutes before expiry: inside the refresh margin
    expect((await p()).accessKeyId).toBe('k2');
    fail = true;
    clock += 60 * 60_000;
    await expect(p()).rejects.toThrow('AccessDenied');
    fail = false;
    expect((await p()).accessKeyId).toBe('k4');
  });
});

describe('concurrent callers share one request', () => {
  it('at first, near expiry and after a failure', async () => {
    let calls = 0;
    let clock = Date.UTC(2026, 0, 1);
    let fail = false;
    const p = refreshing(
      async () => {
        calls++;
        await new Promise((r) => setTimeout(r, 5));
        if (fail) throw new Error('AccessDenied');
        return {
          accessKeyId: `k${calls}`,
          secretAccessKey: 's',
          expiration: new Date(clock + 60 * 60_000),
        };
      },
      () => clock,
    );
    const ten = () => Promise.allSettled(Array.from({ length: 10 }, () => p()));
    await ten();
    expect(calls).toBe(1);
    clock += 58 * 60_000;
    await ten();
    expect(calls).toBe(2);
    fail = true;
    clock += 120 * 60_000;
    const failed = await ten();
    expect(failed.every((r) => r.status === 'rejected')).toBe(true);
    expect(calls).toBe(3);
  });
});

describe('one session per account, shared by its regions (against the simulator)', () => {
  const h = useSimulator();

  it('two regions of one account assume its role once', async () => {
    await h.admin.createRole(OTHER, 'cloudorch-observe');
    const p = new EksProvider({ endpoint: h.sim.url, credentials, targetRoleName: 'cloudorch-observe' });
    await p.observe({ clusterName: 'none', region: 'us-east-1', accountId: OTHER });
    await p.observe({ clusterName: 'none', region: 'eu-west-1', accountId: OTHER });
    await p.observe({ clusterName: 'none', region: 'us-east-1', accountId: OTHER });
    expect((await h.admin.calls())['AssumeRole']?.requests).toBe(1);
    p.clients.destroy();
  });

  it('a missing role is AssumeRoleDenied naming it', async () => {
    const p = new EksProvider({ endpoint: h.sim.url, credentials, targetRoleName: 'cloudorch-observe' });
    const err = await p
      .observe({ clusterName: 'none', region: 'us-east-1', accountId: OTHER })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermanentError);
    expect((err as PermanentError).code).toBe('AssumeRoleDenied');
    expect((err as PermanentError).remediation).toContain(`arn:aws:iam::${OTHER}:role/cloudorch-observe`);
    p.clients.destroy();
  });
});
