/**
 * The role the in-cluster bridge runs as: trusted by EKS Pod Identity always, and by IRSA when an
 * OIDC provider is given. It may read and write the desired-state table and nothing else.
 */
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';

export interface BridgeIrsa {
  /** ARN of the cluster's IAM OIDC provider. */
  readonly oidcProviderArn: string;
  /** Issuer without `https://`, e.g. `oidc.eks.eu-west-1.amazonaws.com/id/ABC`. */
  readonly oidcIssuer: string;
}

export interface BridgeRoleProps {
  /** @default 'cloudorch-system' */
  readonly namespace?: string;
  /** @default 'cloudorch-bridge' */
  readonly serviceAccount?: string;
  /** @default no IRSA trust (Pod Identity only) */
  readonly irsa?: BridgeIrsa;
}

export class BridgeRole extends Construct {
  readonly role: iam.Role;
  readonly namespace: string;
  readonly serviceAccount: string;

  constructor(scope: Construct, id: string, props: BridgeRoleProps = {}) {
    super(scope, id);
    this.namespace = props.namespace ?? 'cloudorch-system';
    this.serviceAccount = props.serviceAccount ?? 'cloudorch-bridge';
    const principals: iam.IPrincipal[] = [
      // Pod Identity needs TagSession as well as AssumeRole.
      new iam.SessionTagsPrincipal(new iam.ServicePrincipal('pods.eks.amazonaws.com')),
    ];
    if (props.irsa) {
      const issuer = props.irsa.oidcIssuer.replace(/^https:\/\//, '');
      principals.push(
        new iam.WebIdentityPrincipal(props.irsa.oidcProviderArn, {
          StringEquals: {
            [`${issuer}:sub`]: `system:serviceaccount:${this.namespace}:${this.serviceAccount}`,
            [`${issuer}:aud`]: 'sts.amazonaws.com',
          },
        }),
      );
    }
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.CompositePrincipal(...principals),
      description: `CloudOrch bridge (${this.namespace}/${this.serviceAccount}): desired-state table only`,
    });
  }
}
