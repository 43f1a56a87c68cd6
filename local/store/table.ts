/** Creates the desired-state table for local mode and tests; in AWS the CDK stack owns it. */
import { CreateTableCommand, DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { TransientError } from '../../lambdas/core/errors.js';

export interface CreatedTable {
  /** Absent when the server has no streams (dynalite accepts the setting and drops it). */
  readonly streamArn?: string;
}

export async function createTable(
  client: DynamoDBClient,
  tableName: string,
  opts: { stream?: boolean; maxPolls?: number } = {},
): Promise<CreatedTable> {
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      ...(opts.stream === false
        ? {}
        : { StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' } }),
    }),
  );
  // Local servers create tables at once or within milliseconds; poll a bounded number of times.
  const maxPolls = opts.maxPolls ?? 100;
  for (let poll = 0; poll < maxPolls; poll++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.TableStatus === 'ACTIVE') {
      return Table.LatestStreamArn ? { streamArn: Table.LatestStreamArn } : {};
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new TransientError(`table ${tableName} did not become ACTIVE after ${maxPolls} polls`, {
    remediation: 'The DynamoDB server is slow to create the table: start again.',
  });
}
