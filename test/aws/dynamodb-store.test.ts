/**
 * The store suites again, with the DynamoDB client the Lambda bundles load in place of the SDK's
 * (infra/bundling/function-bundling.mjs, LAMBDA_REPLACEMENTS): `@aws-sdk/lib-dynamodb` and the
 * names the store takes from `@aws-sdk/client-dynamodb` are replaced here as the bundle build
 * replaces them, so every store behaviour those suites prove (conditions, races, leases, claims,
 * scans, batches, the EKS budget's claims, shard leases, rollouts) holds for the deployed client too,
 * on dynalite and on DynamoDB Local.
 */
import { expect, it, vi } from 'vitest';
import { bundledSends } from './support/bundled-dynamodb.js';

vi.mock('@aws-sdk/lib-dynamodb', () => import('../../lambdas/aws/dynamodb-document.js'));
vi.mock('@aws-sdk/client-dynamodb', async (importOriginal) => {
  const ours = await import('../../lambdas/aws/dynamodb-client.js');
  return {
    ...(await importOriginal<object>()),
    ConditionalCheckFailedException: ours.ConditionalCheckFailedException,
    UpdateItemCommand: ours.UpdateItemCommand,
    ReturnValue: ours.ReturnValue,
  };
});
vi.mock('../store/servers.js', async (importOriginal) => {
  const servers = await importOriginal<typeof import('../store/servers.js')>();
  const { withBundledClient } = await import('./support/bundled-dynamodb.js');
  return {
    ...servers,
    dynamoClient: (server: import('../store/servers.js').DynamoServer) =>
      withBundledClient(servers.dynamoClient(server), server.endpoint),
  };
});

await import('../store/store.test.js');
await import('../store/budget-claims.test.js');
await import('../store/shard-leases.test.js');
await import('../store/rollouts.test.js');
await import('../store/labels.test.js');

it("sent every operation the store uses through the bundles' client", () => {
  const ops = ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Scan', 'BatchGetItem'];
  for (const op of ops) expect(bundledSends.get(op) ?? 0, op).toBeGreaterThan(0);
  expect([...bundledSends.keys()].sort()).toEqual([...ops].sort());
});
