/** The desired-state table: one item per cluster, key `id`, a stream of both images for on-change. */
import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { KEY_ATTRIBUTE } from './capabilities.js';

export interface DesiredStateTableProps {
  /**
   * What happens to the table when the stack is deleted.
   * @default RemovalPolicy.RETAIN (desired state outlives the stack; deletion protection is on too)
   */
  readonly removalPolicy?: RemovalPolicy;
}

export class DesiredStateTable extends Construct {
  readonly table: dynamodb.TableV2;

  constructor(scope: Construct, id: string, props: DesiredStateTableProps = {}) {
    super(scope, id);
    this.table = new dynamodb.TableV2(this, 'Table', {
      partitionKey: { name: KEY_ATTRIBUTE, type: dynamodb.AttributeType.STRING },
      billing: dynamodb.Billing.onDemand(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // AWS-managed KMS key: encrypted at rest with key use visible in CloudTrail, no key to manage.
      encryption: dynamodb.TableEncryptionV2.awsManagedKey(),
      deletionProtection: true,
      // on-change needs both images to tell a spec change from a status write.
      dynamoStream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
  }

  /** Read and write any record: for spec writers (the bridge, `cloudorch apply`). */
  grantReadWriteRecords(grantee: iam.IGrantable): iam.Grant {
    return this.table.grantReadWriteData(grantee);
  }
}
