/**
 * The AWS CLI v2 commands that inspect a running `cloudorch dev`, built from its real endpoints so
 * the printed block cannot drift from where the servers listen. Pure: test/dev runs them as SDK calls.
 */
import { LOCAL_CREDENTIALS } from '../runtime/credentials.js';

export interface AwsCommandsInput {
  readonly region: string;
  readonly tableName: string;
  readonly stateMachineArn: string;
  readonly endpoints: { readonly dynamodb: string; readonly eks: string; readonly sfn: string };
}

/** Where an execution ARN goes: taken from list-executions' output, so it cannot be known here. */
export const EXECUTION_ARN_PLACEHOLDER = '<executionArn from list-executions>';

/** The lines `cloudorch dev` prints: a credentials line, then one ready-to-paste command per line. */
export function awsCommands(input: AwsCommandsInput): string[] {
  const { region, tableName, stateMachineArn, endpoints } = input;
  const at = (url: string) => `--endpoint-url ${url} --region ${region}`;
  return [
    `export AWS_ACCESS_KEY_ID=${LOCAL_CREDENTIALS.accessKeyId} AWS_SECRET_ACCESS_KEY=${LOCAL_CREDENTIALS.secretAccessKey}`,
    `aws dynamodb scan --table-name ${tableName} ${at(endpoints.dynamodb)}`,
    `aws eks list-clusters ${at(endpoints.eks)}`,
    `aws stepfunctions describe-state-machine --state-machine-arn ${stateMachineArn} ${at(endpoints.sfn)}`,
    `aws stepfunctions list-executions --state-machine-arn ${stateMachineArn} ${at(endpoints.sfn)}`,
    `aws stepfunctions get-execution-history --execution-arn '${EXECUTION_ARN_PLACEHOLDER}' ${at(endpoints.sfn)}`,
  ];
}
