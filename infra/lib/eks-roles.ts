/**
 * The roles EKS clusters and node groups run as when a spec names none: created here with the AWS
 * managed policies EKS documents for them, or imported through props.
 */
import { Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { managedPolicyFinding } from './nag.js';

export interface EksRolesProps {
  /** @default a new role trusted by eks.amazonaws.com with AmazonEKSClusterPolicy */
  readonly clusterRole?: iam.IRole;
  /** @default a new role trusted by ec2.amazonaws.com with the worker, CNI and ECR read policies */
  readonly nodeRole?: iam.IRole;
}

const MANAGED_REASON =
  'EKS documents these AWS managed policies for cluster and node roles; AWS keeps them in step with ' +
  'what the EKS control plane and nodes need, which a hand-written copy would not.';

export class EksRoles extends Construct {
  readonly clusterRole: iam.IRole;
  readonly nodeRole: iam.IRole;

  constructor(scope: Construct, id: string, props: EksRolesProps = {}) {
    super(scope, id);
    this.clusterRole =
      props.clusterRole ?? this.newRole('ClusterRole', 'eks.amazonaws.com', ['AmazonEKSClusterPolicy']);
    this.nodeRole =
      props.nodeRole ??
      this.newRole('NodeRole', 'ec2.amazonaws.com', [
        'AmazonEKSWorkerNodePolicy',
        'AmazonEKS_CNI_Policy',
        'AmazonEC2ContainerRegistryReadOnly',
      ]);
  }

  private newRole(id: string, service: string, policies: string[]): iam.Role {
    const managed = policies.map((p) => iam.ManagedPolicy.fromAwsManagedPolicyName(p));
    const role = new iam.Role(this, id, {
      assumedBy: new iam.ServicePrincipal(service),
      managedPolicies: managed,
    });
    if (service === 'eks.amazonaws.com') {
      // EKS assumes the cluster role with session tags.
      role.assumeRolePolicy?.addStatements(
        new iam.PolicyStatement({
          actions: ['sts:TagSession'],
          principals: [new iam.ServicePrincipal(service)],
        }),
      );
    }
    for (const p of managed) {
      Validations.of(role).acknowledge({
        id: managedPolicyFinding(role, p.managedPolicyArn),
        reason: MANAGED_REASON,
      });
    }
    return role;
  }
}
