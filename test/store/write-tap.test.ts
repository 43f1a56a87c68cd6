/**
 * The client tap that feeds the local change feed: the store behind a tapped client answers exactly
 * as behind a plain one, the feed hears every write, and writes it cannot mirror are refused.
 */
import { type DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DynamoDesiredStateStore } from '../../lambdas/store/dynamo-store.js';
import type { ItemChange } from '../../local/store/change-feed.js';
import { createTable } from '../../local/store/table.js';
import { UnmirroredWriteError } from '../../local/store/update-expression.js';
import { feedWrites } from '../../local/store/write-tap.js';
import { type DynamoServer, dynamoClient, startDynalite } from './servers.js';
import { at, convergedStatus, historyEntries, spec, T0, uniqueTable } from './support.js';

let server: DynamoServer;
let plain: DynamoDBClient;
let tapped: DynamoDBClient;
let table: string;
const changes: ItemChange[] = [];

beforeAll(async () => {
  server = await startDynalite();
  table = uniqueTable();
  plain = dynamoClient(server);
  await createTable(plain, table, { stream: false });
  tapped = feedWrites(dynamoClient(server), { tableName: table, onWrite: (c) => changes.push(c) });
});

afterAll(async () => {
  plain?.destroy();
  tapped?.destroy();
  await server?.stop();
});

it('returns what the plain store returns, and tells the feed both images of every write', async () => {
  const store = new DynamoDesiredStateStore({ client: tapped, tableName: table });
  const reader = new DynamoDesiredStateStore({ client: plain, tableName: table });
  const id = 'team/tapped';
  const created = await store.applySpec(id, spec({ clusterName: 'tapped' }), { now: T0 });
  expect(created.record).toEqual(await reader.get(id));
  await store.acquireLease(id, 'exec-1', 60_000, at(1));
  const written = await store.writeStatus(id, 'exec-1', {
    status: convergedStatus(1, at(2)),
    history: historyEntries(0, 2),
  });
  expect(written).toEqual(await reader.get(id));
  const requested = await store.requestDeletion(id, at(3));
  expect(requested).toEqual(await reader.get(id));
  await store.release(id, 'exec-1', spec({ clusterName: 'tapped' }));

  const kinds = changes.map((c) => `${c.oldImage ? 'old' : '-'}/${c.newImage ? 'new' : '-'}`);
  // claim put, record put, lease, status, deletion request, record delete, claim delete
  expect(kinds).toEqual(['-/new', '-/new', 'old/new', 'old/new', 'old/new', 'old/-', 'old/-']);
  expect(changes[3]?.newImage).toEqual(written);
});

it('refuses an update it cannot mirror before it lands', async () => {
  const doc = DynamoDBDocumentClient.from(tapped);
  const Key = { id: 'team/counted' };
  await doc.send(new PutCommand({ TableName: table, Item: { ...Key, n: 1 } }));
  const add = new UpdateCommand({
    TableName: table,
    Key,
    UpdateExpression: 'ADD n :one',
    ExpressionAttributeValues: { ':one': 1 },
  });
  await expect(doc.send(add)).rejects.toBeInstanceOf(UnmirroredWriteError);
  const plainDoc = DynamoDBDocumentClient.from(plain);
  expect((await plainDoc.send(new GetCommand({ TableName: table, Key }))).Item).toEqual({ ...Key, n: 1 });
});

it('refuses a raw (marshalled) write on the fed table, and leaves other tables alone', async () => {
  const other = uniqueTable();
  await createTable(plain, other, { stream: false });
  const raw = (TableName: string) =>
    tapped.send(new PutItemCommand({ TableName, Item: { id: { S: 'x/y' } } }));
  await expect(raw(table)).rejects.toBeInstanceOf(UnmirroredWriteError);
  await expect(raw(other)).resolves.toBeDefined();
});
