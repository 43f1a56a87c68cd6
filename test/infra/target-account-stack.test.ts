/**
 * TargetAccountStack: the read and write roles trust the control plane's functions (ExternalId when
 * given), the write role's EKS statements are exactly those apply holds in its own account, and the
 * forwarding rule sends the drift rule's events to the control plane's default bus. cdk-nag runs on
 * every synthesis (createTargetApp registers it; synth throws on an unacknowledged finding).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { TargetAccountsConfigError } from '../../infra/lib/target-access.js';
import { createTargetApp, TARGET_CONTEXT } from '../../infra/lib/target-account-app.js';
import { EKS_API_CALLS_PATTERN } from '../../infra/lib/triggers.js';
import { FUNCTIONS } from '../../lambdas/functions/catalog.js';
import {
  type CfnResource,
  cdkJsonContext,
  logicalId,
  type PolicyStatement,
  statementsOfRole,
  synthesize,
  TEST_CONTEXT,
} from './support.js';

const CONTROL_PLANE = '111111111111';
const READ_ARN = 'arn:aws:iam::111111111111:role/CloudOrch-Observe';
const WRITE_ARN = 'arn:aws:iam::111111111111:role/CloudOrch-Apply';

interface Synth {
  readonly resources: Record<string, CfnResource>;
  readonly outputs: Record<string, unknown>;
  readonly conditions: Record<string, unknown>;
}

function synthTarget(context: Record<string, unknown>): Synth {
  const outdir = mkdtempSync(join(tmpdir(), 'cloudorch-target-'));
  // As `cdk synth -a` runs it: cdk.json's context (its feature flags) first.
  const { app, stack } = createTargetApp({ outdir, context: { ...cdkJsonContext(), ...context } });
  app.synth();
  const json = Template.fromStack(stack).toJSON() as {
    Resources: Record<string, CfnResource>;
    Outputs: Record<string, unknown>;
    Conditions?: Record<string, unknown>;
  };
  return { resources: json.Resources, outputs: json.Outputs, conditions: json.Conditions ?? {} };
}

const byType = (s: Synth, type: string) => Object.entries(s.resources).filter(([, r]) => r.Type === type);
const roleNamed = (s: Synth, name: string): [string, CfnResource] => {
  const found = byType(s, 'AWS::IAM::Role').find(([, r]) => r.Properties['RoleName'] === name);
  if (!found) throw new Error(`no role ${name}`);
  return found;
};
const trust = (role: CfnResource) =>
  (role.Properties['AssumeRolePolicyDocument'] as { Statement: PolicyStatement[] }).Statement;
const policyOf = (s: Synth, roleId: string): PolicyStatement[] =>
  byType(s, 'AWS::IAM::Policy')
    .filter(([, p]) => ((p.Properties['Roles'] ?? []) as { Ref?: string }[]).some((r) => r.Ref === roleId))
    .flatMap(([, p]) => (p.Properties['PolicyDocument'] as { Statement: PolicyStatement[] }).Statement);
const isEks = (st: PolicyStatement) => [st.Action].flat().every((a) => a.startsWith('eks:'));

let explicit: Synth;
let defaults: Synth;

beforeAll(() => {
  explicit = synthTarget({
    [TARGET_CONTEXT.controlPlaneAccount]: CONTROL_PLANE,
    [TARGET_CONTEXT.externalId]: 'ext-123',
    [TARGET_CONTEXT.readRoleArns]: READ_ARN,
    [TARGET_CONTEXT.writeRoleArns]: WRITE_ARN,
    [TARGET_CONTEXT.controlPlaneRegion]: 'eu-west-1',
    [TARGET_CONTEXT.rolesRegion]: 'eu-west-1',
  });
  defaults = synthTarget({ [TARGET_CONTEXT.controlPlaneAccount]: CONTROL_PLANE });
}, 120_000);

describe('TargetAccountStack roles', () => {
  it('trusts only the given function role of each side, with the ExternalId', () => {
    const [, read] = roleNamed(explicit, 'cloudorch-target-read');
    const [, write] = roleNamed(explicit, 'cloudorch-target-write');
    for (const [role, arn] of [
      [read, READ_ARN],
      [write, WRITE_ARN],
    ] as const) {
      expect(trust(role)).toEqual([
        {
          Action: 'sts:AssumeRole',
          Effect: 'Allow',
          Principal: { AWS: arn },
          Condition: { StringEquals: { 'sts:ExternalId': 'ext-123' } },
        },
      ]);
    }
  });

  it("by default trusts the control-plane stack's roles, without ExternalId", () => {
    const [, read] = roleNamed(defaults, 'cloudorch-target-read');
    expect(trust(read)).toEqual([
      {
        Action: 'sts:AssumeRole',
        Effect: 'Allow',
        Principal: {
          AWS: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:iam::${CONTROL_PLANE}:root`]] },
        },
        Condition: {
          ArnLike: {
            'aws:PrincipalArn': {
              'Fn::Join': [
                '',
                ['arn:', { Ref: 'AWS::Partition' }, `:iam::${CONTROL_PLANE}:role/CloudOrch-*`],
              ],
            },
          },
        },
      },
    ]);
  });

  it('gives the read role the EKS read calls only', () => {
    const [readId] = roleNamed(defaults, 'cloudorch-target-read');
    const actions = policyOf(defaults, readId).flatMap((st) => [st.Action].flat());
    expect(actions.every((a) => a.startsWith('eks:Describe') || a.startsWith('eks:List'))).toBe(true);
    expect(actions).toContain('eks:DescribeCluster');
  });

  it("gives the write role exactly apply's EKS statements, and PassRole of its own default roles to EKS", async () => {
    const main = await synthesize({ ...TEST_CONTEXT, 'aws:cdk:bundling-stacks': [] });
    const applyEks = statementsOfRole(
      main,
      logicalId(main, main.stack.cloudorch.functions.apply.role as never),
    ).filter(isEks);
    const [writeId] = roleNamed(defaults, 'cloudorch-target-write');
    const write = policyOf(defaults, writeId);
    expect(applyEks.length).toBeGreaterThan(3);
    expect(write.filter(isEks)).toEqual(applyEks);
    const pass = write.filter((st) => !isEks(st));
    expect(pass).toEqual([
      {
        Sid: 'PassEksRolesToEks',
        Effect: 'Allow',
        Action: 'iam:PassRole',
        Resource: [
          { 'Fn::GetAtt': [expect.stringMatching(/^RolesEksRolesClusterRole/), 'Arn'] },
          { 'Fn::GetAtt': [expect.stringMatching(/^RolesEksRolesNodeRole/), 'Arn'] },
        ],
        Condition: { StringEquals: { 'iam:PassedToService': 'eks.amazonaws.com' } },
      },
    ]);
    // Only apply holds eks:write in the control plane: the write role mirrors that function alone.
    expect(
      Object.entries(FUNCTIONS)
        .filter(([, f]) => (f.capabilities as readonly string[]).includes('eks:write'))
        .map(([k]) => k),
    ).toEqual(['apply']);
  }, 120_000);

  it('creates the IAM resources only in the roles region when one is given', () => {
    const iam = Object.values(explicit.resources).filter((r) => r.Type.startsWith('AWS::IAM::'));
    const roleScoped = iam.filter((r) => (r as { Condition?: string }).Condition === 'RolesRegion');
    // Everything but the forwarding rule's own role.
    expect(roleScoped).toHaveLength(iam.length - 2);
    expect(explicit.conditions['RolesRegion']).toEqual({
      'Fn::Equals': [{ Ref: 'AWS::Region' }, 'eu-west-1'],
    });
    expect(
      Object.values(defaults.resources).some((r) => 'Condition' in r && r.Type.startsWith('AWS::IAM::')),
    ).toBe(false);
  });
});

describe('TargetAccountStack event forwarding', () => {
  it("forwards the drift rule's EKS events to the control plane's default bus", () => {
    const rules = byType(explicit, 'AWS::Events::Rule');
    expect(rules).toHaveLength(1);
    const props = rules[0]?.[1].Properties ?? {};
    expect(props['EventPattern']).toEqual({
      source: EKS_API_CALLS_PATTERN.source,
      'detail-type': EKS_API_CALLS_PATTERN.detailType,
      detail: EKS_API_CALLS_PATTERN.detail,
    });
    const [target] = props['Targets'] as { Arn: unknown; RoleArn: unknown }[];
    expect(target?.Arn).toEqual({
      'Fn::Join': [
        '',
        ['arn:', { Ref: 'AWS::Partition' }, `:events:eu-west-1:${CONTROL_PLANE}:event-bus/default`],
      ],
    });
    // Same region by default.
    const rule = byType(defaults, 'AWS::Events::Rule')[0]?.[1];
    expect(JSON.stringify(rule?.Properties['Targets'])).toContain('"AWS::Region"');
  });
});

describe('TargetAccountStack settings', () => {
  it('requires a well-formed control-plane account and both trust lists or neither', () => {
    expect(() => synthTarget({})).toThrow(TargetAccountsConfigError);
    expect(() => synthTarget({ [TARGET_CONTEXT.controlPlaneAccount]: '12' })).toThrow(/12-digit/);
    expect(() =>
      synthTarget({
        [TARGET_CONTEXT.controlPlaneAccount]: CONTROL_PLANE,
        [TARGET_CONTEXT.readRoleArns]: READ_ARN,
      }),
    ).toThrow(TargetAccountsConfigError);
  });
});
