/**
 * Credentials in the Lambda bundles (infra/bundling/function-bundling.mjs, LAMBDA_REPLACEMENTS): the
 * SDK's default chain is the environment's provider alone, where Lambda puts the function role's
 * credentials, and the EKS functions still assume their role in a target account. Each bundle runs in
 * a fresh node, as Lambda runs it, with only the environment it is given.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { buildFunction } from '../../infra/bundling/build-function.mjs';
import { FUNCTION_OUTFILE } from '../../infra/bundling/function-bundling.mjs';
import { PROJECT_ROOT } from '../../infra/lib/functions.js';
import { FUNCTIONS } from '../../lambdas/functions/catalog.js';
import { DynamoDesiredStateStore } from '../../lambdas/store/dynamo-store.js';
import { createTable } from '../../local/store/table.js';
import { spec } from '../core/support/fixtures.js';
import { useSimulator } from '../eks-sim/support.js';
import { dynamoClient, startDynalite } from '../store/servers.js';

const built = mkdtempSync(join(tmpdir(), 'cloudorch-bundle-credentials-'));
afterAll(() => rmSync(built, { recursive: true, force: true }));

const ENV_CREDENTIALS = {
  AWS_ACCESS_KEY_ID: 'AKIDFROMENV',
  AWS_SECRET_ACCESS_KEY: 'secret',
  AWS_SESSION_TOKEN: 'tok',
};

/** Imports a built bundle in a fresh node and prints what `call` (given its module `m`) resolves or throws. */
async function runBundle(dir: string, call: string, env: Record<string, string>): Promise<string> {
  const url = pathToFileURL(join(dir, FUNCTION_OUTFILE)).href;
  const code = `const m = await import(${JSON.stringify(url)});
    await (${call}).then((r) => console.log(JSON.stringify(r ?? 'ok')), (e) => console.log(e.name + ': ' + e.message));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', code], {
    env: { PATH: process.env['PATH'] ?? '', AWS_REGION: 'us-east-1', POWERTOOLS_LOG_LEVEL: 'SILENT', ...env },
  });
  return stdout.trim();
}

describe('credentials in a Lambda bundle', () => {
  it('signs with the credentials Lambda puts in the environment, and without them names those variables', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const dynamodb = createServer((req, res) => {
      seen.push(req.headers);
      req.resume();
      res.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
      res.end(
        JSON.stringify({
          __type: 'com.amazonaws.dynamodb.v20120810#ResourceNotFoundException',
          message: 'no table',
        }),
      );
    });
    await new Promise<void>((r) => dynamodb.listen(0, '127.0.0.1', r));
    try {
      const dir = join(built, 'lease');
      await buildFunction(
        PROJECT_ROOT,
        join(PROJECT_ROOT, 'lambdas', 'functions', FUNCTIONS.lease.entry),
        dir,
      );
      const release = JSON.stringify({ action: 'release', id: 'default/web', owner: 'execution-1' });
      const env = {
        AWS_ENDPOINT_URL_DYNAMODB: `http://127.0.0.1:${(dynamodb.address() as AddressInfo).port}`,
        CLOUDORCH_TABLE_NAME: 'desired-state',
        POWERTOOLS_METRICS_DISABLED: 'true',
      };
      expect(await runBundle(dir, `m.handler(${release})`, { ...env, ...ENV_CREDENTIALS })).toContain(
        'no table',
      );
      expect(seen.map((h) => String(h.authorization).match(/Credential=(\w+)\//)?.[1])).toEqual([
        'AKIDFROMENV',
      ]);
      expect(seen[0]?.['x-amz-security-token']).toBe('tok');
      const without = await runBundle(dir, `m.handler(${release})`, env);
      // The bundles' DynamoDB client (LAMBDA_REPLACEMENTS) names the variables, as a permanent error.
      expect(without).toContain('PermanentError');
      expect(without).toContain('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set');
      expect(without).toContain('Lambda sets them for the function role');
      expect(seen).toHaveLength(1);
    } finally {
      dynamodb.close();
    }
  }, 120_000);

  it('the lease bundle takes, refuses and releases a lease on a DynamoDB-compatible table, signing its own requests', async () => {
    const server = await startDynalite();
    const sdk = dynamoClient(server);
    try {
      const table = 'desired-state-bundle';
      await createTable(sdk, table, { stream: false });
      const store = new DynamoDesiredStateStore({ client: sdk, tableName: table });
      await store.applySpec('default/web', spec({ clusterName: 'web' }));
      const dir = join(built, 'lease-table');
      await buildFunction(
        PROJECT_ROOT,
        join(PROJECT_ROOT, 'lambdas', 'functions', FUNCTIONS.lease.entry),
        dir,
      );
      const env = {
        ...ENV_CREDENTIALS,
        AWS_ENDPOINT_URL_DYNAMODB: server.endpoint,
        CLOUDORCH_TABLE_NAME: table,
        POWERTOOLS_METRICS_DISABLED: 'true',
      };
      const lease = (action: string, owner: string) =>
        runBundle(dir, `m.handler(${JSON.stringify({ action, id: 'default/web', owner })})`, env);
      expect(await lease('acquire', 'execution-1')).toBe('{"acquired":true}');
      // A failed condition's old item (ALL_OLD) names the holder, read through the bundled client.
      expect(await lease('acquire', 'execution-2')).toBe('{"acquired":false,"holder":"execution-1"}');
      expect((await store.get('default/web'))?.lease?.owner).toBe('execution-1');
      expect(await lease('release', 'execution-1')).toBe('{"released":true}');
      expect((await store.get('default/web'))?.lease).toBeUndefined();
    } finally {
      sdk.destroy();
      await server.stop();
    }
  }, 120_000);

  describe('an EKS function assumes its role in a target account', () => {
    const h = useSimulator();
    const OTHER = '222233334444';

    it('with the environment’s credentials, once; a missing role is AssumeRoleDenied', async () => {
      // The provider as the EKS functions bundle it, built with the same options.
      const entry = join(built, 'assume-role.ts');
      writeFileSync(
        entry,
        `import { EksProvider } from ${JSON.stringify(join(PROJECT_ROOT, 'lambdas/provider/eks-provider.ts'))};
export async function observe(endpoint: string) {
  const p = new EksProvider({ endpoint, targetRoleName: 'cloudorch-observe' });
  try {
    const o = await p.observe({ clusterName: 'none', region: 'us-east-1', accountId: '${OTHER}' });
    return o.cluster ?? 'no cluster';
  } catch (e) {
    throw Object.assign(new Error(\`\${(e as { code?: string }).code}: \${(e as Error).message}\`), { name: 'Error' });
  } finally {
    p.clients.destroy();
  }
}
`,
      );
      const dir = join(built, 'assume-role');
      await buildFunction(PROJECT_ROOT, entry, dir);
      const call = `m.observe(${JSON.stringify(h.sim.url)})`;
      const missing = await runBundle(dir, call, ENV_CREDENTIALS);
      expect(missing).toContain('AssumeRoleDenied');
      await h.admin.createRole(OTHER, 'cloudorch-observe');
      expect(await runBundle(dir, call, ENV_CREDENTIALS)).toBe('"no cluster"');
      expect((await h.admin.calls())['AssumeRole']?.requests).toBe(2);
      // No base credentials, no AssumeRole: the error names where Lambda puts them.
      expect(await runBundle(dir, call, {})).toContain('AWS_ACCESS_KEY_ID');
      expect((await h.admin.calls())['AssumeRole']?.requests).toBe(2);
    }, 120_000);
  });
});
