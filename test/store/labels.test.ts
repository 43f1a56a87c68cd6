/**
 * Labels are written beside the spec: a label change bumps neither generation nor version (so no
 * reconciliation starts), and a malformed labels attribute makes the item invalid, with its reason.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeOf } from '../../lambdas/handlers/triggers/on-change.js';
import { DynamoDesiredStateStore } from '../../lambdas/store/dynamo-store.js';
import { RecordNotFoundError } from '../../lambdas/store/errors.js';
import { createTable } from '../../local/store/table.js';
import { type DynamoServer, dynamoClient, startDynalite } from './servers.js';
import { spec, T0, uniqueId, uniqueTable } from './support.js';

describe('record labels (dynalite)', () => {
  let server: DynamoServer;
  let client: DynamoDBClient;
  let store: DynamoDesiredStateStore;
  let table: string;
  const specOf = (id: string, over: Parameters<typeof spec>[0] = {}) =>
    spec({ clusterName: id.replace(/[^a-z0-9]+/g, '-'), ...over });

  beforeAll(async () => {
    server = await startDynalite();
    client = dynamoClient(server);
    table = uniqueTable();
    await createTable(client, table);
    store = new DynamoDesiredStateStore({ client, tableName: table });
  });
  afterAll(async () => {
    client?.destroy();
    await server?.stop();
  });

  it('apply stores labels; changing only them writes them without a new generation or version', async () => {
    const id = uniqueId('lab');
    const created = await store.applySpec(id, specOf(id), { now: T0, labels: { app: 'web' } });
    expect(created.record.labels).toEqual({ app: 'web' });
    // Written with the record itself, not by a second write a selector could miss it before.
    expect(created).toMatchObject({ created: true, labelsChanged: false });
    const relabeled = await store.applySpec(id, specOf(id), { labels: { app: 'api', tier: '1' } });
    expect(relabeled).toMatchObject({ changed: false, created: false, labelsChanged: true });
    expect(relabeled.record).toMatchObject({ generation: 1, version: 1, labels: { app: 'api', tier: '1' } });
    const same = await store.applySpec(id, specOf(id), { labels: { tier: '1', app: 'api' } });
    expect(same.labelsChanged).toBe(false);
    // No labels in the manifest: the record has none either (apply states the whole set).
    const cleared = await store.applySpec(id, specOf(id), { labels: {} });
    expect(cleared.labelsChanged).toBe(true);
    expect((await store.get(id))?.labels).toBeUndefined();
    // Without `labels`, a spec writer leaves them as they are.
    await store.writeLabels(id, { keep: 'me' });
    await store.applySpec(id, specOf(id, { nodeCount: 7 }));
    expect(await store.get(id)).toMatchObject({ generation: 2, labels: { keep: 'me' } });
  });

  it('a label write is a stream change on-change starts nothing for', async () => {
    const id = uniqueId('quiet');
    await store.applySpec(id, specOf(id), { now: T0 });
    const before = await store.get(id);
    const after = await store.writeLabels(id, { app: 'web' });
    const image = (r: object | undefined) => marshall(r ?? {}, { removeUndefinedValues: true });
    const event = {
      eventName: 'MODIFY',
      dynamodb: { OldImage: image(before), NewImage: image(after) },
    } as unknown as DynamoDBRecord;
    expect(changeOf(event)).toBeUndefined();
  });

  it('writeLabels refuses a record that does not exist', async () => {
    await expect(store.writeLabels(uniqueId('none'), { a: 'b' })).rejects.toBeInstanceOf(RecordNotFoundError);
  });

  it('an item whose labels break the label rules is invalid, naming the attribute', async () => {
    const id = uniqueId('badlab');
    await store.applySpec(id, specOf(id), { now: T0 });
    const doc = DynamoDBDocumentClient.from(client);
    const item = { ...(await store.get(id)), labels: { '-bad': 'v' } };
    await doc.send(new PutCommand({ TableName: table, Item: item }));
    const parsed = await store.inspect(id);
    expect(parsed?.kind === 'invalid' && parsed.invalid.reason).toMatch(/^labels: /);
  });
});
