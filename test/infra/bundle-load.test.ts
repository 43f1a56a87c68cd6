/**
 * What a function's bundle does when Lambda loads it (docs/performance.md, "Bundles"): it reads
 * Node's built-ins as CommonJS through the shims (an ES module import of `node:http` alone loads
 * Node's whole fetch implementation), carries none of zod's locales, and the pure planner no zod.
 * Built with the options the construct and prepack use.
 */
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { BUILTIN_SHIMS, esbuildOptions, FUNCTION_OUTFILE } from '../../infra/bundling/function-bundling.mjs';
import { PROJECT_ROOT } from '../../infra/lib/functions.js';
import { FUNCTIONS, type FunctionKey } from '../../lambdas/functions/catalog.js';

async function bundle(key: FunctionKey): Promise<{ code: string; inputs: string[] }> {
  const entry = join(PROJECT_ROOT, 'lambdas', 'functions', FUNCTIONS[key].entry);
  const r = await build({
    ...esbuildOptions(PROJECT_ROOT, entry, join(tmpdir(), 'cloudorch-bundle-load', key)),
    write: false,
    metafile: true,
  });
  const out = r.outputFiles.find((f) => f.path.endsWith(FUNCTION_OUTFILE));
  if (!out) throw new Error(`no ${FUNCTION_OUTFILE} for ${key}`);
  // The inputs that left code in the bundle (the metafile lists tree-shaken ones too).
  const meta = (r.metafile as Metafile).outputs;
  const used = Object.entries(meta).find(([path]) => path.endsWith(FUNCTION_OUTFILE))?.[1].inputs ?? {};
  return { code: out.text, inputs: Object.keys(used).filter((f) => (used[f]?.bytesInOutput ?? 0) > 0) };
}

/** `import ... from "node:x"`, `import "node:x"` or `import("node:x")` left in the output. */
const ESM_BUILTIN = /(?:\bfrom\s*|\bimport\s*\(?\s*)["'](?:node:)?(?:[a-z_]+)(?:\/[a-z_]+)?["']/g;

describe('function bundles at load', () => {
  it.each(Object.keys(FUNCTIONS) as FunctionKey[])(
    '%s imports no Node built-in as an ES module, and no zod locale',
    async (key) => {
      const { code, inputs } = await bundle(key);
      // The banner's `module` is the one import left: it gives CommonJS code its `require`.
      const imports = [...code.matchAll(ESM_BUILTIN)]
        .map((m) => m[0])
        .filter((m) => !/["']module["']/.test(m));
      expect(imports).toEqual([]);
      expect(inputs.filter((f) => /zod\/v4\/locales\/(?!en\.js)/.test(f))).toEqual([]);
      if (key === 'plan') expect(inputs.filter((f) => f.includes('node_modules/zod/'))).toEqual([]);
    },
    60_000,
  );

  it('has a shim for each aliased built-in, handing over that built-in', () => {
    for (const [name, shim] of Object.entries(BUILTIN_SHIMS)) {
      const text = readFileSync(join(PROJECT_ROOT, shim), 'utf8');
      expect(text).toContain(`module.exports = process.getBuiltinModule('${name}');`);
    }
  });
});
