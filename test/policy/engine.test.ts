/**
 * The engine fails closed in every broken case, swaps bundles atomically, refuses bad reloads and
 * checks its source no more often than configured. Time is an injected clock; nothing waits.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { GetObjectCommand, GetObjectCommandOutput } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AwsRequestError } from '../../lambdas/aws/signed-http.js';
import type { PolicyInput } from '../../lambdas/core/policy-input.js';
import { parseBundle } from '../../lambdas/policy/bundle.js';
import { ENGINE_RULES } from '../../lambdas/policy/decision.js';
import { PolicyEngine } from '../../lambdas/policy/engine.js';
import { BundleSourceError } from '../../lambdas/policy/errors.js';
import { type ObjectGetter, policyEngineFromEnv } from '../../lambdas/policy/index.js';
import { sdkObjectGetter } from '../../lambdas/policy/sdk-object-getter.js';
import {
  type BundleSource,
  type FetchResult,
  FileBundleSource,
  S3BundleSource,
} from '../../lambdas/policy/sources.js';
import { buildPolicyBundle, POLICY_DIR } from '../../policies/build.js';
import { BUNDLE_PATH, CASES } from './support.js';
import { tarGz } from './tar.js';

/** A bundle source the test controls: what the next fetch returns, and when it resolves. */
class ScriptedSource implements BundleSource {
  readonly description = 'scripted';
  fetches = 0;
  next: { bytes: Uint8Array; version: string } | Error = new BundleSourceError('nothing scripted');
  gate: Promise<void> = Promise.resolve();

  async fetch(current: string | undefined): Promise<FetchResult> {
    this.fetches += 1;
    await this.gate;
    if (this.next instanceof Error) throw this.next;
    return this.next.version === current ? { changed: false } : { changed: true, ...this.next };
  }
}

let tmp: string;
let real: Uint8Array;
/** For sources that name no bucket: a reader never asked for. */
const noS3 = (): ObjectGetter => {
  throw new Error('no S3 reader in this test');
};
/** The real policies with a cost threshold no case reaches: same rules, a different decision. */
let lenient: Uint8Array;
/**
 * A hand-written policy: allows `{allow: true}`, is inconsistent on `{inconsistent: true}`, conflicts
 * on both; on `{approvals: x}` it returns x as its approvals (malformed ones among them).
 */
let fixture: Uint8Array;
/** A policy that allows everything, even an empty input. */
let permissive: Uint8Array;

/** The compiled policy of a bundle, read with the production reader. */
function wasmOf(bundle: Uint8Array): Uint8Array {
  return parseBundle(bundle).wasm;
}

async function buildFrom(
  name: string,
  files: Record<string, string> | 'copy',
  patch?: (dir: string) => Promise<void>,
) {
  const dir = join(tmp, name);
  if (files === 'copy') {
    const out = join(POLICY_DIR, 'build');
    await cp(POLICY_DIR, dir, { recursive: true, filter: (s) => s !== out && !s.startsWith(out + sep) });
  } else {
    await cp(POLICY_DIR, dir, { recursive: true, filter: (s) => s === POLICY_DIR || s.endsWith('.json') });
    for (const [f, text] of Object.entries(files)) await writeFile(join(dir, f), text);
  }
  await patch?.(dir);
  const { bundlePath } = await buildPolicyBundle({ policiesDir: dir, outDir: join(dir, 'build') });
  return new Uint8Array(await readFile(bundlePath));
}

const expensive = CASES.find((c) => c.name === 'cost above the threshold is denied')!.input;
const compliant = CASES.find((c) => c.name === 'dev-small example is allowed')!.input;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'cloudorch-engine-'));
  real = new Uint8Array(await readFile(BUNDLE_PATH));
  lenient = await buildFrom('lenient', 'copy', async (dir) => {
    const f = join(dir, 'settings.json');
    await writeFile(
      f,
      (await readFile(f, 'utf8')).replace('"monthlyThresholdUsd": 5000', '"monthlyThresholdUsd": 100000'),
    );
  });
  fixture = await buildFrom('fixture', {
    'p.rego': [
      'package cloudorch',
      'default decision := {"allow": false, "violations": [{"rule": "fixture", "message": "default deny", "severity": "error"}], "approvals": []}',
      'decision := {"allow": true, "violations": [], "approvals": []} if input.allow',
      'decision := {"allow": false, "violations": [], "approvals": []} if input.inconsistent',
      'decision := {"allow": true, "violations": []} if input.noApprovals',
      'decision := {"allow": true, "violations": [], "approvals": input.approvals} if input.approvals',
    ].join('\n\n'),
  });
  permissive = await buildFrom('permissive', {
    'p.rego': 'package cloudorch\n\ndecision := {"allow": true, "violations": [], "approvals": []}\n',
  });
});

afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

async function engineWith(bytes: Uint8Array | undefined): Promise<PolicyEngine> {
  const source = new ScriptedSource();
  if (bytes) source.next = { bytes, version: 'v1' };
  const engine = new PolicyEngine({ source });
  await engine.ready();
  return engine;
}

function expectDegradedDeny(engine: PolicyEngine, reason: RegExp) {
  for (const input of [compliant, expensive]) {
    expect(engine.evaluate(input)).toEqual({
      allow: false,
      violations: [
        { rule: ENGINE_RULES.degraded, message: expect.stringMatching(reason), severity: 'error' },
      ],
      approvals: [],
      bundleVersion: null,
    });
  }
  expect(engine.health()).toMatchObject({ status: 'degraded', reason: expect.stringMatching(reason) });
}

describe('fail closed', () => {
  it.each([
    { why: 'no bundle at all', bytes: undefined, reason: /nothing scripted/ },
    { why: 'random bytes', bytes: () => new Uint8Array([1, 2, 3, 4]), reason: /not gzip/ },
    {
      why: 'a truncated bundle',
      bytes: () => real.subarray(0, real.length >> 1),
      reason: /not gzip|truncated|tar/,
    },
    { why: 'gzip that is not a tar', bytes: () => gzipSync(Buffer.alloc(700, 7)), reason: /not a valid tar/ },
    {
      why: 'a bundle without policy.wasm',
      bytes: () => tarGz({ '/data.json': '{}' }),
      reason: /no \/policy\.wasm/,
    },
    {
      why: 'a corrupt policy.wasm',
      bytes: () => tarGz({ '/policy.wasm': 'not wasm', '/data.json': '{}' }),
      reason: /policy\.wasm does not load/,
    },
    {
      why: 'a bundle without data.json',
      bytes: () => tarGz({ '/policy.wasm': wasmOf(real) }),
      reason: /no \/data\.json/,
    },
    {
      why: 'a corrupt data.json',
      bytes: () => tarGz({ '/policy.wasm': wasmOf(real), '/data.json': '{"settings": ' }),
      reason: /data\.json is not valid JSON/,
    },
    {
      // The real policy without its data: the settings rule must deny, so the self-check holds.
      why: 'the real policy with empty data (self-check: must deny an empty input)',
      bytes: () => tarGz({ '/policy.wasm': wasmOf(real), '/data.json': '{}' }),
      reason: null,
    },
    { why: 'a policy that allows everything', bytes: () => permissive, reason: /allows an empty input/ },
  ])('$why', async ({ bytes, reason }) => {
    const engine = await engineWith(bytes?.());
    if (reason) {
      expectDegradedDeny(engine, reason);
    } else {
      // Loads, and denies everything through settings-valid: broken data never allows.
      const d = engine.evaluate(compliant);
      expect(d.allow).toBe(false);
      expect(d.violations.map((v) => v.rule)).toContain('settings-valid');
    }
  });

  it('denies when no source is configured, from the environment as the Lambdas start it', async () => {
    const engine = policyEngineFromEnv({}, 60, noS3);
    await engine.ready();
    expectDegradedDeny(engine, /no policy bundle configured/);
  });

  it('denies when the configured file is missing', async () => {
    const engine = policyEngineFromEnv(
      { CLOUDORCH_POLICY_BUNDLE_FILE: join(tmp, 'missing.tar.gz') },
      60,
      noS3,
    );
    await engine.ready();
    expectDegradedDeny(engine, /cannot read policy bundle/);
  });

  it('turns an evaluation error and a malformed decision into a deny, and counts them', async () => {
    const engine = await engineWith(fixture);
    expect(engine.evaluate({ allow: true } as unknown as PolicyInput).allow).toBe(true);
    const conflict = engine.evaluate({ allow: true, inconsistent: true } as unknown as PolicyInput);
    const inconsistent = engine.evaluate({ inconsistent: true } as unknown as PolicyInput);
    for (const [d, msg] of [
      [conflict, /conflict/],
      [inconsistent, /inconsistent decision: allow=false with 0 error/],
    ] as const) {
      expect(d).toEqual({
        allow: false,
        violations: [
          { rule: ENGINE_RULES.evaluationFailed, message: expect.stringMatching(msg), severity: 'error' },
        ],
        approvals: [],
        bundleVersion: 'v1',
      });
    }
    expect(engine.health()).toMatchObject({ status: 'ok', evaluationErrors: 2 });
    // The instance is still usable after a failed evaluation.
    expect(engine.evaluate({ allow: true } as unknown as PolicyInput).allow).toBe(true);
  });
});

describe('approvals', () => {
  const approve = { rule: 'r', operation: 'delete cluster x', reason: 'production' };

  it('passes well-formed approvals through on an allowed decision', async () => {
    const engine = await engineWith(fixture);
    expect(engine.evaluate({ approvals: [approve] } as unknown as PolicyInput)).toEqual({
      allow: true,
      violations: [],
      approvals: [approve],
      bundleVersion: 'v1',
    });
  });

  it.each([
    { why: 'a decision without approvals', input: { noApprovals: true }, msg: /not \{allow: boolean/ },
    { why: 'approvals that are not a list', input: { approvals: { r: 1 } }, msg: /not \{allow: boolean/ },
    {
      why: 'an approval without a reason',
      input: { approvals: [{ rule: 'r', operation: 'delete cluster x' }] },
      msg: /approvals\[0\] is not \{rule, operation, reason\}/,
    },
    {
      why: 'an approval whose operation is not a string',
      input: { approvals: [approve, { ...approve, operation: 7 }] },
      msg: /approvals\[1\] is not/,
    },
  ])('denies $why: a malformed decision is never an allow', async ({ input, msg }) => {
    const engine = await engineWith(fixture);
    expect(engine.evaluate(input as unknown as PolicyInput)).toEqual({
      allow: false,
      violations: [
        { rule: ENGINE_RULES.evaluationFailed, message: expect.stringMatching(msg), severity: 'error' },
      ],
      approvals: [],
      bundleVersion: 'v1',
    });
  });
});

describe('reload', () => {
  it('swaps atomically: the old bundle serves until the new one is loaded and checked', async () => {
    const source = new ScriptedSource();
    source.next = { bytes: real, version: 'strict' };
    const engine = new PolicyEngine({ source });
    await engine.ready();
    expect(engine.evaluate(expensive)).toMatchObject({ allow: false, bundleVersion: 'strict' });

    let open!: () => void;
    source.gate = new Promise((r) => {
      open = r;
    });
    source.next = { bytes: lenient, version: 'lenient' };
    const reloading = engine.reload();
    // Fetch in flight: decisions still come from the old bundle.
    expect(engine.evaluate(expensive)).toMatchObject({ allow: false, bundleVersion: 'strict' });
    open();
    expect(await reloading).toBe('loaded');
    expect(engine.evaluate(expensive)).toMatchObject({ allow: true, bundleVersion: 'lenient' });
    expect(engine.health()).toMatchObject({ status: 'ok', bundleVersion: 'lenient' });
  });

  it.each([
    { why: 'corrupt bytes', bad: () => new Uint8Array([0x1f, 0x8b, 0, 0]) },
    { why: 'a permissive policy', bad: () => permissive },
    { why: 'a fetch error', bad: () => new BundleSourceError('AccessDenied') },
  ])('refuses $why and keeps serving the old bundle', async ({ bad }) => {
    const source = new ScriptedSource();
    source.next = { bytes: real, version: 'good' };
    const engine = new PolicyEngine({ source });
    await engine.ready();
    const b = bad();
    source.next = b instanceof Error ? b : { bytes: b, version: 'bad' };
    expect(await engine.reload()).toBe('refused');
    expect(engine.evaluate(expensive)).toMatchObject({ allow: false, bundleVersion: 'good' });
    expect(engine.health()).toMatchObject({
      status: 'ok',
      bundleVersion: 'good',
      lastReloadError: expect.any(String),
    });

    source.next = { bytes: lenient, version: 'fixed' };
    expect(await engine.reload()).toBe('loaded');
    expect(engine.health().lastReloadError).toBeUndefined();
  });

  it('recovers from degraded when a good bundle appears', async () => {
    const source = new ScriptedSource();
    const engine = new PolicyEngine({ source });
    await engine.ready();
    expect(engine.health().status).toBe('degraded');
    source.next = { bytes: real, version: 'v1' };
    expect(await engine.reload()).toBe('loaded');
    expect(engine.health().status).toBe('ok');
    expect(engine.evaluate(compliant)).toMatchObject({ allow: true, violations: [] });
  });

  it('checks the source at most once per interval, and shares one fetch between callers', async () => {
    let now = 1_000_000;
    const source = new ScriptedSource();
    source.next = { bytes: real, version: 'v1' };
    const engine = new PolicyEngine({ source, reloadIntervalMs: 60_000, clock: () => now });
    await Promise.all([engine.ready(), engine.ready()]);
    expect(source.fetches).toBe(1);

    now += 59_999;
    await engine.decide(compliant);
    expect(source.fetches).toBe(1);

    now += 1;
    source.next = { bytes: lenient, version: 'v2' };
    // The first caller checks; a second in the same interval does not.
    expect(await Promise.all([engine.reloadIfDue(), engine.reloadIfDue()])).toEqual(['loaded', 'skipped']);
    expect(source.fetches).toBe(2);
    // Forced reloads that overlap share one fetch.
    expect(await Promise.all([engine.reload(), engine.reload()])).toEqual(['unchanged', 'unchanged']);
    expect(source.fetches).toBe(3);
    expect((await engine.decide(expensive)).bundleVersion).toBe('v2');
  });

  it('reloads a changed file in local mode and ignores a rewrite with the same bytes', async () => {
    const path = join(tmp, 'local.tar.gz');
    await writeFile(path, real);
    const engine = new PolicyEngine({ source: new FileBundleSource(path), reloadIntervalMs: 0 });
    await engine.ready();
    const first = engine.health().bundleVersion;
    await writeFile(path, real);
    expect(await engine.reloadIfDue()).toBe('unchanged');
    await writeFile(path, lenient);
    expect(await engine.reloadIfDue()).toBe('loaded');
    expect(engine.health().bundleVersion).not.toBe(first);
    expect(engine.evaluate(expensive).allow).toBe(true);
  });
});

describe('S3 source', () => {
  /** Stands in for S3's GetObject, including the 304 it answers to a matching If-None-Match. */
  function fakeS3(objects: { etag: string | undefined; bytes: Uint8Array } | 'missing') {
    const calls: (string | undefined)[] = [];
    const getter: ObjectGetter = {
      async getObject(_bucket, _key, ifNoneMatch) {
        calls.push(ifNoneMatch);
        if (objects === 'missing')
          throw new AwsRequestError('NoSuchKey', 404, false, 'The specified key does not exist.');
        if (ifNoneMatch !== undefined && ifNoneMatch === objects.etag) return { notModified: true };
        return { notModified: false, etag: objects.etag, bytes: objects.bytes };
      },
      destroy: () => {},
    };
    return { getter, calls };
  }

  it('uses the ETag as version and a conditional GET for unchanged bundles', async () => {
    const { getter, calls } = fakeS3({ etag: '"e1"', bytes: real });
    const engine = new PolicyEngine({
      source: new S3BundleSource(getter, 'b', 'policy/bundle.tar.gz'),
      reloadIntervalMs: 0,
    });
    await engine.ready();
    expect(engine.health()).toMatchObject({
      status: 'ok',
      bundleVersion: '"e1"',
      source: 's3://b/policy/bundle.tar.gz',
    });
    expect(await engine.reloadIfDue()).toBe('unchanged');
    expect(calls).toEqual([undefined, '"e1"']);
  });

  it('fails closed when the object is missing or comes without an ETag', async () => {
    const missing = new PolicyEngine({ source: new S3BundleSource(fakeS3('missing').getter, 'b', 'k') });
    await missing.ready();
    expectDegradedDeny(
      missing,
      /cannot get policy bundle s3:\/\/b\/k: AwsRequestError: NoSuchKey \(HTTP 404\)/,
    );
    const unversioned = fakeS3({ etag: undefined, bytes: real }).getter;
    const noEtag = new PolicyEngine({ source: new S3BundleSource(unversioned, 'b', 'k') });
    await noEtag.ready();
    expectDegradedDeny(noEtag, /s3:\/\/b\/k returned no ETag/);
  });

  it("reads through the SDK's client for the bridge and the CLI, a 304 being no change", async () => {
    const sent: (string | undefined)[] = [];
    const client = {
      async send(command: GetObjectCommand): Promise<GetObjectCommandOutput> {
        sent.push(command.input.IfNoneMatch);
        if (command.input.IfNoneMatch === '"e1"')
          throw Object.assign(new Error('Not Modified'), { name: '304', $metadata: { httpStatusCode: 304 } });
        const body = { transformToByteArray: async () => real };
        return {
          $metadata: {},
          ETag: '"e1"',
          Body: body as unknown as NonNullable<GetObjectCommandOutput['Body']>,
        };
      },
      destroy: () => {},
    };
    const source = new S3BundleSource(sdkObjectGetter(client), 'b', 'k');
    expect(await source.fetch(undefined)).toMatchObject({ changed: true, version: '"e1"' });
    expect(await source.fetch('"e1"')).toEqual({ changed: false });
    expect(sent).toEqual([undefined, '"e1"']);
  });
});
