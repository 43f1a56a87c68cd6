/**
 * What a function's bundle does when Lambda loads it (docs/performance.md, "Bundles"): it reads
 * Node's built-ins as CommonJS through the shims (an ES module import of `node:http` alone loads
 * Node's whole fetch implementation), holds no schema library (the spec, the rollout and the table
 * items are checked by plain functions: lambdas/core/spec/kit.ts, lambdas/store/shape.ts), functions
 * that validate no spec (the planner, the lease, the sweep dispatcher...) load no spec schema; code behind a dynamic import (the STS client of assumed roles, the spec writer) is a chunk the cold
 * load does not read; the SDK's credential chain is the environment's provider alone, and the policy
 * function carries no yaml library. Built with the options the construct and prepack use.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { crc32, type gunzipSync, gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { buildFunction } from '../../infra/bundling/build-function.mjs';
import {
  BUILTIN_SHIMS,
  esbuildOptions,
  FUNCTION_OUTFILE,
  LAMBDA_REPLACEMENTS,
} from '../../infra/bundling/function-bundling.mjs';
import { PROJECT_ROOT } from '../../infra/lib/functions.js';
import { FUNCTIONS, type FunctionKey } from '../../lambdas/functions/catalog.js';

interface Bundle {
  /** Every output file's code (index.mjs and its chunks). */
  readonly code: string;
  /** The inputs that left code in any output (the metafile lists tree-shaken ones too). */
  readonly inputs: string[];
  /** The inputs in index.mjs and the chunks it imports statically: what a cold load compiles. */
  readonly loaded: string[];
  /** The inputs left in the output that import node:zlib. */
  readonly zlibImporters: string[];
}

/** Each function is built once for all the checks below (a build is the same for every reader). */
const builds = new Map<FunctionKey, Promise<Bundle>>();
function bundle(key: FunctionKey): Promise<Bundle> {
  let b = builds.get(key);
  if (!b) {
    b = buildBundle(key);
    builds.set(key, b);
  }
  return b;
}

async function buildBundle(key: FunctionKey): Promise<Bundle> {
  const entry = join(PROJECT_ROOT, 'lambdas', 'functions', FUNCTIONS[key].entry);
  const r = await build({
    ...esbuildOptions(PROJECT_ROOT, entry, join(tmpdir(), 'cloudorch-bundle-load', key)),
    write: false,
    metafile: true,
  });
  const js = r.outputFiles.filter((f) => f.path.endsWith('.mjs'));
  if (!js.some((f) => f.path.endsWith(`/${FUNCTION_OUTFILE}`)))
    throw new Error(`no ${FUNCTION_OUTFILE} for ${key}`);
  const outputs = (r.metafile as Metafile).outputs;
  const used = (files: string[]) => [
    ...new Set(
      files.flatMap((o) =>
        Object.entries(outputs[o]?.inputs ?? {})
          .filter(([, i]) => i.bytesInOutput > 0)
          .map(([f]) => f),
      ),
    ),
  ];
  const start = Object.keys(outputs).find((o) => o.endsWith(`/${FUNCTION_OUTFILE}`));
  const loaded = new Set<string>();
  for (let next = start ? [start] : []; next.length > 0; ) {
    const o = next.pop() as string;
    if (loaded.has(o)) continue;
    loaded.add(o);
    next = [
      ...next,
      ...(outputs[o]?.imports ?? []).filter((i) => i.kind === 'import-statement').map((i) => i.path),
    ];
  }
  const inputs = used(Object.keys(outputs).filter((o) => o.endsWith('.mjs')));
  const zlibImporters = inputs.filter((f) =>
    (r.metafile as Metafile).inputs[f]?.imports.some((i) => i.original === 'node:zlib'),
  );
  return {
    code: js.map((f) => f.text).join('\n'),
    inputs,
    zlibImporters,
    loaded: used([...loaded].filter((o) => outputs[o])),
  };
}

/** Packages and modules a cold load must not compile: Lambda gives credentials in the environment. */
const ON_DEMAND = [
  /node_modules\/@aws-sdk\/nested-clients\//,
  /node_modules\/@aws-sdk\/credential-provider-(?:ini|sso|login|http|process|web-identity)\//,
  /node_modules\/@smithy\/credential-provider-imds\//,
];

/** Credential providers no bundle holds at all: the environment's is the one Lambda uses. */
const NEVER_BUNDLED = [
  /node_modules\/@aws-sdk\/credential-provider-(?:node|ini|sso|login|http|process|web-identity)\//,
  /node_modules\/@smithy\/credential-provider-imds\//,
  /node_modules\/(?:@open-policy-agent\/opa-wasm\/node_modules\/)?yaml\//,
];

/**
 * Functions that never validate a spec: the spec schema (reached only by the spec writer) is a chunk.
 * The spec's facts, rules and schema kit may load.
 */
const SPEC_SCHEMA = /^lambdas\/core\/spec\/(?:schema|validate|pools|addons|access)\.ts$/;
const NO_SPEC_AT_LOAD: readonly FunctionKey[] = [
  'lease',
  'plan',
  'policy',
  'apply',
  'writeStatus',
  'classifyError',
  'onChange',
  'driftEvent',
  'reconcileNow',
  // The sweep dispatcher only scans and hands over: the shard run decides.
  'sweep',
  // They read a rollout's failure policy alone (core/rollout/failure-policy.ts).
  'rolloutWatch',
  'rolloutReport',
];

/**
 * Clients that load at the first call in functions most of whose runs never call them
 * (handlers/clients/sfn-at-first-call.ts, eks-at-first-call.ts).
 */
const SFN = /node_modules\/@aws-sdk\/client-sfn\//;
const EKS = /node_modules\/@aws-sdk\/client-eks\//;
const AT_FIRST_CALL: Partial<Record<FunctionKey, readonly RegExp[]>> = {
  lease: [SFN],
  sweepShard: [SFN],
  driftEvent: [SFN, EKS],
};

/** The modules the zlib shim serves (infra/bundling/builtins/zlib.cjs), each with what it calls. */
const ZLIB_IMPORTERS = ['/checksum/crc32/Crc32Node.js', 'lambdas/policy/bundle.ts'];

/** `import ... from "node:x"`, `import "node:x"` or `import("node:x")` left in the output. */
const ESM_BUILTIN = /(?:\bfrom\s*|\bimport\s*\(?\s*)["'](?:node:)?(?:[a-z_]+)(?:\/[a-z_]+)?["']/g;

const built = mkdtempSync(join(tmpdir(), 'cloudorch-bundle-load-'));
afterAll(() => rmSync(built, { recursive: true, force: true }));

describe('function bundles at load', () => {
  it.each(Object.keys(FUNCTIONS) as FunctionKey[])(
    '%s imports no Node built-in as an ES module, and holds no zod in any chunk',
    async (key) => {
      const { code, inputs, zlibImporters } = await bundle(key);
      // The zlib shim holds what its importers call, and nothing else: another importer needs it extended.
      expect(zlibImporters.filter((f) => !ZLIB_IMPORTERS.some((i) => f.endsWith(i)))).toEqual([]);
      // The banner's `module` is the one import left: it gives CommonJS code its `require`.
      const imports = [...code.matchAll(ESM_BUILTIN)]
        .map((m) => m[0])
        .filter((m) => !/["']module["']/.test(m));
      expect(imports).toEqual([]);
      // Building a schema library's schemas cost 15-25 ms of a cold load; the spec kit's cost nothing.
      expect(inputs.filter((f) => f.includes('node_modules/zod/') || f.endsWith('zod-locale.ts'))).toEqual(
        [],
      );
    },
    60_000,
  );

  it.each(Object.keys(FUNCTIONS) as FunctionKey[])(
    '%s compiles no code at load that it never runs there (credential providers, spec schema, clients loaded at first call)',
    async (key) => {
      const { loaded } = await bundle(key);
      expect(loaded.filter((f) => ON_DEMAND.some((p) => p.test(f)))).toEqual([]);
      if (NO_SPEC_AT_LOAD.includes(key)) expect(loaded.filter((f) => SPEC_SCHEMA.test(f))).toEqual([]);
      const later = AT_FIRST_CALL[key] ?? [];
      expect(loaded.filter((f) => later.some((p) => p.test(f)))).toEqual([]);
    },
    60_000,
  );

  it.each(Object.keys(FUNCTIONS) as FunctionKey[])(
    '%s, built as deployed (index.mjs and its chunks), loads in a fresh node, without zlib, and exports its handler',
    async (key) => {
      const dir = join(built, key);
      const files = await buildFunction(
        PROJECT_ROOT,
        join(PROJECT_ROOT, 'lambdas', 'functions', FUNCTIONS[key].entry),
        dir,
      );
      expect(files).toContain(FUNCTION_OUTFILE);
      const url = pathToFileURL(join(dir, FUNCTION_OUTFILE)).href;
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `const m = await import(${JSON.stringify(url)}); console.log(typeof m.handler, process.moduleLoadList.includes('NativeModule zlib'));`,
        ],
        { env: { PATH: process.env['PATH'] ?? '', AWS_REGION: 'us-east-1' } },
      );
      // zlib loads at its first call (infra/bundling/builtins/zlib.cjs): no function calls it.
      expect(stdout.trim()).toBe('function false');
    },
    60_000,
  );

  it.each(Object.keys(FUNCTIONS) as FunctionKey[])(
    '%s holds no credential provider but the environment’s, and no yaml library',
    async (key) => {
      const { inputs } = await bundle(key);
      expect(inputs.filter((f) => NEVER_BUNDLED.some((p) => p.test(f)))).toEqual([]);
      // The yaml stand-in only where the wasm SDK's yaml built-ins import it.
      const noYaml = LAMBDA_REPLACEMENTS['yaml']?.replace(/^\.\//, '');
      expect(inputs.includes(noYaml ?? '?')).toBe(key === 'policy');
    },
    60_000,
  );

  it('has a shim for each aliased built-in, handing over that built-in (zlib at its first call)', () => {
    for (const [name, shim] of Object.entries(BUILTIN_SHIMS)) {
      const text = readFileSync(join(PROJECT_ROOT, shim), 'utf8');
      if (name === 'node:zlib') expect(text).toContain(`process.getBuiltinModule('${name}')`);
      else expect(text).toContain(`module.exports = process.getBuiltinModule('${name}');`);
    }
  });

  it('the zlib shim calls zlib itself, and serves every zlib function its importers use', async () => {
    const shim = (await import(join(PROJECT_ROOT, BUILTIN_SHIMS['node:zlib'] ?? '?'))) as {
      default: { crc32: typeof crc32; gunzipSync: typeof gunzipSync } & Record<string, unknown>;
    };
    expect(shim.default.crc32(Buffer.from('abc'), 7)).toBe(crc32(Buffer.from('abc'), 7));
    expect(shim.default.gunzipSync(gzipSync('bundle')).toString()).toBe('bundle');
    const importers = new Set(
      (await Promise.all((Object.keys(FUNCTIONS) as FunctionKey[]).map(bundle))).flatMap(
        (b) => b.zlibImporters,
      ),
    );
    expect(importers.size).toBeGreaterThan(0);
    for (const file of importers) {
      const text = readFileSync(join(PROJECT_ROOT, file), 'utf8');
      // Named imports from node:zlib, and members read off a namespace import of it.
      const named = [...text.matchAll(/import\s*\{([^}]*)\}\s*from\s*["']node:zlib["']/g)].flatMap((m) =>
        (m[1] ?? '').split(',').map((n) => n.trim().split(/\s+as\s+/)[0] ?? ''),
      );
      const ns = [...text.matchAll(/import\s*\*\s*as\s+(\w+)\s+from\s*["']node:zlib["']/g)].flatMap((m) => [
        ...text.matchAll(new RegExp(`\\b${m[1]}\\.(\\w+)`, 'g')),
      ]);
      const used = [...named, ...ns.map((m) => m[1] ?? '')].filter((n) => n !== '');
      expect(used.length, file).toBeGreaterThan(0);
      for (const name of used)
        expect(typeof shim.default[name], `${file} uses zlib.${name}`).toBe('function');
    }
  }, 120_000);
});
