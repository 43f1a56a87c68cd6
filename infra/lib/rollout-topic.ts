/**
 * The rollout notification topic: the rollout report function publishes here when a rollout waits
 * for approval, halts or completes (capability `notify:publish`). Subscribe to it (the stack outputs
 * its ARN) to hear about approvals; nothing is subscribed by default.
 *
 * Encrypted with the AWS-managed SNS key: messages name clusters and rollouts, and the only publisher
 * is a Lambda role of this account, which that key's own policy lets use it through SNS (so the role
 * needs no KMS grant). Unlike the alarm topic, no AWS service publishes here, so the managed key fits.
 */
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';

/** The AWS-managed key of SNS in every account and region. */
export const SNS_MANAGED_KEY_ALIAS = 'alias/aws/sns';

export class RolloutTopic extends Construct {
  readonly topic: sns.Topic;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.topic = new sns.Topic(this, 'Topic', {
      displayName: 'CloudOrch rollouts',
      masterKey: kms.Alias.fromAliasName(this, 'ManagedKey', SNS_MANAGED_KEY_ALIAS),
      // A topic policy denying every request not made over TLS.
      enforceSSL: true,
    });
  }
}
