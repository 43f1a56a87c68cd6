/**
 * `cloudorch version`, `--version`, and the bundle `plan` judges with, through the real binary:
 * against `cloudorch dev` (a child process) the bundle dev serves, read and never rebuilt; against a
 * deployed stack (moto standing in for DynamoDB, S3 and EKS) the bundle the stack serves from its
 * bucket and the version tag on its table.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeTableCommand, DynamoDBClient, TagResourceCommand } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '../../lambdas/config.js';
import { parseBundle } from '../../lambdas/policy/index.js';
import { CliVersionError, packageVersion } from '../../local/cli/config/cli-version.js';
import { createTable } from '../../local/store/table.js';
import { type Moto, startMoto } from '../provider/support/moto.js';
import { CLI, type Dev, minimalEnv, ROOT, startDev } from './dev-child.js';

const EXAMPLE = join(ROOT, 'examples/dev-small.yaml');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const dir = mkdtempSync(join(tmpdir(), 'cloudorch-version-'));
const statePath = join(dir, 'dev.json');
/** Only what the CLI needs: no ambient AWS or CloudOrch settings of the machine running the tests. */
const BASE = minimalEnv(dir);

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}
function cloudorch(args: string[], env: Record<string, string> = BASE): Promise<Result> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env, cwd: ROOT, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

interface DevStateFile {
  policyBundle: { path: string; revision: string };
}
/** The state file, with the revision of the bundle it names (what `--watch-policies` keeps current). */
const devState = (): DevStateFile => {
  const { policyBundle } = JSON.parse(readFileSync(statePath, 'utf8')) as { policyBundle: { path: string } };
  return {
    policyBundle: { ...policyBundle, revision: parseBundle(readFileSync(policyBundle.path)).revision ?? '' },
  };
};
const fingerprint = (path: string) => ({
  sha: createHash('sha256').update(readFileSync(path)).digest('hex'),
  mtimeMs: statSync(path).mtimeMs,
});

let dev: Dev;
beforeAll(async () => {
  dev = await startDev({ dir, env: BASE, args: ['--port', '0', '--sweep-interval', '5'] });
}, 150_000);

afterAll(async () => {
  await dev?.stop();
});

describe('--version', () => {
  it("prints the CLI's version alone, with no target to reach", async () => {
    const r = await cloudorch(['--version'], { ...BASE, CLOUDORCH_DEV_STATE: join(dir, 'none.json') });
    expect(r).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
  });
});

describe("the CLI's own version", () => {
  it("is the nearest package.json named cloudorch above the module: a checkout's or an installed package's", () => {
    const root = mkdtempSync(join(tmpdir(), 'cloudorch-pkg-'));
    const pkg = join(root, 'app', 'node_modules', 'cloudorch');
    mkdirSync(join(pkg, 'dist'), { recursive: true });
    writeFileSync(join(root, 'app', 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0' }));
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'cloudorch', version: '9.8.7' }));
    // The bundle in dist/ of an installed package, and the sources of a checkout.
    expect(packageVersion(join(pkg, 'dist'))).toBe('9.8.7');
    expect(packageVersion(join(ROOT, 'local', 'cli', 'config'))).toBe(VERSION);
    // Someone else's package.json is not ours: no version is made up.
    expect(() => packageVersion(join(root, 'app'))).toThrow(CliVersionError);
  });
});

describe('against cloudorch dev', () => {
  it('version reports the bundle dev serves and its revision, and the stack version is the CLI', async () => {
    const { policyBundle } = devState();
    expect(policyBundle.revision).toMatch(/\S/);
    // AWS_REGION alone leaves the target alone: still dev.
    const r = await cloudorch(['version', '-o', 'json'], { ...BASE, AWS_REGION: 'eu-west-1' });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      cliVersion: VERSION,
      target: expect.stringMatching(/^cloudorch dev/),
      policyBundle: policyBundle.path,
      policyRevision: { value: policyBundle.revision },
      stackVersion: { value: VERSION },
    });
    const text = await cloudorch(['version']);
    expect(text.stdout).toContain(`cli version:      ${VERSION}\n`);
    expect(text.stdout).toContain(`policy revision:  ${policyBundle.revision}\n`);
  });

  it("plan judges with dev's bundle file and leaves it untouched", async () => {
    const { policyBundle } = devState();
    const before = fingerprint(policyBundle.path);
    const r = await cloudorch(['plan', '-f', EXAMPLE]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toMatch(/policy: allowed/);
    expect(fingerprint(policyBundle.path)).toEqual(before);
  });

  it('plan reads the bundle the state file names, never one of its own', async () => {
    const original = readFileSync(statePath, 'utf8');
    const missing = join(dir, 'gone', 'bundle.tar.gz');
    const state = JSON.parse(original) as DevStateFile;
    writeFileSync(
      statePath,
      JSON.stringify({ ...state, policyBundle: { ...state.policyBundle, path: missing } }),
    );
    try {
      const r = await cloudorch(['plan', '-f', EXAMPLE]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`error: cannot load the policy bundle file:${missing}`);
    } finally {
      writeFileSync(statePath, original);
    }
  });
});

describe('a state file whose dev no longer answers', () => {
  it('version says dev does not answer instead of a version; a call names dev and its state file', async () => {
    const original = readFileSync(statePath, 'utf8');
    const state = JSON.parse(original) as DevStateFile & { endpoints: Record<string, string> };
    // A live process id (this test's) with endpoints nobody listens on: a stopped dev whose id was reused.
    const dead = 'http://127.0.0.1:1';
    const stale = join(dir, 'stale.json');
    writeFileSync(
      stale,
      JSON.stringify({
        ...state,
        pid: process.pid,
        endpoints: { dynamodb: dead, eks: dead, sfn: dead, dashboard: dead },
      }),
    );
    const env = { ...BASE, CLOUDORCH_DEV_STATE: stale };
    const v = await cloudorch(['version', '-o', 'json'], env);
    expect(JSON.parse(v.stdout).stackVersion.unknown).toMatch(
      new RegExp(`^cloudorch dev does not answer at ${dead}.*; state file ${stale}$`),
    );
    const g = await cloudorch(['get'], env);
    expect(g.code).toBe(1);
    expect(g.stderr).toContain(`(target: cloudorch dev (dashboard ${dead}, state file ${stale}))`);
  });

  it('a corrupt state file is named, not taken for "no dev"', async () => {
    const corrupt = join(dir, 'corrupt.json');
    writeFileSync(corrupt, '{"pid": 1');
    const r = await cloudorch(['get'], { ...BASE, CLOUDORCH_DEV_STATE: corrupt });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^error: ${corrupt} is not a cloudorch dev state file`));
  });
});

describe('against a deployed stack (moto)', () => {
  let moto: Moto;
  let env: Record<string, string>;
  let revision: string;
  const bundleUrl = 's3://cloudorch-policy/bundle.tar.gz';
  const stack = ['--table', 'cloudorch-tagged', '--region', 'us-east-1'];

  beforeAll(async () => {
    moto = await startMoto();
    const aws = {
      region: 'us-east-1',
      endpoint: moto.url,
      credentials: { accessKeyId: 'k', secretAccessKey: 's' },
    };
    const ddb = new DynamoDBClient(aws);
    const s3 = new S3Client({ ...aws, forcePathStyle: true });
    try {
      for (const t of ['cloudorch-tagged', 'cloudorch-untagged'])
        await createTable(ddb, t, { stream: false });
      const arn = (await ddb.send(new DescribeTableCommand({ TableName: 'cloudorch-tagged' }))).Table
        ?.TableArn;
      await ddb.send(
        new TagResourceCommand({ ResourceArn: arn, Tags: [{ Key: 'cloudorch.io/version', Value: '7.7.7' }] }),
      );
      // The stack serves the bundle dev serves: a real CloudOrch bundle with a revision.
      const bytes = readFileSync(devState().policyBundle.path);
      revision = parseBundle(bytes).revision ?? '';
      await s3.send(new CreateBucketCommand({ Bucket: 'cloudorch-policy' }));
      await s3.send(new PutObjectCommand({ Bucket: 'cloudorch-policy', Key: 'bundle.tar.gz', Body: bytes }));
    } finally {
      ddb.destroy();
      s3.destroy();
    }
    env = { ...BASE, AWS_ENDPOINT_URL: moto.url, AWS_ACCESS_KEY_ID: 'k', AWS_SECRET_ACCESS_KEY: 's' };
  }, 60_000);
  afterAll(() => moto?.close());

  it("version reads the table's version tag and the served bundle's revision", async () => {
    const r = await cloudorch([...stack, '--policy-bundle', bundleUrl, 'version', '-o', 'json'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      cliVersion: VERSION,
      target: 'table cloudorch-tagged (from --table) in us-east-1 (from --region)',
      policyBundle: bundleUrl,
      policyRevision: { value: revision },
      stackVersion: { value: '7.7.7' },
    });
  });

  it('the same from the environment, by the names the functions read; unknown facts say why', async () => {
    const r = await cloudorch(['version', '-o', 'json'], {
      ...env,
      [ENV.table]: 'cloudorch-untagged',
      AWS_REGION: 'us-east-1',
      [ENV.policyBundleS3]: bundleUrl,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      policyRevision: { value: revision },
      stackVersion: { unknown: 'table cloudorch-untagged has no cloudorch.io/version tag' },
    });
    const text = await cloudorch([...stack, 'version'], env);
    expect(text.stdout).toMatch(/policy revision: {2}unknown \(no policy bundle is known for this stack/);
  });

  it("plan judges with the bundle the stack serves and the target's deployment defaults", async () => {
    // Without defaults a create cannot be planned: none are taken from anywhere but the target.
    const bare = await cloudorch([...stack, '--policy-bundle', bundleUrl, 'plan', '-f', EXAMPLE], env);
    expect(bare.code, bare.stderr).toBe(3);
    expect(bare.stdout).toMatch(
      /cannot converge clusterRoleArn: no cluster IAM role is known[\s\S]*policy: allowed/,
    );
    const set = await cloudorch(
      [
        'config',
        'set-target',
        'moto',
        ...stack,
        '--policy-bundle',
        bundleUrl,
        '--cluster-role-arn',
        'arn:aws:iam::123456789012:role/c',
        '--node-role-arn',
        'arn:aws:iam::123456789012:role/n',
        '--subnet-ids',
        'subnet-a,subnet-b',
      ],
      env,
    );
    expect(set.code, set.stderr).toBe(0);
    const judged = await cloudorch(['--target', 'moto', 'plan', '-f', EXAMPLE], env);
    expect(judged.code, judged.stdout + judged.stderr).toBe(2);
    expect(judged.stdout).toMatch(
      /cluster does not exist\n {2}1\. create cluster payments-dev[\s\S]*policy: allowed/,
    );
    // The same defaults by the names the functions read, beside a table from the environment.
    const fromEnv = await cloudorch(['plan', '-f', EXAMPLE], {
      ...env,
      [ENV.table]: 'cloudorch-tagged',
      AWS_REGION: 'us-east-1',
      [ENV.policyBundleS3]: bundleUrl,
      [ENV.clusterRole]: 'arn:aws:iam::123456789012:role/c',
      [ENV.nodeRole]: 'arn:aws:iam::123456789012:role/n',
      [ENV.subnets]: 'subnet-a,subnet-b',
    });
    expect(fromEnv.code, fromEnv.stdout + fromEnv.stderr).toBe(2);
  });

  it('a failed call names the stack and where its names came from', async () => {
    const r = await cloudorch(['get'], { ...env, [ENV.table]: 'no-such-table', AWS_REGION: 'us-east-1' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: .+ \\(target: table no-such-table \\(from ${ENV.table}\\) in us-east-1 \\(from AWS_REGION\\)\\)\n$`,
      ),
    );
  });

  it('plan against a stack refuses to guess a bundle: none known, or one that does not load, is an error', async () => {
    const none = await cloudorch([...stack, 'plan', '-f', EXAMPLE], env);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/^error: no policy bundle is known for this stack: .*--policy-bundle s3:/);
    const wrong = await cloudorch(
      [...stack, '--policy-bundle', 's3://cloudorch-policy/nope.tar.gz', 'plan', '-f', EXAMPLE],
      env,
    );
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('error: cannot load the policy bundle s3://cloudorch-policy/nope.tar.gz');
  });
});
