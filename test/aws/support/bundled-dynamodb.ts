/**
 * A store test's DynamoDB client with the Lambda bundles' client inside (lambdas/aws/dynamodb-client.ts):
 * the store's own commands (the replacement's) go through it, signed and sent as the bundles send
 * them; a test's set-up commands (the SDK's CreateTableCommand, PutItemCommand...) go through the
 * SDK. The store suites' race hooks (`middlewareStack.add`) run around the replacement's sends, with
 * the SDK's command names.
 */
import type { DynamoDBClient as SdkClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBClient, DynamoDBCommand } from '../../../lambdas/aws/dynamodb-client.js';

/** Requests the replacement sent, by operation: the suites prove nothing unless it sent theirs. */
export const bundledSends = new Map<string, number>();

type Handler = (args: { input: object }) => Promise<unknown>;
type Middleware = (next: Handler, context: { commandName: string }) => Handler;

export function withBundledClient(sdk: SdkClient, endpoint: string): SdkClient {
  const ours = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const middlewares: Middleware[] = [];
  const hybrid = {
    send(command: unknown) {
      if (!(command instanceof DynamoDBCommand)) return sdk.send(command as never);
      bundledSends.set(command.operation, (bundledSends.get(command.operation) ?? 0) + 1);
      let handler: Handler = () => ours.send(command);
      for (const mw of middlewares) handler = mw(handler, { commandName: `${command.operation}Command` });
      return handler({ input: command.input });
    },
    middlewareStack: { add: (mw: Middleware) => middlewares.push(mw) },
    destroy() {
      ours.destroy();
      sdk.destroy();
    },
  };
  return hybrid as unknown as SdkClient;
}
