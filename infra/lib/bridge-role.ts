/**
 * The role the in-cluster bridge runs as: trusted by EKS Pod Identity for its namespace and service
 * account always, and by IRSA when an OIDC provider is given. Its grants (spec writes and target
 * claims on the table, the policy bundle object) are added by the CloudOrch construct.
 */
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';

/** Session tags EKS Pod Identity sets when it assumes a role (unless the association disables them). */
export const POD_IDENTITY_TAGS = {
  namespace: 'kubernetes-namespace',
  serviceAccount: 'kubernetes-service-account',
} as const;

export interface BridgeIrsa {
  /** ARN of the cluster's IAM OIDC provider. */
  readonly oidcProviderArn: string;
  /** Issuer without `https://`, e.g. `oidc.eks.eu-west-1.amazonaws.com/id/ABC`. */
  readonly oidcIssuer: string;
}

export interface BridgeRoleProps {
  /** Kubernetes namespace of the bridge's service account. @default 'cloudorch-system' */
  readonly namespace?: string;
  /** Name of the bridge's service account. @default 'cloudorch-bridge' */
  readonly serviceAccount?: string;
  /** The cluster's OIDC provider, to trust the service account through IRSA too. @default no IRSA trust (Pod Identity only) */
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
      // Pod Identity needs TagSession as well as AssumeRole. It tags the session with the pod's
      // namespace and service account, so only that service account's association can assume the role
      // (an association made for any other pod of any cluster in the account is refused).
      new iam.SessionTagsPrincipal(
        new iam.ServicePrincipal('pods.eks.amazonaws.com').withConditions({
          StringEquals: {
            [`aws:RequestTag/${POD_IDENTITY_TAGS.namespace}`]: this.namespace,
            [`aws:RequestTag/${POD_IDENTITY_TAGS.serviceAccount}`]: this.serviceAccount,
          },
        }),
      ),
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
      description: `CloudOrch bridge (${this.namespace}/${this.serviceAccount}): spec writes and target claims`,
    });
  }
}
