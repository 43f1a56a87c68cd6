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

/**
 * CloudOrch's keyed tables alike (desired state, rollouts): key `id`, on demand, point-in-time
 * recovery, the AWS-managed KMS key (key use visible in CloudTrail, no key to manage), deletion
 * protection, RETAIN unless told otherwise; a stream only where something reacts to the writes.
 */
export function keyedTable(
  scope: Construct,
  props: { readonly removalPolicy?: RemovalPolicy; readonly stream?: dynamodb.StreamViewType },
): dynamodb.TableV2 {
  return new dynamodb.TableV2(scope, 'Table', {
    partitionKey: { name: KEY_ATTRIBUTE, type: dynamodb.AttributeType.STRING },
    billing: dynamodb.Billing.onDemand(),
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    encryption: dynamodb.TableEncryptionV2.awsManagedKey(),
    deletionProtection: true,
    ...(props.stream ? { dynamoStream: props.stream } : {}),
    removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
  });
}

export class DesiredStateTable extends Construct {
  readonly table: dynamodb.TableV2;

  constructor(scope: Construct, id: string, props: DesiredStateTableProps = {}) {
    super(scope, id);
    // on-change needs both images to tell a spec change from a status write.
    this.table = keyedTable(this, {
      ...(props.removalPolicy ? { removalPolicy: props.removalPolicy } : {}),
      stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
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
