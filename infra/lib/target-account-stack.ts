/**
 * What a target account needs so CloudOrch (deployed in its control-plane account) can manage its
 * clusters: the read role the observe side assumes, the write role apply assumes (the same EKS
 * statements, ownership-tag conditions included, as apply holds in its own account), default cluster
 * and node roles the write role may pass to EKS, and per region the rule forwarding EKS CloudTrail
 * events to the control-plane account's default bus. IAM is global and the rule is regional: with
 * `rolesRegion` the roles exist only in that region, so one template fits every region of every
 * account (a CloudFormation StackSet).
 */
import {
  Aws,
  CfnCondition,
  CfnOutput,
  CfnResource,
  DefaultStackSynthesizer,
  Fn,
  type IStackSynthesizer,
  Stack,
  type StackProps,
  Validations,
} from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventsTargets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { passEksRoles } from './capabilities.js';
import { EksRoles, type EksRolesProps } from './eks-roles.js';
import { EKS_WILDCARD_REASON, eksRead, eksWildcardFindings, eksWrite } from './eks-statements.js';
import {
  checkAccountId,
  checkRoleNames,
  DEFAULT_TARGET_ROLE_NAMES,
  type TargetRoleNames,
} from './target-access.js';
import { EKS_API_CALLS_PATTERN } from './triggers.js';

/** The function roles of the control-plane stack that may assume each target role. */
export interface ControlPlaneRoleArns {
  /** The observe side's roles (observe, sweep, drift-event). */
  readonly read: readonly string[];
  /** The apply function's role. */
  readonly write: readonly string[];
}

export interface TargetAccountStackProps extends StackProps, EksRolesProps {
  /** The account CloudOrch's control-plane stack runs in. */
  readonly controlPlaneAccount: string;
  /**
   * Region of the control-plane bus EKS events are forwarded to.
   * @default this stack's region
   */
  readonly controlPlaneRegion?: string;
  /**
   * Role names; must equal the control-plane stack's `targetRoleNames`.
   * @default { read: 'cloudorch-target-read', write: 'cloudorch-target-write' }
   */
  readonly roleNames?: TargetRoleNames;
  /**
   * ExternalId the roles' trust requires; must equal the control-plane stack's `targetExternalId`.
   * @default none: no ExternalId condition
   */
  readonly externalId?: string;
  /**
   * The control-plane function roles each target role trusts (stack outputs `TargetReadRoleTrust` and
   * `TargetWriteRoleTrust`).
   * @default any role of the control-plane stack (`arn:<partition>:iam::<account>:role/<controlPlaneStackName>-*`); each function's own policy then names only its side's role
   */
  readonly controlPlaneRoleArns?: ControlPlaneRoleArns;
  /**
   * Name of the control-plane stack, for the default trust.
   * @default 'CloudOrch'
   */
  readonly controlPlaneStackName?: string;
  /**
   * The only region whose stack creates the roles (IAM is global); the others forward events only.
   * @default every deployment of this stack creates the roles (deploy it in one region per account)
   */
  readonly rolesRegion?: string;
  /**
   * Let the write role delete node groups CloudOrch did not create, as the control-plane prop does.
   * @default false
   */
  readonly deleteForeignNodegroups?: boolean;
}

const ROLES_REGION_REASON =
  'The target roles are assumed from the control-plane account; these statements are the ones the ' +
  "control-plane functions hold in their own account, scoped to this account's EKS resources.";

export class TargetAccountStack extends Stack {
  readonly readRole: iam.Role;
  readonly writeRole: iam.Role;
  readonly eksRoles: EksRoles;
  readonly forwardRule: events.Rule;

  constructor(scope: Construct, id: string, props: TargetAccountStackProps) {
    // No bootstrap version rule: a StackSet deploys the template into accounts never bootstrapped.
    super(scope, id, {
      // aws-cdk-lib's own types do not line the synthesizer up with its interface under
      // exactOptionalPropertyTypes; it is that interface at run time.
      synthesizer: new DefaultStackSynthesizer({
        generateBootstrapVersionRule: false,
      }) as unknown as IStackSynthesizer,
      ...props,
    });
    checkAccountId(props.controlPlaneAccount, 'controlPlaneAccount');
    const names = props.roleNames ?? DEFAULT_TARGET_ROLE_NAMES;
    checkRoleNames(names);

    const roles = new Construct(this, 'Roles');
    this.eksRoles = new EksRoles(roles, 'EksRoles', {
      ...(props.clusterRole ? { clusterRole: props.clusterRole } : {}),
      ...(props.nodeRole ? { nodeRole: props.nodeRole } : {}),
    });
    this.readRole = this.targetRole(roles, 'ReadRole', names.read, 'read', props);
    for (const s of eksRead(this)) this.readRole.addToPrincipalPolicy(s);
    this.writeRole = this.targetRole(roles, 'WriteRole', names.write, 'write', props);
    for (const s of eksWrite(this, props.deleteForeignNodegroups ?? false))
      this.writeRole.addToPrincipalPolicy(s);
    this.writeRole.addToPrincipalPolicy(passEksRoles(this.eksRoles.clusterRole, this.eksRoles.nodeRole));
    for (const role of [this.readRole, this.writeRole])
      Validations.of(role).acknowledge(
        ...eksWildcardFindings(this).map((f) => ({
          id: f,
          reason: `${EKS_WILDCARD_REASON} ${ROLES_REGION_REASON}`,
        })),
      );
    const condition = props.rolesRegion === undefined ? undefined : this.onlyIn(roles, props.rolesRegion);

    this.forwardRule = this.forwardEksEvents(props.controlPlaneAccount, props.controlPlaneRegion);
    new CfnOutput(this, 'DefaultClusterRoleArn', {
      ...(condition ? { condition } : {}),
      value: this.eksRoles.clusterRole.roleArn,
      description:
        "Cluster role for specs in this account (spec.clusterRoleArn: the stack's default is another account's)",
    });
    new CfnOutput(this, 'DefaultNodeRoleArn', {
      ...(condition ? { condition } : {}),
      value: this.eksRoles.nodeRole.roleArn,
      description: 'Node role for specs in this account (the node pools role)',
    });
  }

  /** A role with a fixed name, trusted by the control-plane functions of one side. */
  private targetRole(
    scope: Construct,
    id: string,
    roleName: string,
    side: keyof ControlPlaneRoleArns,
    props: TargetAccountStackProps,
  ): iam.Role {
    const conditions: Record<string, Record<string, unknown>> = props.externalId
      ? { StringEquals: { 'sts:ExternalId': props.externalId } }
      : {};
    const arns = props.controlPlaneRoleArns?.[side];
    const principal = arns
      ? new iam.CompositePrincipal(...arns.map((a) => new iam.ArnPrincipal(a)))
      : new iam.AccountPrincipal(props.controlPlaneAccount);
    if (!arns) {
      const stackName = props.controlPlaneStackName ?? 'CloudOrch';
      conditions['ArnLike'] = {
        'aws:PrincipalArn': `arn:${Aws.PARTITION}:iam::${props.controlPlaneAccount}:role/${stackName}-*`,
      };
    }
    return new iam.Role(scope, id, {
      roleName,
      assumedBy: Object.keys(conditions).length > 0 ? principal.withConditions(conditions) : principal,
      description: `CloudOrch ${side} side, assumed from account ${props.controlPlaneAccount}`,
    });
  }

  /** Every IAM resource under `scope` exists only in `region` (IAM is global; the rule is not). */
  private onlyIn(scope: Construct, region: string): CfnCondition {
    const condition = new CfnCondition(this, 'RolesRegion', {
      expression: Fn.conditionEquals(Aws.REGION, region),
    });
    for (const c of scope.node.findAll()) if (c instanceof CfnResource) c.cfnOptions.condition = condition;
    return condition;
  }

  /** Mutating EKS calls, as the control-plane drift rule matches them, go to its default bus. */
  private forwardEksEvents(account: string, region: string | undefined): events.Rule {
    const busArn = `arn:${Aws.PARTITION}:events:${region ?? Aws.REGION}:${account}:event-bus/default`;
    const bus = events.EventBus.fromEventBusArn(this, 'ControlPlaneBus', busArn);
    const rule = new events.Rule(this, 'ForwardEksApiCalls', {
      description: "Mutating EKS API calls recorded by CloudTrail: to CloudOrch's control-plane bus",
      eventPattern: EKS_API_CALLS_PATTERN,
      targets: [new eventsTargets.EventBus(bus)],
    });
    return rule;
  }
}
