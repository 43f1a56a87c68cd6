/**
 * What `cloudorch version` reports of a deployed stack, read where the stack keeps it: its version
 * from the table's `cloudorch.io/version` tag, the policy revision from the served bundle's
 * `.manifest`. A fact that cannot be read is unknown, with the reason, never guessed.
 */
import {
  DescribeTableCommand,
  type DynamoDBClient,
  ListTagsOfResourceCommand,
} from '@aws-sdk/client-dynamodb';
import { type BundleSource, parseBundle } from '../../../lambdas/policy/index.js';

export type Fact = { readonly value: string } | { readonly unknown: string };

export const VERSION_TAG = 'cloudorch.io/version';

const reason = (e: unknown) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));

export async function stackVersion(client: DynamoDBClient, table: string): Promise<Fact> {
  try {
    const arn = (await client.send(new DescribeTableCommand({ TableName: table }))).Table?.TableArn;
    if (!arn) return { unknown: `DescribeTable gave no ARN for table ${table}` };
    let next: string | undefined;
    do {
      const page = await client.send(new ListTagsOfResourceCommand({ ResourceArn: arn, NextToken: next }));
      const tag = page.Tags?.find((t) => t.Key === VERSION_TAG);
      if (tag?.Value) return { value: tag.Value };
      next = page.NextToken;
    } while (next);
    return { unknown: `table ${table} has no ${VERSION_TAG} tag` };
  } catch (e) {
    return { unknown: reason(e) };
  }
}

/** The `.manifest` revision of the bundle a source serves. */
export async function bundleRevision(source: BundleSource): Promise<Fact> {
  try {
    const fetched = await source.fetch(undefined);
    if (!fetched.changed)
      return { unknown: `${source.description} answered "not modified" to an unconditional get` };
    const revision = parseBundle(fetched.bytes).revision;
    return revision ? { value: revision } : { unknown: `${source.description} has no .manifest revision` };
  } catch (e) {
    return { unknown: reason(e) };
  }
}

export const factText = (f: Fact) => ('value' in f ? f.value : `unknown (${f.unknown})`);
