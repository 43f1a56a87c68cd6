/**
 * Single-item reads and conditional updates on the desired-state table, shared by every store
 * module. No transactions and no streams: dynalite (local mode) and DynamoDB behave the same.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { InternalError } from '../core/errors.js';
import { type ParsedItem, parseItem, type StoredItem, toRecord } from './record.js';
import type { ClusterRecord } from './types.js';
import { type Expression, type Mutation, updateParams } from './update.js';

/** The table a store works on, and the document client it reaches it with. */
export interface Table {
  readonly doc: DynamoDBDocumentClient;
  readonly name: string;
}

/** What an update asks DynamoDB to send back; nothing unless a caller reads it. */
interface UpdateReturns {
  readonly ReturnValues?: 'ALL_NEW';
  readonly ReturnValuesOnConditionCheckFailure?: 'ALL_OLD';
}

/** A strongly consistent read: every conditional write decides from what was really there. */
export async function readItem(t: Table, id: string): Promise<StoredItem | undefined> {
  const out = await t.doc.send(new GetCommand({ TableName: t.name, Key: { id }, ConsistentRead: true }));
  return out.Item;
}

/** RecordInvalidError when the item does not parse. */
export async function readRecord(t: Table, id: string): Promise<ClusterRecord | undefined> {
  const item = await readItem(t, id);
  return item ? toRecord(item) : undefined;
}

/** The item as a record, as invalid (with why), as a claim, or undefined; never throws for its shape. */
export async function readParsed(t: Table, id: string): Promise<ParsedItem | undefined> {
  const item = await readItem(t, id);
  return item ? parseItem(item) : undefined;
}

/** A conditional UpdateItem; returns what `returns` asked for. */
export async function updateItem(
  t: Table,
  id: string,
  mutation: Mutation,
  condition: Expression,
  returns: UpdateReturns = {},
): Promise<StoredItem | undefined> {
  const out = await t.doc.send(
    new UpdateCommand({ TableName: t.name, Key: { id }, ...updateParams(mutation, condition), ...returns }),
  );
  return out.Attributes;
}

/** A conditional UpdateItem whose caller returns the record it wrote: the item after it (ALL_NEW). */
export async function updateAndRead(
  t: Table,
  id: string,
  mutation: Mutation,
  condition: Expression,
): Promise<StoredItem> {
  const after = await updateItem(t, id, mutation, condition, { ReturnValues: 'ALL_NEW' });
  // A successful update always leaves an item, so ALL_NEW always carries one.
  if (!after) throw new InternalError(`${id}: UpdateItem returned no item`);
  return after;
}

export function isConditionFailure(err: unknown): err is ConditionalCheckFailedException {
  return err instanceof ConditionalCheckFailedException;
}

/** The item as the table holds it: the document client drops undefined members on write. */
export function asStored(item: StoredItem): StoredItem {
  return unmarshall(marshall(item, { removeUndefinedValues: true }));
}
