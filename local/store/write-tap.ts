/**
 * Feeds a ChangeFeed from the writes a DynamoDB client makes, so the production store needs no hook:
 * a client middleware asks every PutItem, UpdateItem and DeleteItem on the feed's table for the item
 * as it was (ReturnValues ALL_OLD, atomic with the write, no extra call) and derives the item after
 * it: the put item, the update applied to the old image, nothing for a delete. The caller still gets
 * what it asked for (an ALL_NEW update gets the derived item). Inputs are read in document form, so
 * the client is one used through DynamoDBDocumentClient, as the store uses it.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { asStored } from '../../lambdas/store/items.js';
import type { StoredItem } from '../../lambdas/store/record.js';
import type { ChangeFeed } from './change-feed.js';
import {
  applyUpdate,
  parseUpdate,
  UnmirroredWriteError,
  type UpdateAction,
  type UpdateInput,
} from './update-expression.js';

const FED = { PutItemCommand: 'put', UpdateItemCommand: 'update', DeleteItemCommand: 'delete' } as const;
type WriteKind = (typeof FED)[keyof typeof FED];

/** Multi-item writes would bypass the feed: refused on a fed client (the store makes none). */
const UNFED = new Set([
  'BatchWriteItemCommand',
  'TransactWriteItemsCommand',
  'ExecuteStatementCommand',
  'BatchExecuteStatementCommand',
  'ExecuteTransactionCommand',
]);

interface WriteInput extends UpdateInput {
  readonly TableName?: string | undefined;
  readonly Key?: StoredItem | undefined;
  readonly Item?: StoredItem | undefined;
  readonly ReturnValues?: string | undefined;
}

/** Adds the feed's middleware to `client` and returns it. */
export function feedWrites(
  client: DynamoDBClient,
  feed: Pick<ChangeFeed, 'tableName' | 'onWrite'>,
): DynamoDBClient {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = context.commandName ?? '';
      if (UNFED.has(name)) throw new UnmirroredWriteError(`${name} is not fed to the local change feed`);
      const kind: WriteKind | undefined = FED[name as keyof typeof FED];
      const input = args.input as WriteInput;
      if (!kind || input.TableName !== feed.tableName) return next(args);
      const asked = input.ReturnValues ?? 'NONE';
      if (!['NONE', 'ALL_OLD', ...(kind === 'update' ? ['ALL_NEW'] : [])].includes(asked))
        throw new UnmirroredWriteError(`${name} with ReturnValues ${asked}`);
      const id = (kind === 'put' ? input.Item : input.Key)?.['id'];
      // A raw (marshalled) key is a map, not a string: only document-client writes are read.
      if (typeof id !== 'string') throw new UnmirroredWriteError(`${name} without a document-form string id`);
      // Parsed before sending: an update the feed cannot mirror never lands.
      const actions = kind === 'update' ? parseUpdate(input) : [];
      const result = await next({ ...args, input: { ...input, ReturnValues: 'ALL_OLD' } });
      const output = result.output as { Attributes?: StoredItem };
      const oldImage = output.Attributes;
      const newImage = imageAfter(kind, input.Item, actions, oldImage ?? { id });
      feed.onWrite({ keys: { id }, ...(oldImage ? { oldImage } : {}), ...(newImage ? { newImage } : {}) });
      if (asked === 'ALL_NEW' && newImage) output.Attributes = newImage;
      else if (asked === 'NONE') delete output.Attributes;
      return result;
    },
    { step: 'initialize', priority: 'low', name: 'localChangeFeed' },
  );
  return client;
}

function imageAfter(
  kind: WriteKind,
  put: StoredItem | undefined,
  actions: readonly UpdateAction[],
  before: StoredItem,
): StoredItem | undefined {
  if (kind === 'delete') return undefined;
  return asStored(kind === 'put' ? (put ?? {}) : applyUpdate(before, actions));
}
