/**
 * Target accounts on the control-plane side: each EKS-calling function may assume only its own side's
 * role (read for the observe side, write for apply) in the allowed accounts or organization, knows that
 * role's name and the stack's own account, and the default bus accepts the forwarded EKS events. Without
 * target accounts nothing cross-account exists.
 */
import { App } from 'aws-cdk-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { CONTEXT, propsFromContext } from '../../infra/lib/app.js';
import { TargetAccountsConfigError } from '../../infra/lib/target-access.js';
import { ENV } from '../../lambdas/config.js';
import { FUNCTIONS, type FunctionKey } from '../../lambdas/functions/catalog.js';
import {
  type CfnResource,
  logicalId,
  type PolicyStatement,
  resource,
  type Synthesized,
  statementsOfRole,
  synthesize,
  TEST_CONTEXT,
} from './support.js';

const KEYS = Object.keys(FUNCTIONS) as FunctionKey[];
// Written out by hand: a function moving sides must fail here.
const READ_SIDE: FunctionKey[] = ['observe', 'sweepShard', 'driftEvent'];
const WRITE_SIDE: FunctionKey[] = ['apply'];
const ACCOUNTS = ['222222222222', '333333333333'];
const ORG = 'o-abcdef1234';
const NO_BUNDLING = { ...TEST_CONTEXT, 'aws:cdk:bundling-stacks': [] };

const partitioned = (tail: string) => ({ 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, tail]] });

const OWN_BUS = {
  'Fn::Join': [
    '',
    [
      'arn:',
      { Ref: 'AWS::Partition' },
      ':events:',
      { Ref: 'AWS::Region' },
      ':',
      { Ref: 'AWS::AccountId' },
      ':event-bus/default',
    ],
  ],
};

let accounts: Synthesized;
let organization: Synthesized;
let without: Synthesized;

beforeAll(async () => {
  accounts = await synthesize({
    ...NO_BUNDLING,
    [CONTEXT.targetAccounts]: ACCOUNTS.join(','),
    [CONTEXT.targetExternalId]: 'ext-123',
  });
  organization = await synthesize({
    ...NO_BUNDLING,
    [CONTEXT.targetOrganizationId]: ORG,
    [CONTEXT.targetReadRoleName]: 'co-read',
  });
  without = await synthesize(NO_BUNDLING);
}, 240_000);

const env = (s: Synthesized, key: FunctionKey): Record<string, unknown> =>
  (
    resource(s, logicalId(s, s.stack.cloudorch.functions[key] as never)).Properties['Environment'] as {
      Variables: Record<string, unknown>;
    }
  ).Variables;
const statements = (s: Synthesized, key: FunctionKey): PolicyStatement[] =>
  statementsOfRole(s, logicalId(s, s.stack.cloudorch.functions[key].role as never));
const assumes = (s: Synthesized, key: FunctionKey) =>
  statements(s, key).filter((st) => [st.Action].flat().some((a) => a.startsWith('sts:')));
const busPolicies = (s: Synthesized): CfnResource[] =>
  Object.values(s.json.Resources).filter((r) => r.Type === 'AWS::Events::EventBusPolicy');

describe('with target accounts', () => {
  it('gives each side its role name, the ExternalId and the stack account; the others nothing but the dispatcher its account', () => {
    for (const key of KEYS) {
      const v = env(accounts, key);
      const side = READ_SIDE.includes(key)
        ? 'cloudorch-target-read'
        : WRITE_SIDE.includes(key)
          ? 'cloudorch-target-write'
          : undefined;
      expect(v[ENV.targetRoleName], key).toBe(side);
      expect(v[ENV.targetExternalId], key).toBe(side ? 'ext-123' : undefined);
      // The sweep dispatcher names the own account's shards by its id: the account, no role.
      expect(v[ENV.ownAccountId], key).toEqual(
        side || key === 'sweep' ? { Ref: 'AWS::AccountId' } : undefined,
      );
    }
  });

  it('lets each function assume exactly its own role in each allowed account', () => {
    for (const key of KEYS) {
      const name = READ_SIDE.includes(key) ? 'cloudorch-target-read' : 'cloudorch-target-write';
      const expected =
        READ_SIDE.includes(key) || WRITE_SIDE.includes(key)
          ? [
              {
                Sid: 'AssumeTargetRole',
                Effect: 'Allow',
                Action: 'sts:AssumeRole',
                Resource: ACCOUNTS.map((a) => partitioned(`:iam::${a}:role/${name}`)),
              },
            ]
          : [];
      expect(assumes(accounts, key), key).toEqual(expected);
    }
  });

  it("counts apply's calls through the write role as CloudOrch's own, not drift", () => {
    const own = JSON.stringify(env(accounts, 'driftEvent')[ENV.ownRoles]);
    for (const a of ACCOUNTS) expect(own).toContain(`:iam::${a}:role/cloudorch-target-write`);
    expect(own).toContain(logicalId(accounts, accounts.stack.cloudorch.functions.apply.role as never));
  });

  it('lets the allowed accounts put events on the default bus', () => {
    expect(busPolicies(accounts).map((p) => p.Properties)).toEqual([
      {
        EventBusName: 'default',
        StatementId: 'CloudOrchTargetAccounts',
        Statement: {
          Sid: 'CloudOrchTargetAccounts',
          Effect: 'Allow',
          Principal: { AWS: ACCOUNTS.map((a) => partitioned(`:iam::${a}:root`)) },
          Action: 'events:PutEvents',
          Resource: OWN_BUS,
        },
      },
    ]);
  });
});

describe('the trust outputs', () => {
  it("name the observe side's roles and apply's, for the target stack's trust", () => {
    const outputs = (accounts.json as unknown as { Outputs: Record<string, { Value: unknown }> }).Outputs;
    const roleIds = (keys: FunctionKey[]) =>
      keys.map((k) => logicalId(accounts, accounts.stack.cloudorch.functions[k].role as never));
    const read = JSON.stringify(outputs['TargetReadRoleTrust']?.Value);
    for (const id of roleIds(READ_SIDE)) expect(read).toContain(id);
    expect(read).not.toContain(roleIds(WRITE_SIDE)[0]);
    expect(outputs['TargetWriteRoleTrust']?.Value).toEqual({ 'Fn::GetAtt': [roleIds(WRITE_SIDE)[0], 'Arn'] });
  });
});

describe('with a target organization', () => {
  it('allows the role name in any account of the organization only', () => {
    expect(assumes(organization, 'observe')).toEqual([
      {
        Sid: 'AssumeTargetRoleInOrganization',
        Effect: 'Allow',
        Action: 'sts:AssumeRole',
        Resource: partitioned(':iam::*:role/co-read'),
        Condition: { StringEquals: { 'aws:ResourceOrgID': ORG } },
      },
    ]);
    expect(assumes(organization, 'apply')).toEqual([
      expect.objectContaining({ Resource: partitioned(':iam::*:role/cloudorch-target-write') }),
    ]);
    expect(env(organization, 'apply')[ENV.targetExternalId]).toBeUndefined();
  });

  it('lets accounts of the organization put events', () => {
    const [policy] = busPolicies(organization);
    expect(busPolicies(organization)).toHaveLength(1);
    expect(policy?.Properties['Statement']).toMatchObject({
      Principal: '*',
      Action: 'events:PutEvents',
      Condition: { StringEquals: { 'aws:PrincipalOrgID': ORG } },
    });
  });
});

describe('without target accounts', () => {
  it('has no target role, no assume-role grant and no bus policy; only the own account', () => {
    const text = JSON.stringify(without.json);
    for (const key of KEYS) expect(assumes(without, key), key).toEqual([]);
    expect(text).not.toContain(ENV.targetRoleName);
    expect(text).not.toContain(ENV.targetExternalId);
    expect(text).not.toContain('cloudorch-target-');
    expect(busPolicies(without)).toEqual([]);
    expect(env(without, 'observe')[ENV.ownAccountId]).toEqual({ Ref: 'AWS::AccountId' });
    expect(text).not.toContain('TargetReadRoleTrust');
  });
});

describe('target account settings', () => {
  const props = (context: Record<string, unknown>) => propsFromContext(new App({ context }));

  it('reads accounts, organization, role names and ExternalId from context', () => {
    expect(
      props({
        [CONTEXT.targetAccounts]: ['222222222222'],
        [CONTEXT.targetOrganizationId]: ORG,
        [CONTEXT.targetWriteRoleName]: 'w',
        [CONTEXT.targetExternalId]: 'x',
      }),
    ).toMatchObject({
      targetAccounts: ['222222222222'],
      targetOrganizationId: ORG,
      targetRoleNames: { read: 'cloudorch-target-read', write: 'w' },
      targetExternalId: 'x',
    });
    expect(props({})).not.toHaveProperty('targetAccounts');
  });

  it('refuses a malformed account or organization id', async () => {
    await expect(synthesize({ ...NO_BUNDLING, [CONTEXT.targetAccounts]: '1234' })).rejects.toThrow(
      TargetAccountsConfigError,
    );
    await expect(synthesize({ ...NO_BUNDLING, [CONTEXT.targetOrganizationId]: 'org-1' })).rejects.toThrow(
      /o-abcd123456/,
    );
  }, 120_000);
});
