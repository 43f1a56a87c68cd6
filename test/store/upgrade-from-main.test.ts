/**
 * A record written before node pools (flat spec, its hash) re-applied unchanged after the upgrade:
 * the store compares it normalised, so nothing is written, no generation is bumped, no run starts.
 * The record is main's own raw item (test/fixtures/upgrade-from-main), put straight into the table.
 */
import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateSpec } from '../../lambdas/core/spec/validate.js';
import { DynamoDesiredStateStore } from '../../lambdas/store/dynamo-store.js';
import { createTable } from '../../local/store/table.js';
import fixtures from '../fixtures/upgrade-from-main/records.json' with { type: 'json' };
import { type DynamoServer, dynamoClient, startDynalite } from './servers.js';
import { uniqueTable } from './support.js';

interface Fixture {
  readonly spec: unknown;
  readonly record: { readonly raw: Record<string, never> };
  readonly claims: readonly { readonly raw: Record<string, never> }[];
}
const fixture = (id: string) => (fixtures as unknown as Record<string, Fixture>)[id]!;

describe('a flat-field record from main, re-applied after the upgrade', () => {
  let server: DynamoServer;
  let store: DynamoDesiredStateStore;
  const client = () => dynamoClient(server);
  const table = uniqueTable();

  beforeAll(async () => {
    server = await startDynalite();
    await createTable(client(), table);
    store = new DynamoDesiredStateStore({ client: client(), tableName: table });
  });
  afterAll(async () => server?.stop());

  it.each(['team/legacy-basic', 'team/legacy-spot-external', 'team/legacy-network'])(
    '%s: unchanged, nothing written',
    async (id) => {
      const f = fixture(id);
      const c = client();
      await c.send(new PutItemCommand({ TableName: table, Item: f.record.raw }));
      for (const claim of f.claims) await c.send(new PutItemCommand({ TableName: table, Item: claim.raw }));
      const before = await store.get(id);
      const v = validateSpec(f.spec);
      if (!v.ok) throw new Error(JSON.stringify(v.issues));
      const r = await store.applySpec(id, v.spec);
      expect(r).toMatchObject({ changed: false, created: false });
      const after = await store.get(id);
      expect(after?.generation).toBe(before?.generation);
      expect(after?.version).toBe(before?.version);
      // A real change still writes, in the normalised form.
      const changed = await store.applySpec(id, {
        ...v.spec,
        nodeGroups: v.spec.nodeGroups.map((p) => ({ ...p, nodeCount: p.nodeCount + 1, maxSize: 10 })),
      });
      expect(changed).toMatchObject({ changed: true });
      expect((await store.get(id))?.spec).toHaveProperty('nodeGroups');
    },
  );
});
