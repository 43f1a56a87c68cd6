/**
 * Deploy rehearsal: `cdk bootstrap` and `cdk deploy` with the pinned CLI, the way a user runs them,
 * against moto (account 123456789012, eu-central-1) instead of AWS, carried as far as moto's
 * CloudFormation goes. The CLI resolves the account from moto's STS, so the app synthesizes with a
 * concrete environment (cdk-nag included), publishes every asset to the bootstrap bucket and creates
 * the change set from the uploaded template. Executing it stops at the first resource moto's
 * CloudFormation does not implement (AWS::DynamoDB::GlobalTable); docs/deploy.md says what that leaves
 * uncovered.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../infra/lib/functions.js';
import { MOTO_ACCOUNT, type Moto, startMoto } from '../provider/support/moto.js';

const REGION = 'eu-central-1';
const STACK = 'CloudOrch';
const BOOTSTRAP_BUCKET = `cdk-hnb659fds-assets-${MOTO_ACCOUNT}-${REGION}`;

interface Run {
  readonly code: number;
  readonly output: string;
  readonly seconds: number;
}

interface Template {
  Resources: Record<string, { Type: string }>;
}

let moto: Moto;
let out: string;
let bootstrap: Run;
let deploy: Run;
let template: Template;

/** The pinned CLI with only moto's endpoint and dummy keys: no profile, no real credentials. */
function cdk(args: string[], cwd: string): Promise<Run> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('AWS_') && !k.startsWith('CDK_')),
  );
  const env = {
    ...inherited,
    AWS_ENDPOINT_URL: moto.url,
    // The CLI names the uploaded template in CreateChangeSet by this endpoint (TemplateURL). moto reads
    // a TemplateURL path-style only when its host contains "localhost" or is s3.*.amazonaws.com; for
    // any other host it takes the first label as the bucket ("127"): "The specified bucket does not
    // exist". The URL is only parsed by moto, never fetched, so the host needs no resolving.
    AWS_ENDPOINT_URL_S3_FOR_CLOUDFORMATION: moto.url.replace('127.0.0.1', 'localhost'),
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_REGION: REGION,
    AWS_DEFAULT_REGION: REGION,
    AWS_EC2_METADATA_DISABLED: 'true',
    CDK_DISABLE_CLI_TELEMETRY: 'true',
  };
  const bin = join(PROJECT_ROOT, 'node_modules', '.bin', 'cdk');
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(bin, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, output: `${stdout}${stderr}`, seconds: (Date.now() - started) / 1000 });
    });
  });
}

/** moto's CloudFormation (query protocol). moto routes by the credential scope and checks no signature. */
async function cloudformation(action: string, params: Record<string, string>): Promise<string> {
  const res = await fetch(`${moto.url}/`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `AWS4-HMAC-SHA256 Credential=test/20260101/${REGION}/cloudformation/aws4_request, SignedHeaders=host, Signature=0`,
    },
    body: new URLSearchParams({ Action: action, Version: '2010-05-15', ...params }),
  });
  return res.text();
}

const all = (xml: string, tag: string) =>
  [...xml.matchAll(new RegExp(`<${tag}>([^<]*)</${tag}>`, 'g'))].map((m) => m[1] ?? '');

beforeAll(async () => {
  moto = await startMoto();
  out = mkdtempSync(join(tmpdir(), 'cloudorch-rehearsal-'));
  // Outside the project (no cdk.json): bootstrapping an explicit environment needs no app.
  bootstrap = await cdk(['bootstrap', `aws://${MOTO_ACCOUNT}/${REGION}`, '--no-notices'], out);
  deploy = await cdk(
    ['deploy', STACK, '--require-approval', 'never', '--no-notices', '--output', join(out, 'cdk.out')],
    PROJECT_ROOT,
  );
  template = JSON.parse(readFileSync(join(out, 'cdk.out', `${STACK}.template.json`), 'utf8'));
  console.log(`cdk bootstrap ${bootstrap.seconds.toFixed(1)} s, cdk deploy ${deploy.seconds.toFixed(1)} s`);
}, 300_000);

afterAll(async () => {
  await moto?.close();
});

describe('deploy rehearsal against moto', () => {
  it('bootstraps the environment', () => {
    expect(bootstrap.output).toContain(`Environment aws://${MOTO_ACCOUNT}/${REGION} bootstrapped`);
    expect(bootstrap.code, bootstrap.output.slice(-3000)).toBe(0);
  });

  it("synthesizes for the caller's account with cdk-nag passing", () => {
    expect(deploy.output).not.toMatch(/AwsSolutions|ValidationFailed|Validation failed/);
    // The CLI passed moto's account to the app: grants name it, the partition stays a token.
    expect(JSON.stringify(template)).toContain(`:eks:*:${MOTO_ACCOUNT}:cluster/*`);
    expect(JSON.stringify(template)).not.toMatch(/arn:aws[a-z-]*:/);
  });

  it('publishes every asset and the template to the bootstrap bucket', async () => {
    const manifest = JSON.parse(readFileSync(join(out, 'cdk.out', `${STACK}.assets.json`), 'utf8')) as {
      files: Record<string, { destinations: Record<string, { bucketName: string; objectKey: string }> }>;
    };
    const expected = Object.values(manifest.files)
      .flatMap((f) => Object.values(f.destinations))
      .map((d) => {
        expect(d.bucketName).toBe(BOOTSTRAP_BUCKET);
        return d.objectKey;
      })
      .sort();
    const listing = await (await fetch(`${moto.url}/${BOOTSTRAP_BUCKET}?list-type=2`)).text();
    expect(all(listing, 'Key').sort()).toEqual(expect.arrayContaining(expected));
    // Sixteen functions, the policy bundle, CDK's deployment handler and its layer, the template.
    expect(expected.length).toBeGreaterThanOrEqual(15);
  });

  it('creates the change set from the uploaded template: every resource of it', async () => {
    const xml = await cloudformation('DescribeChangeSet', {
      StackName: STACK,
      ChangeSetName: 'cdk-deploy-change-set',
    });
    expect(all(xml, 'Status')).toEqual(['CREATE_COMPLETE']);
    expect(all(xml, 'LogicalResourceId').sort()).toEqual(Object.keys(template.Resources).sort());
    expect(deploy.output).not.toContain('The specified bucket does not exist');
  });

  it("stops executing it where moto's CloudFormation ends: it has no AWS::DynamoDB::GlobalTable", async () => {
    // The desired-state, coordination and rollout tables: moto stops at the first one referenced.
    const tables = Object.entries(template.Resources)
      .filter(([, r]) => r.Type === 'AWS::DynamoDB::GlobalTable')
      .map(([id]) => id);
    expect(tables).toHaveLength(3);
    expect(
      tables.some((id) =>
        deploy.output.includes(`Template error: instance of Fn::GetAtt references undefined resource ${id}`),
      ),
    ).toBe(true);
    expect(deploy.code).not.toBe(0);
    const stacks = await cloudformation('DescribeStacks', { StackName: STACK });
    // Nothing was created: the stack never left review.
    expect(all(stacks, 'StackStatus')).toEqual(['REVIEW_IN_PROGRESS']);
  });

  it('moto reads a TemplateURL path-style only from a localhost host (why the endpoint override)', async () => {
    const key = all(await (await fetch(`${moto.url}/${BOOTSTRAP_BUCKET}?list-type=2`)).text(), 'Key').find(
      (k) => k.endsWith('.json'),
    );
    expect(key).toBeDefined();
    const probe = (host: string, name: string) =>
      cloudformation('CreateChangeSet', {
        StackName: `UrlProbe${name}`,
        ChangeSetName: 'probe',
        ChangeSetType: 'CREATE',
        TemplateURL: `${moto.url.replace('127.0.0.1', host)}/${BOOTSTRAP_BUCKET}/${key}`,
      });
    expect(await probe('127.0.0.1', 'Ip')).toContain('The specified bucket does not exist');
    expect(await probe('localhost', 'Localhost')).toContain('<Id>');
  });
});
