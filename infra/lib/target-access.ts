/**
 * Clusters in other accounts (`spec.accountId`): the names both sides share, and what the control-plane
 * stack adds when target accounts are configured. Each EKS-calling function may assume only its own
 * side's role (read for the observe side, write for apply) in the allowed accounts or organization;
 * the default event bus accepts the EKS CloudTrail events those accounts forward. With no target
 * accounts nothing here is created: the functions get no target role name and refuse such records.
 */
import { Aws, Stack, Token, Validations } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { ENV } from '../../lambdas/config.js';
import { FUNCTIONS, type FunctionKey } from '../../lambdas/functions/catalog.js';
import { resourceFinding } from './nag.js';

/** The role each side assumes in a target account: the same names in every account. */
export interface TargetRoleNames {
  /** Assumed by the observe side (every function holding `eks:read`). */
  readonly read: string;
  /** Assumed by apply (`eks:write`) only. */
  readonly write: string;
}

export const DEFAULT_TARGET_ROLE_NAMES: TargetRoleNames = {
  read: 'cloudorch-target-read',
  write: 'cloudorch-target-write',
};

/** A target account setting that cannot work (a malformed id or name, or the stack's own account). */
export class TargetAccountsConfigError extends Error {
  override readonly name = 'TargetAccountsConfigError';
}

const ACCOUNT_ID = /^\d{12}$/;
const ORGANIZATION_ID = /^o-[a-z0-9]{10,32}$/;
const ROLE_NAME = /^[\w+=,.@-]{1,64}$/;

export function checkAccountId(id: string, what: string): void {
  if (!ACCOUNT_ID.test(id))
    throw new TargetAccountsConfigError(`${what} must be a 12-digit account id, got ${id}`);
}

export function checkOrganizationId(id: string): void {
  if (!ORGANIZATION_ID.test(id))
    throw new TargetAccountsConfigError(`target organization id must look like o-abcd123456, got ${id}`);
}

export function checkRoleNames(names: TargetRoleNames): void {
  for (const [side, name] of Object.entries(names)) {
    if (!ROLE_NAME.test(name))
      throw new TargetAccountsConfigError(`${side} role name ${name} is not an IAM role name`);
  }
  if (names.read === names.write)
    throw new TargetAccountsConfigError(`the read and write role names must differ, both are ${names.read}`);
}

/** Which side of the target roles a function's catalog capabilities put it on, if any. */
export function targetSide(key: FunctionKey): keyof TargetRoleNames | undefined {
  const caps: readonly string[] = FUNCTIONS[key].capabilities;
  if (caps.includes('eks:write')) return 'write';
  if (caps.includes('eks:read')) return 'read';
  return undefined;
}

/** A role name in every listed account, with the partition left to CloudFormation. */
export function roleArnIn(account: string, roleName: string): string {
  return `arn:${Aws.PARTITION}:iam::${account}:role/${roleName}`;
}

export interface TargetAccessProps {
  /** 12-digit ids of the accounts whose clusters CloudOrch may manage. */
  readonly accounts: readonly string[];
  /** An AWS Organizations id: any account of it (the target roles' own trust still decides). */
  readonly organizationId?: string | undefined;
  readonly roleNames: TargetRoleNames;
  readonly externalId?: string | undefined;
  readonly functions: Readonly<Record<FunctionKey, lambda.Function>>;
  readonly roles: Readonly<Record<FunctionKey, iam.Role>>;
}

/** What the control-plane stack adds when target accounts or an organization are configured. */
export class TargetAccess extends Construct {
  constructor(scope: Construct, id: string, props: TargetAccessProps) {
    super(scope, id);
    const stack = Stack.of(this);
    for (const a of props.accounts) {
      checkAccountId(a, 'target account');
      if (!Token.isUnresolved(stack.account) && a === stack.account)
        throw new TargetAccountsConfigError(
          `target account ${a} is the stack's own account: its clusters need no target role`,
        );
    }
    if (props.organizationId !== undefined) checkOrganizationId(props.organizationId);
    checkRoleNames(props.roleNames);

    for (const [key, fn] of Object.entries(props.functions) as [FunctionKey, lambda.Function][]) {
      const side = targetSide(key);
      if (!side) continue;
      const name = props.roleNames[side];
      fn.addEnvironment(ENV.targetRoleName, name);
      if (props.externalId) fn.addEnvironment(ENV.targetExternalId, props.externalId);
      for (const s of assumeStatements(props.accounts, props.organizationId, name))
        props.roles[key].addToPrincipalPolicy(s);
      if (props.organizationId !== undefined)
        Validations.of(props.roles[key]).acknowledge({
          id: resourceFinding(this, 'AwsSolutions-IAM5', roleArnIn('*', name)),
          reason: `Any account of organization ${props.organizationId} may hold a target cluster; the statement names only the ${side} role and requires aws:ResourceOrgID.`,
        });
    }
    this.allowForwardedEvents(props.accounts, props.organizationId);
  }

  /** EKS CloudTrail events forwarded from the target accounts arrive on this region's default bus. */
  private allowForwardedEvents(accounts: readonly string[], organizationId: string | undefined): void {
    const bus = Stack.of(this).formatArn({
      service: 'events',
      resource: 'event-bus',
      resourceName: 'default',
    });
    if (accounts.length > 0)
      new events.CfnEventBusPolicy(this, 'AccountsPutEvents', {
        eventBusName: 'default',
        statementId: 'CloudOrchTargetAccounts',
        statement: {
          Sid: 'CloudOrchTargetAccounts',
          Effect: 'Allow',
          Principal: { AWS: accounts.map((a) => `arn:${Aws.PARTITION}:iam::${a}:root`) },
          Action: 'events:PutEvents',
          Resource: bus,
        },
      });
    if (organizationId !== undefined)
      new events.CfnEventBusPolicy(this, 'OrganizationPutEvents', {
        eventBusName: 'default',
        statementId: 'CloudOrchTargetOrganization',
        statement: {
          Sid: 'CloudOrchTargetOrganization',
          Effect: 'Allow',
          Principal: '*',
          Action: 'events:PutEvents',
          Resource: bus,
          Condition: { StringEquals: { 'aws:PrincipalOrgID': organizationId } },
        },
      });
  }
}

/** sts:AssumeRole on one role name: in each listed account, and in any account of the organization. */
export function assumeStatements(
  accounts: readonly string[],
  organizationId: string | undefined,
  roleName: string,
): iam.PolicyStatement[] {
  const out: iam.PolicyStatement[] = [];
  if (accounts.length > 0)
    out.push(
      new iam.PolicyStatement({
        sid: 'AssumeTargetRole',
        actions: ['sts:AssumeRole'],
        resources: accounts.map((a) => roleArnIn(a, roleName)),
      }),
    );
  if (organizationId !== undefined)
    out.push(
      new iam.PolicyStatement({
        sid: 'AssumeTargetRoleInOrganization',
        actions: ['sts:AssumeRole'],
        resources: [roleArnIn('*', roleName)],
        conditions: { StringEquals: { 'aws:ResourceOrgID': organizationId } },
      }),
    );
  return out;
}
