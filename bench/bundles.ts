/**
 * Bundles: synthesizes the CDK app (the same esbuild bundles `cdk deploy` uploads), then for each
 * Lambda prints its bundle size (index.mjs and its chunks, raw and gzip, as Lambda's zip limit counts
 * compressed bytes), the part of it a cold load reads (index.mjs and the chunks it imports
 * statically) and its cold module-load time: a fresh `node` process importing the bundle, as a Lambda cold start
 * does before the first invocation. Median of several fresh processes.
 *
 * Run: `npm run bench:bundles` (optional argument: fresh processes per bundle, default 9).
 */
import './lib/env.js';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { FUNCTIONS } from '../lambdas/functions/catalog.js';
import { fmt, run, section, summarize, table } from './lib/stats.js';

const exec = promisify(execFile);
const runs = Number(process.argv[2] ?? 9);

/** What the deployed functions get from the stack; the handlers only read it when invoked. */
const LAMBDA_ENV = {
  AWS_REGION: 'us-east-1',
  POWERTOOLS_LOG_LEVEL: 'SILENT',
  POWERTOOLS_METRICS_DISABLED: 'true',
};

const pascal = (k: string) => k[0]!.toUpperCase() + k.slice(1);

async function loadMs(file: string, nodeOptions: string | undefined): Promise<number> {
  const code = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); console.log(performance.now() - t);`;
  const { stdout } = await exec(process.execPath, ['--input-type=module', '-e', code], {
    // NODE_OPTIONS as the stack sets it for the function (--enable-source-maps), so the load is the deployed one.
    env: {
      PATH: process.env.PATH ?? '',
      ...LAMBDA_ENV,
      ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
    },
    timeout: 30_000,
  });
  return Number(stdout.trim().split('\n').pop());
}

/** The chunks a module imports statically (`import ... from"./chunk-X.mjs"`, minified), transitively. */
async function staticallyLoaded(dir: string, file: string, seen = new Set<string>()): Promise<Set<string>> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const text = await readFile(join(dir, file), 'utf8');
  for (const m of text.matchAll(/(?:\bfrom|\bimport)\s*["']\.\/([\w.-]+\.mjs)["']/g))
    await staticallyLoaded(dir, m[1] as string, seen);
  return seen;
}

async function main(): Promise<void> {
  section('Bundles: size and cold module-load time per Lambda');
  const out = await mkdtemp(join(tmpdir(), 'cloudorch-bench-synth-'));
  try {
    const t0 = performance.now();
    await exec('npx', ['cdk', 'synth', '-q', '--no-notices', '--output', out], {
      timeout: 300_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    console.log(`cdk synth in ${fmt.s(performance.now() - t0)}`);
    const template = JSON.parse(await readFile(join(out, 'CloudOrch.template.json'), 'utf8')) as {
      Resources: Record<
        string,
        {
          Type: string;
          Properties: { Code?: { S3Key?: string }; Environment?: { Variables?: Record<string, unknown> } };
        }
      >;
    };
    const rows = [['function', 'memory', 'code', 'gzip', 'read at load', 'load median', 'load max']];
    let total = 0;
    const bundles: { key: string; file: string; nodeOptions: string | undefined; cells: string[] }[] = [];
    for (const [key, spec] of Object.entries(FUNCTIONS)) {
      const logical = Object.entries(template.Resources).find(
        ([id, r]) => r.Type === 'AWS::Lambda::Function' && id.startsWith(`CloudOrchFunctions${pascal(key)}`),
      );
      const hash = logical?.[1].Properties.Code?.S3Key?.replace(/\.zip$/, '');
      const nodeOptions = logical?.[1].Properties.Environment?.Variables?.['NODE_OPTIONS'];
      if (!hash) throw new Error(`no bundle for ${key} in the synthesized template`);
      if (nodeOptions !== undefined && typeof nodeOptions !== 'string')
        throw new Error(
          `${key}: NODE_OPTIONS in the template is not a plain string, so the bench cannot set it`,
        );
      const dir = join(out, `asset.${hash}`);
      const code = new Map<string, Buffer>();
      for (const f of (await readdir(dir)).filter((x) => x.endsWith('.mjs')))
        code.set(f, await readFile(join(dir, f)));
      const sum = (files: Iterable<string>) => [...files].reduce((n, f) => n + (code.get(f)?.length ?? 0), 0);
      const bytes = sum(code.keys());
      const gz = [...code.values()].reduce((n, b) => n + gzipSync(b).length, 0);
      const atLoad = sum(await staticallyLoaded(dir, 'index.mjs'));
      total += bytes;
      const cells = [key, `${spec.memoryMb} MB`, fmt.kib(bytes), fmt.kib(gz), fmt.kib(atLoad)];
      bundles.push({ key, file: join(dir, 'index.mjs'), nodeOptions, cells });
    }
    // Sequential (parallel cold starts on 2 cores would measure contention, not loading), in rounds:
    // each round loads every bundle once, starting one further along, so a slow spell of the machine
    // falls on every function alike rather than on the few measured during it.
    const samples = new Map<string, number[]>(bundles.map((b) => [b.key, []]));
    for (let round = 0; round < runs; round++)
      for (let i = 0; i < bundles.length; i++) {
        const b = bundles[(i + round) % bundles.length] as (typeof bundles)[number];
        samples.get(b.key)?.push(await loadMs(b.file, b.nodeOptions));
      }
    for (const b of bundles) {
      const s = summarize(samples.get(b.key) ?? []);
      rows.push([...b.cells, fmt.ms(s.median), fmt.ms(s.max)]);
    }
    console.log(table(rows));
    console.log(
      `${Object.keys(FUNCTIONS).length} bundles, ${fmt.kib(total)} in total; load = import() of the bundle in a fresh node ` +
        `process (${runs} each, in rounds over all functions) with the function's NODE_OPTIONS, before any handler runs; Lambda's own init (runtime ` +
        'start, code download) is not included',
    );
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}

run(main);
