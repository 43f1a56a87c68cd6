/**
 * The EKS reader and writer as the Lambda bundles carry them, with the plain schema keys
 * (infra/bundling/schema-keys.mjs) and without: against the EKS simulator, both bundles and the
 * sources observe the same facts and apply and fail the same way, so the schemas esbuild now drops
 * were none these calls need (error answers included, which the SDK reads through its registry).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { esbuildOptions } from '../../infra/bundling/function-bundling.mjs';
import { PROJECT_ROOT } from '../../infra/lib/functions.js';
import type { Observation } from '../../lambdas/core/observation.js';
import type { MutatingOperation } from '../../lambdas/core/plan/types.js';
import type { ApplyResult, ClusterRef, ObserveOptions } from '../../lambdas/core/provider.js';
import { createClusterOp, createNodegroupOp, ref, scalingOp } from '../provider/support/fixtures.js';
import { FAST_RETRY, startTarget, type Target, TEST_CREDENTIALS } from '../provider/support/servers.js';

interface Side {
  observe(r: ClusterRef, o?: ObserveOptions): Promise<Observation>;
  apply(op: MutatingOperation): Promise<ApplyResult>;
}
type Sides = (url: string) => Side;

const out = mkdtempSync(join(tmpdir(), 'cloudorch-schema-keys-behaviour-'));
const ENTRY = join(out, 'sides.ts');
writeFileSync(
  ENTRY,
  `import { EksReader } from ${JSON.stringify(join(PROJECT_ROOT, 'lambdas/provider/eks-reader.ts'))};
import { EksWriter } from ${JSON.stringify(join(PROJECT_ROOT, 'lambdas/provider/eks-writer.ts'))};
export function sides(url: string) {
  const opts = { endpoint: url, credentials: ${JSON.stringify(TEST_CREDENTIALS)}, retry: ${JSON.stringify(FAST_RETRY)} };
  const reader = new EksReader(opts);
  const writer = new EksWriter(opts);
  return { observe: (r: never, o: never) => reader.observe(r, o), apply: (op: never) => writer.apply(op) };
}
`,
);

/** The entry bundled as a function is, with or without the plugin, then imported. */
async function bundled(plain: boolean): Promise<Sides> {
  const dir = join(out, plain ? 'plain' : 'computed');
  const opts = esbuildOptions(PROJECT_ROOT, ENTRY, dir);
  await build({ ...opts, plugins: plain ? (opts.plugins ?? []) : [] });
  const m = (await import(pathToFileURL(join(dir, 'index.mjs')).href)) as { sides: Sides };
  return m.sides;
}

/** What a failure is, as the steps read it: its name (minified classes keep theirs), code and message. */
async function outcome<T>(p: Promise<T>): Promise<unknown> {
  // The time of an observation is its own.
  const timeless = (v: T) => JSON.parse(JSON.stringify(v, (k, x) => (k === 'observedAt' ? undefined : x)));
  return p.then(
    (v) => ({ ok: timeless(v) }),
    (e: Error & { code?: string }) => ({ error: e.name, code: e.code, message: e.message }),
  );
}

describe('bundled EKS sides with and without plain schema keys', () => {
  let target: Target;
  let plain: Side;
  let computed: Side;
  let source: Side;
  beforeAll(async () => {
    target = await startTarget('sim');
    const [p, c] = await Promise.all([bundled(true), bundled(false)]);
    plain = p(target.url);
    computed = c(target.url);
    const { sides } = (await import(pathToFileURL(ENTRY).href)) as { sides: Sides };
    source = sides(target.url);
  }, 120_000);
  afterAll(async () => {
    await target?.close();
    rmSync(out, { recursive: true, force: true });
  });

  const all = () => [plain, computed, source];
  const FULL: ObserveOptions = { addons: true, accessEntries: true, addonVersionsOf: ['vpc-cni'] };
  const same = async (f: (s: Side) => Promise<unknown>) => {
    const [a, b, c] = await Promise.all(all().map((s) => outcome(f(s))));
    expect(a).toEqual(c);
    expect(b).toEqual(c);
    return a;
  };
  const until = async (done: (o: Observation) => boolean) => {
    for (let i = 0; i < 400; i++) {
      if (done(await plain.observe(ref, FULL))) return;
      await new Promise((r) => setTimeout(r, 2));
    }
    throw new Error('not reached');
  };

  it('observe, apply and their errors are the same', async () => {
    expect(await same((s) => s.observe(ref, FULL))).toMatchObject({ ok: { cluster: null } });
    // Errors EKS answers, read through the SDK's error schemas.
    await same((s) => s.apply(scalingOp(3)));
    await same((s) => s.apply({ kind: 'DeleteCluster', clusterName: 'ghost', region: ref.region }));
    expect(await outcome(plain.apply(createClusterOp(target.accountId)))).toMatchObject({
      ok: { kind: 'CreateCluster' },
    });
    await until((o) => o.cluster?.status === 'ACTIVE');
    await same((s) => s.observe(ref, FULL));
    // A second create with the same token: the simulator replays the first answer.
    await same((s) => s.apply(createClusterOp(target.accountId)));
    expect(await outcome(computed.apply(createNodegroupOp(target.accountId)))).toMatchObject({
      ok: { kind: 'CreateNodegroup' },
    });
    await until((o) => o.nodegroups[0]?.status === 'ACTIVE');
    await same((s) => s.observe(ref, FULL));
    await same((s) => s.observe(ref, { nodegroupNames: ['none'], insightsUnlessAt: '1.31' }));
  }, 120_000);
});
