/**
 * What each program loads, read from esbuild's metafile (type-only imports are erased, as at run
 * time): synthesis loads no AWS SDK client, no policy engine and no Powertools, only names; each
 * function's bundle holds the SDK clients its capabilities name and no other.
 */
import { join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { esbuildOptions } from '../../infra/bundling/function-bundling.mjs';
import { PROJECT_ROOT } from '../../infra/lib/functions.js';
import { FUNCTIONS, type FunctionKey } from '../../lambdas/functions/catalog.js';

async function metafile(entry: string, externalPackages: boolean): Promise<Metafile> {
  const r = await build({
    entryPoints: [join(PROJECT_ROOT, entry)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    write: false,
    metafile: true,
    logLevel: 'silent',
    mainFields: ['module', 'main'],
    ...(externalPackages ? { packages: 'external' as const } : {}),
  });
  return r.metafile;
}

/** The npm packages a bundle's inputs come from. */
const packagesIn = (m: Metafile) =>
  new Set(
    Object.keys(m.inputs).flatMap((f) => {
      const p = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(f)?.[1];
      return p ? [p] : [];
    }),
  );

/** What runs a Lambda's code rather than describing it. */
const RUNTIME_ONLY = /^(@aws-sdk\/|@smithy\/|@open-policy-agent\/|@aws-lambda-powertools\/)/;

describe('synthesis', () => {
  it("imports no AWS SDK client, policy engine or Powertools, directly or through the app's modules", async () => {
    const m = await metafile('infra/bin/app.ts', true);
    const loaded = Object.entries(m.inputs).flatMap(([file, input]) =>
      input.imports.filter((i) => i.external && RUNTIME_ONLY.test(i.path)).map((i) => `${file} -> ${i.path}`),
    );
    expect(loaded).toEqual([]);
    // The check saw the app's own modules, lambdas/ included (the catalog, the names, the definition).
    expect(Object.keys(m.inputs)).toEqual(
      expect.arrayContaining(['infra/lib/cloudorch.ts', 'lambdas/config.ts', 'lambdas/functions/catalog.ts']),
    );
  }, 60_000);
});

/** Written out by hand from the capabilities: the SDK clients (and engine) each bundle may carry. */
const CLIENTS: Record<FunctionKey, string[]> = {
  lease: ['@aws-sdk/client-dynamodb', '@aws-sdk/client-sfn'],
  observe: ['@aws-sdk/client-dynamodb', '@aws-sdk/client-eks'],
  plan: [],
  policy: ['@open-policy-agent/opa-wasm'],
  apply: ['@aws-sdk/client-dynamodb', '@aws-sdk/client-eks'],
  writeStatus: ['@aws-sdk/client-dynamodb'],
  classifyError: [],
  onChange: ['@aws-sdk/client-sfn'],
  sweep: ['@aws-sdk/client-dynamodb'],
  sweepShard: ['@aws-sdk/client-dynamodb', '@aws-sdk/client-eks', '@aws-sdk/client-sfn'],
  driftEvent: ['@aws-sdk/client-dynamodb', '@aws-sdk/client-eks', '@aws-sdk/client-sfn'],
  reconcileNow: ['@aws-sdk/client-dynamodb', '@aws-sdk/client-sfn'],
  // The rollout table and the records are both DynamoDB; the report tells SNS, the watch reads alarms.
  rolloutPlan: ['@aws-sdk/client-dynamodb'],
  rolloutApply: ['@aws-sdk/client-dynamodb'],
  rolloutWatch: ['@aws-sdk/client-dynamodb', '@aws-sdk/client-cloudwatch'],
  rolloutReport: ['@aws-sdk/client-dynamodb', '@aws-sdk/client-sns'],
};
const CLIENT_PACKAGES = /^@aws-sdk\/client-|^@open-policy-agent\//;

describe('function bundles', () => {
  it.each(Object.keys(FUNCTIONS) as FunctionKey[])(
    '%s carries only the clients it uses',
    async (key) => {
      const m = await metafile(join('lambdas/functions', FUNCTIONS[key].entry), false);
      const clients = [...packagesIn(m)].filter((p) => CLIENT_PACKAGES.test(p)).sort();
      expect(clients).toEqual([...CLIENTS[key]].sort());
    },
    60_000,
  );
});

describe('function bundles as deployed (LAMBDA_REPLACEMENTS)', () => {
  it.each(Object.keys(FUNCTIONS) as FunctionKey[])(
    "%s signs its own DynamoDB requests: no SDK DynamoDB client, the bundles' own where it uses the tables",
    async (key) => {
      const entry = join(PROJECT_ROOT, 'lambdas/functions', FUNCTIONS[key].entry);
      const r = await build({
        ...esbuildOptions(PROJECT_ROOT, entry, join(PROJECT_ROOT, 'out')),
        write: false,
        metafile: true,
      });
      const inputs = Object.keys(r.metafile.inputs);
      const replaced = ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', '@aws-sdk/dynamodb-codec'];
      expect([...packagesIn(r.metafile)].filter((p) => replaced.includes(p))).toEqual([]);
      expect(inputs.includes('lambdas/aws/dynamodb-client.ts')).toBe(
        CLIENTS[key].includes('@aws-sdk/client-dynamodb'),
      );
    },
    60_000,
  );
});
