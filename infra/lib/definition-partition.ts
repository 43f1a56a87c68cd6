/**
 * Both state machine definitions name their callback integrations (`lambda:invoke.waitForTaskToken`)
 * as `arn:aws:states:::`, which is what the local runner reads. CDK deploys them with the partition
 * left to a definition substitution, so one template serves every partition; with `aws` substituted
 * back a deployed definition is the local one, character for character.
 */
import { Aws } from 'aws-cdk-lib';

/** The service integration ARNs the definitions name with the `aws` partition written out. */
const AWS_STATES_INTEGRATION = 'arn:aws:states:::';
/** The placeholder that leaves the partition to CloudFormation. */
export const PARTITION_PLACEHOLDER = 'AwsPartition';

export function withPartitionPlaceholder(definition: string): string {
  return definition.replaceAll(AWS_STATES_INTEGRATION, `arn:\${${PARTITION_PLACEHOLDER}}:states:::`);
}

/** The substitution that fills the placeholder in. */
export const PARTITION_SUBSTITUTION = { [PARTITION_PLACEHOLDER]: Aws.PARTITION } as const;
