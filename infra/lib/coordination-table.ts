/**
 * The coordination table: small items that functions and Lambda instances share to coordinate, never
 * desired state. Today the EKS budget of each (account, region) (`budget#<account>#<region>`, one
 * number `nextMs`, see lambdas/store/budget-claims.ts); other coordination items (shard leases) use
 * the same table under their own key prefix, each granted by its own capability.
 *
 * - No point-in-time recovery: every item is transient and rebuilt by the next claim (a lost budget
 *   item means an idle budget, whose next claim starts at now), so there is nothing to restore.
 * - RemovalPolicy DESTROY by default: deleting the stack loses nothing a redeploy does not recreate.
 * - TTL on `expiresAt`: an item a day past its last write goes away by itself.
 * - No stream: nothing reacts to these writes.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { KEY_ATTRIBUTE } from './capabilities.js';

/** The TTL attribute of coordination items (epoch seconds). */
export const COORDINATION_TTL_ATTRIBUTE = 'expiresAt';

export interface CoordinationTableProps {
  /** @default RemovalPolicy.DESTROY (transient coordination state only) */
  readonly removalPolicy?: RemovalPolicy;
}

export class CoordinationTable extends Construct {
  readonly table: dynamodb.TableV2;

  constructor(scope: Construct, id: string, props: CoordinationTableProps = {}) {
    super(scope, id);
    this.table = new dynamodb.TableV2(this, 'Table', {
      partitionKey: { name: KEY_ATTRIBUTE, type: dynamodb.AttributeType.STRING },
      billing: dynamodb.Billing.onDemand(),
      timeToLiveAttribute: COORDINATION_TTL_ATTRIBUTE,
      // As the desired-state table: AWS-managed KMS key, key use visible in CloudTrail.
      encryption: dynamodb.TableEncryptionV2.awsManagedKey(),
      removalPolicy: props.removalPolicy ?? RemovalPolicy.DESTROY,
    });
  }
}
