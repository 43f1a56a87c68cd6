/**
 * Locally the same budget code runs as in AWS: the control plane creates the coordination table in
 * its DynamoDB and names it, so with a rate set every EKS attempt claims slots there (without one,
 * as by default, nothing is claimed and local runs stay fast).
 */
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { budgetKey } from '../../lambdas/core/rate-slots.js';
import {
  type ControlPlane,
  LOCAL_ACCOUNT,
  LOCAL_COORDINATION_TABLE,
  LOCAL_REGION,
  startControlPlane,
} from '../../local/runtime/control-plane.js';
import { LOCAL_CREDENTIALS } from '../../local/runtime/credentials.js';

let cp: ControlPlane;
let ddb: DynamoDBClient;

beforeAll(async () => {
  cp = await startControlPlane({ eksCallsPerSecond: 50 });
  ddb = new DynamoDBClient({
    endpoint: cp.endpoints.dynamodb,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
}, 60_000);
afterAll(async () => {
  ddb.destroy();
  await cp?.stop();
});

describe('the local coordination table', () => {
  it('holds the budget of the own account and region once EKS was called', async () => {
    await cp.deps.provider.observe({ clusterName: 'absent', region: LOCAL_REGION });
    const got = await ddb.send(
      new GetItemCommand({
        TableName: LOCAL_COORDINATION_TABLE,
        Key: { id: { S: budgetKey(LOCAL_ACCOUNT, LOCAL_REGION) } },
        ConsistentRead: true,
      }),
    );
    expect(Number(got.Item?.['nextMs']?.N)).toBeGreaterThan(Date.now() - 60_000);
  });
});
