/**
 * The bundles' plugin that makes the SDK schema modules' computed constant keys plain
 * (infra/bundling/schema-keys.mjs): every schema module the functions bundle exports the same values
 * with and without it, and with it esbuild drops the schemas of operations a function never sends
 * (with the EKS reader and writer apart: lambdas/provider/eks-reader.ts, eks-writer.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { esbuildOptions } from '../../infra/bundling/function-bundling.mjs';
import { plainSchemaKeys, SCHEMA_MODULE, schemaKeysPlugin } from '../../infra/bundling/schema-keys.mjs';
import { PROJECT_ROOT } from '../../infra/lib/functions.js';
import { FUNCTIONS } from '../../lambdas/functions/catalog.js';

const out = mkdtempSync(join(tmpdir(), 'cloudorch-schema-keys-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** The schema modules of the clients the functions use, the STS client of assumed roles included. */
const MODULES = [
  '@aws-sdk/client-eks/dist-es/schemas/schemas_0.js',
  '@aws-sdk/client-sfn/dist-es/schemas/schemas_0.js',
  '@aws-sdk/client-sns/dist-es/schemas/schemas_0.js',
  '@aws-sdk/client-cloudwatch/dist-es/schemas/schemas_0.js',
  '@aws-sdk/nested-clients/dist-es/submodules/sts/schemas/schemas_0.js',
];

/** One module bundled alone (every export kept), with or without the plugin, then imported. */
async function load(module: string, plain: boolean): Promise<Record<string, unknown>> {
  const file = join(out, `${module.replace(/\W+/g, '-')}-${plain}.mjs`);
  const r = await build({
    stdin: {
      contents: `export * from ${JSON.stringify(join(PROJECT_ROOT, 'node_modules', module))};`,
      resolveDir: PROJECT_ROOT,
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    mainFields: ['module', 'main'],
    write: false,
    logLevel: 'silent',
    plugins: plain ? [schemaKeysPlugin] : [],
  });
  writeFileSync(file, r.outputFiles[0]?.text ?? '');
  return (await import(pathToFileURL(file).href)) as Record<string, unknown>;
}

/** Structural equality of two schema graphs: lazy references (functions) are followed, classes compared by name. */
function same(a: unknown, b: unknown, seen = new Map<object, unknown>()): boolean {
  if (typeof a === 'function' && typeof b === 'function') {
    if (/^class\b/.test(a.toString())) return a.name === b.name;
    return same((a as () => unknown)(), (b as () => unknown)(), seen);
  }
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) return Object.is(a, b);
  if (seen.get(a) === b) return true;
  seen.set(a, b);
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.join('\0') !== Object.keys(b).join('\0')) return false;
  return ka.every((k) => same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], seen));
}

describe('plain schema keys', () => {
  it('replaces a computed key naming a string constant, and nothing else', () => {
    const text = [
      'const _e = "error";',
      'const _p = "__proto__";',
      'const _q = "a\\"b";',
      'let _l = "let";',
      'export var X$ = [-3, n0, "X", { [_e]: _c, [_hE]: 403, [_p]: 1, [_q]: 2, [_l]: 3 }];',
    ].join('\n');
    const { text: plain, replaced } = plainSchemaKeys(text);
    expect(replaced).toBe(2);
    expect(plain).toContain('{ "error": _c, [_hE]: 403, [_p]: 1, "a\\"b": 2, [_l]: 3 }');
  });

  it.each(MODULES)(
    '%s exports the same schemas with and without it',
    async (module) => {
      expect(SCHEMA_MODULE.test(join(PROJECT_ROOT, 'node_modules', module))).toBe(true);
      const [before, after] = await Promise.all([load(module, false), load(module, true)]);
      expect(Object.keys(after).sort()).toEqual(Object.keys(before).sort());
      const differing = Object.keys(before).filter((k) => !same(before[k], after[k]));
      expect(differing).toEqual([]);
    },
    60_000,
  );

  it('each EKS function carries the schemas of the operations its side sends, and no other', async () => {
    const code = async (key: 'observe' | 'apply' | 'sweepShard') => {
      const entry = join(PROJECT_ROOT, 'lambdas/functions', FUNCTIONS[key].entry);
      const r = await build({ ...esbuildOptions(PROJECT_ROOT, entry, join(out, key)), write: false });
      return r.outputFiles.map((f) => f.text).join('\n');
    };
    // Shape names of the EKS schemas: no function sends Fargate or EKS Anywhere calls; the readers
    // (eks:read) send no mutating call and the writer (eks:write) no read of the observation.
    const NEVER = /"(?:\w*FargateProfile\w*|\w*EksAnywhereSubscription\w*)Request"/;
    const WRITES = /"(?:CreateNodegroup|UpdateClusterConfig|DeleteAddon|AssociateAccessPolicy)Request"/;
    const READS = /"(?:ListNodegroups|DescribeAddon|ListAccessEntries|ListInsights)Request"/;
    for (const key of ['observe', 'sweepShard'] as const) {
      const text = await code(key);
      expect(text, key).toMatch(/"DescribeClusterRequest"/);
      expect(text, key).not.toMatch(NEVER);
      expect(text, key).not.toMatch(WRITES);
    }
    const apply = await code('apply');
    expect(apply).toMatch(/"CreateNodegroupRequest"/);
    expect(apply).not.toMatch(NEVER);
    expect(apply).not.toMatch(READS);
  }, 120_000);
});
