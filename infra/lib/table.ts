/** The desired-state table: one item per cluster, key `id`, a stream of both images for on-change. */
import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { KEY_ATTRIBUTE, specWriterStatements } from './capabilities.js';

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

  /**
   * Spec writers (the bridge, `cloudorch apply`): read items, write the spec attributes of records,
   * write and delete target claims (see specWriterStatements).
   */
  grantSpecWrite(grantee: iam.IGrantable): iam.Grant {
    const grants = specWriterStatements(this.table.tableArn).map((s) =>
      iam.Grant.addToPrincipal({
        grantee,
        actions: s.actions,
        resourceArns: s.resources,
        conditions: s.conditions as Record<string, Record<string, unknown>>,
      }),
    );
    return grants.reduce((all, g) => all.combine(g));
  }
}
