/**
 * The document commands the store uses, over the bundles' DynamoDB client (dynamodb-client.ts): what
 * the Lambda bundles load in place of `@aws-sdk/lib-dynamodb` (LAMBDA_REPLACEMENTS). Items are
 * translated as lib-dynamodb translates them, with the same `@aws-sdk/util-dynamodb` functions and
 * options: each value of a key, item or `ExpressionAttributeValues` is marshalled on its own (a
 * container keeps its `M` or `L`), and each value of an answer's item is unmarshalled.
 * Legacy parameters (`Expected`, `AttributeUpdates`, `ScanFilter`, ...) are refused, not passed raw.
 */
import { marshall, type marshallOptions, unmarshall, type unmarshallOptions } from '@aws-sdk/util-dynamodb';
import { InternalError } from '../core/errors.js';
import { type DynamoDBClient, DynamoDBCommand } from './dynamodb-client.js';

type Doc = Record<string, unknown>;
type Marshal = (v: unknown) => unknown;

/** `f` over each value of a map (functions dropped, undefined results left out), as lib-dynamodb does. */
function eachValue(map: unknown, f: Marshal): Doc | undefined {
  if (map === undefined || map === null) return undefined;
  const out: Doc = {};
  for (const [k, v] of Object.entries(map as Doc)) {
    // lib-dynamodb skips an undefined value before marshalling it, whatever the options say.
    if (v === undefined || typeof v === 'function') continue;
    const r = f(v);
    if (r !== undefined) out[k] = r;
  }
  return out;
}

function eachTable(map: unknown, f: (v: unknown) => unknown): Doc | undefined {
  if (map === undefined || map === null) return undefined;
  return Object.fromEntries(Object.entries(map as Doc).map(([t, v]) => [t, f(v)]));
}

const listOf = (v: unknown, f: (item: unknown) => unknown) => (Array.isArray(v) ? v.map(f) : v);

/** Which members of an input and of an output hold items (a map of attribute values). */
interface Translation {
  readonly input: (input: Doc, item: Marshal) => Doc;
  readonly output: (output: Doc, item: Marshal) => Doc;
}

const LEGACY = ['Expected', 'AttributeUpdates', 'ScanFilter', 'QueryFilter', 'ConditionalOperator'];

/** The document with the members given replaced, those given as undefined left as they were. */
function withMembers(doc: Doc, members: Doc): Doc {
  const out = { ...doc };
  for (const [k, v] of Object.entries(members)) if (v !== undefined) out[k] = v;
  return out;
}

const keyAndValues: Translation['input'] = (i, item) =>
  withMembers(i, { Key: item(i['Key']), ExpressionAttributeValues: item(i['ExpressionAttributeValues']) });
const attributes: Translation['output'] = (o, item) => withMembers(o, { Attributes: item(o['Attributes']) });

export class DocumentCommand {
  constructor(
    readonly operation: string,
    readonly input: Doc,
    readonly translation: Translation,
  ) {}
}

export class GetCommand extends DocumentCommand {
  constructor(input: Doc) {
    super('GetItem', input, {
      input: (i, item) => withMembers(i, { Key: item(i['Key']) }),
      output: (o, item) => withMembers(o, { Item: item(o['Item']) }),
    });
  }
}

export class PutCommand extends DocumentCommand {
  constructor(input: Doc) {
    super('PutItem', input, {
      input: (i, item) =>
        withMembers(i, {
          Item: item(i['Item']),
          ExpressionAttributeValues: item(i['ExpressionAttributeValues']),
        }),
      output: attributes,
    });
  }
}

export class UpdateCommand extends DocumentCommand {
  constructor(input: Doc) {
    super('UpdateItem', input, { input: keyAndValues, output: attributes });
  }
}

export class DeleteCommand extends DocumentCommand {
  constructor(input: Doc) {
    super('DeleteItem', input, { input: keyAndValues, output: attributes });
  }
}

export class ScanCommand extends DocumentCommand {
  constructor(input: Doc) {
    super('Scan', input, {
      input: (i, item) =>
        withMembers(i, {
          ExclusiveStartKey: item(i['ExclusiveStartKey']),
          ExpressionAttributeValues: item(i['ExpressionAttributeValues']),
        }),
      output: (o, item) =>
        withMembers(o, { Items: listOf(o['Items'], item), LastEvaluatedKey: item(o['LastEvaluatedKey']) }),
    });
  }
}

export class BatchGetCommand extends DocumentCommand {
  constructor(input: Doc) {
    const keys = (t: unknown, item: Marshal) =>
      withMembers(t as Doc, { Keys: listOf((t as Doc)['Keys'], item) });
    super('BatchGetItem', input, {
      input: (i, item) =>
        withMembers(i, { RequestItems: eachTable(i['RequestItems'], (t) => keys(t, item)) }),
      output: (o, item) =>
        withMembers(o, {
          Responses: eachTable(o['Responses'], (items) => listOf(items, item)),
          UnprocessedKeys: eachTable(o['UnprocessedKeys'], (t) => keys(t, item)),
        }),
    });
  }
}

export interface TranslateConfig {
  readonly marshallOptions?: marshallOptions;
  readonly unmarshallOptions?: unmarshallOptions;
}

export class DynamoDBDocumentClient {
  private constructor(
    private readonly client: DynamoDBClient,
    private readonly config: TranslateConfig,
  ) {}

  static from(client: DynamoDBClient, config: TranslateConfig = {}): DynamoDBDocumentClient {
    return new DynamoDBDocumentClient(client, config);
  }

  async send(command: DocumentCommand): Promise<Doc> {
    const legacy = LEGACY.filter((k) => command.input[k] !== undefined);
    if (legacy.length > 0)
      throw new InternalError(`the bundled document client does not translate ${legacy.join(', ')}`);
    const m = { ...this.config.marshallOptions, convertTopLevelContainer: true };
    const u = { ...this.config.unmarshallOptions, convertWithoutMapWrapper: true };
    const toItem = (map: unknown) => eachValue(map, (v) => marshall(v, m));
    const fromItem = (map: unknown) => eachValue(map, (v) => unmarshall(v as never, u));
    const input = command.translation.input(command.input, toItem);
    const out = await this.client.send(new DynamoDBCommand(command.operation, input));
    return command.translation.output(out, fromItem);
  }

  destroy(): void {
    this.client.destroy();
  }
}
