/**
 * The policy function's signed GET of its bundle. Against moto with its access checks on (after the
 * setup requests, moto verifies every request's SigV4 signature with botocore's implementation and
 * evaluates the caller's IAM policies), and against a stand-in that fails on purpose, for the
 * retries, their growing jittered waits, timeouts and limits.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildFunction } from '../../infra/bundling/build-function.mjs';
import { FUNCTION_OUTFILE } from '../../infra/bundling/function-bundling.mjs';
import { PROJECT_ROOT } from '../../infra/lib/functions.js';
import { AwsRequestError } from '../../lambdas/aws/signed-http.js';
import { ENV } from '../../lambdas/config.js';
import { wasmPolicy } from '../../lambdas/handlers/clients/policy.js';
import { compose } from '../../lambdas/handlers/compose.js';
import { PolicyEngine, S3BundleSource } from '../../lambdas/policy/index.js';
import { type SignedGetterOptions, signedObjectGetter } from '../../lambdas/policy/signed-get.js';
import { field, type Keys, query, userKeys } from '../aws/support/moto-iam.js';
import { type Moto, startMoto } from '../provider/support/moto.js';
import { BUNDLE_PATH } from './support.js';

const BUCKET = 'cloudorch-policy';
const KEY = "policy/bundle (1)+'x'.tar.gz";
/** The requests moto serves before it checks signatures and policies: the setup below makes exactly these. */
const SETUP_REQUESTS = 8;

const readPolicy = (resource: string) =>
  JSON.stringify({
    Version: '2012-10-17',
    Statement: [{ Effect: 'Allow', Action: 's3:GetObject', Resource: resource }],
  });

/** Temporary credentials, as Lambda gives a function: an assumed role's, with a session token. */
async function roleKeys(url: string): Promise<Keys> {
  const trust = JSON.stringify({
    Version: '2012-10-17',
    Statement: [
      { Effect: 'Allow', Principal: { AWS: 'arn:aws:iam::123456789012:root' }, Action: 'sts:AssumeRole' },
    ],
  });
  const role = await query(url, 'iam', {
    Action: 'CreateRole',
    RoleName: 'policy-fn',
    AssumeRolePolicyDocument: trust,
  });
  await query(url, 'iam', {
    Action: 'PutRolePolicy',
    RoleName: 'policy-fn',
    PolicyName: 'p',
    PolicyDocument: readPolicy(`arn:aws:s3:::${BUCKET}/policy/*`),
  });
  const xml = await query(url, 'sts', {
    Action: 'AssumeRole',
    RoleArn: field(role, 'Arn'),
    RoleSessionName: 's',
  });
  return {
    accessKeyId: field(xml, 'AccessKeyId'),
    secretAccessKey: field(xml, 'SecretAccessKey'),
    sessionToken: field(xml, 'SessionToken'),
  };
}

describe('signed GET against S3 with its access checks (moto)', () => {
  let moto: Moto;
  let bundle: Buffer;
  let reader: Keys;
  let role: Keys;
  const getter = (keys: Keys, over: Partial<SignedGetterOptions> = {}) =>
    signedObjectGetter(new URL(moto.url), { region: 'us-east-1', credentials: () => keys, ...over });

  beforeAll(async () => {
    moto = await startMoto(process.env, { INITIAL_NO_AUTH_ACTION_COUNT: String(SETUP_REQUESTS) });
    bundle = await readFile(BUNDLE_PATH);
    const s3 = new S3Client({
      region: 'us-east-1',
      endpoint: moto.url,
      forcePathStyle: true,
      credentials: { accessKeyId: 'setup', secretAccessKey: 'setup' },
    });
    try {
      await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
      await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: KEY, Body: bundle }));
    } finally {
      s3.destroy();
    }
    reader = await userKeys(moto.url, 'reader', readPolicy(`arn:aws:s3:::${BUCKET}/policy/*`));
    role = await roleKeys(moto.url);
    // Every request from here on is checked: a wrong signature is refused (else the count above is off).
    const wrong = getter({ ...reader, secretAccessKey: 'wrong' });
    const e = await wrong.getObject(BUCKET, KEY, undefined).then(
      () => new Error(`moto did not check the signature: SETUP_REQUESTS (${SETUP_REQUESTS}) is too high`),
      (x: unknown) => x,
    );
    wrong.destroy();
    expect(e).toMatchObject({ code: 'SignatureDoesNotMatch' });
  }, 60_000);
  afterAll(async () => moto?.close());

  it('reads the object with its ETag, then gets a 304 for that ETag', async () => {
    const g = getter(reader);
    const first = await g.getObject(BUCKET, KEY, undefined);
    expect(first.notModified).toBe(false);
    if (first.notModified) return;
    expect(Buffer.from(first.bytes).equals(bundle)).toBe(true);
    expect(first.etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(await g.getObject(BUCKET, KEY, first.etag)).toEqual({ notModified: true });
    g.destroy();
  });

  it("signs with a role's temporary credentials and their session token", async () => {
    const g = getter(role);
    expect((await g.getObject(BUCKET, KEY, undefined)).notModified).toBe(false);
    const tampered = getter({ ...role, sessionToken: `${role.sessionToken}x` });
    await expect(tampered.getObject(BUCKET, KEY, undefined)).rejects.toMatchObject({
      code: 'InvalidToken',
      retryable: false,
    });
    g.destroy();
    tampered.destroy();
  });

  it('fails typed and at once on a wrong signature, a denied key or a missing object', async () => {
    const waits: number[] = [];
    const sleep = async (ms: number) => void waits.push(ms);
    const wrong = getter({ ...reader, secretAccessKey: `${reader.secretAccessKey}x` }, { sleep });
    const e = await wrong.getObject(BUCKET, KEY, undefined).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AwsRequestError);
    expect(e).toMatchObject({ code: 'SignatureDoesNotMatch', status: 403, retryable: false });
    const ok = getter(reader, { sleep });
    await expect(ok.getObject(BUCKET, 'elsewhere/bundle.tar.gz', undefined)).rejects.toMatchObject({
      code: 'AccessDenied',
      status: 403,
    });
    await expect(ok.getObject(BUCKET, 'policy/none.tar.gz', undefined)).rejects.toMatchObject({
      code: 'NoSuchKey',
      status: 404,
    });
    expect(waits).toEqual([]);
    // As the engine reports it: the object, then S3's code and message.
    const engine = new PolicyEngine({ source: new S3BundleSource(ok, BUCKET, 'elsewhere/b.tar.gz') });
    await engine.ready();
    // S3's request id comes last, for a support case.
    expect(engine.health().reason).toMatch(
      new RegExp(
        `^BundleSourceError: cannot get policy bundle s3://${BUCKET}/elsewhere/b.tar.gz: AwsRequestError: AccessDenied \\(HTTP 403\\): Access Denied \\(request \\S+\\)$`,
      ),
    );
    wrong.destroy();
    ok.destroy();
  });

  /** What Lambda and the stack give the policy function, the role's temporary credentials included. */
  const lambdaEnv = () => ({
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: role.accessKeyId,
    AWS_SECRET_ACCESS_KEY: role.secretAccessKey,
    AWS_SESSION_TOKEN: role.sessionToken,
    [ENV.policyBundleS3]: `s3://${BUCKET}/${KEY}`,
    [ENV.policyBundleEndpoint]: moto.url,
  });

  it("is what the policy function's maker wires from its environment: the engine loads the bundle", async () => {
    const env = lambdaEnv();
    const { deps, close } = compose({ policy: wasmPolicy }, { env });
    await deps.policy.engine.ready();
    expect(deps.policy.engine.health()).toMatchObject({ status: 'ok', source: `s3://${BUCKET}/${KEY}` });
    close();
    const unset = compose({ policy: wasmPolicy }, { env: { ...env, [ENV.policyBundleEndpoint]: undefined } });
    await unset.deps.policy.engine.ready();
    expect(unset.deps.policy.engine.health()).toMatchObject({
      status: 'degraded',
      reason: expect.stringContaining(`${ENV.policyBundleEndpoint} is not set`),
    });
    const noKeys = compose({ policy: wasmPolicy }, { env: { ...env, AWS_SECRET_ACCESS_KEY: undefined } });
    await noKeys.deps.policy.engine.ready();
    expect(noKeys.deps.policy.engine.health().reason).toMatch(
      /MissingCredentialsError: .*AWS_SECRET_ACCESS_KEY/,
    );
    unset.close();
    noKeys.close();
  });
  it('works as the Lambda bundle builds it, in a fresh node with only the Lambda environment', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cloudorch-signed-get-'));
    try {
      const entry = join(dir, 'entry.ts');
      writeFileSync(
        entry,
        `import { compose } from ${JSON.stringify(join(PROJECT_ROOT, 'lambdas/handlers/compose.ts'))};
import { wasmPolicy } from ${JSON.stringify(join(PROJECT_ROOT, 'lambdas/handlers/clients/policy.ts'))};
export async function health() {
  const { deps, close } = compose({ policy: wasmPolicy }, { env: process.env });
  await deps.policy.engine.ready();
  close();
  return deps.policy.engine.health();
}
`,
      );
      await buildFunction(PROJECT_ROOT, entry, join(dir, 'out'));
      const url = pathToFileURL(join(dir, 'out', FUNCTION_OUTFILE)).href;
      const code = `console.log(JSON.stringify(await (await import(${JSON.stringify(url)})).health()))`;
      const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', code], {
        env: { PATH: process.env['PATH'] ?? '', ...lambdaEnv() },
      });
      expect(JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}')).toMatchObject({ status: 'ok' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
