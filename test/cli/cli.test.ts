/**
 * The CLI end to end against `cloudorch dev` started as a child process, exactly as a user runs
 * them: apply -> Ready, drift -> corrected, plan exit codes, clear errors that change nothing.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AttributeValue,
  DeleteItemCommand,
  DynamoDBClient,
  ListTablesCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { supportPhase } from '../../lambdas/core/catalog.js';
import { CLI, type Dev, minimalEnv, type Result, ROOT, startDev, until } from './dev-child.js';

const EXAMPLE = join(ROOT, 'examples/dev-small.yaml');

/** What the example's Kubernetes version (1.34) adds to a month at today's date: EKS's extended-support rate. */
const extraForSupport = () => (supportPhase('1.34', new Date()) === 'standard' ? 0 : (0.6 - 0.1) * 730);
const dir = mkdtempSync(join(tmpdir(), 'cloudorch-cli-'));
const env = minimalEnv(dir);

let dev: Dev;
const cloudorch = (args: string[], input?: string) => dev.cloudorch(args, input);

interface Rec {
  id: string;
  generation: number;
  status?: {
    ready: boolean;
    observedGeneration: number;
    observed?: { nodeCount?: number };
    lastDrift?: { field: string }[];
    conditions: { type: string; status: string; reason: string }[];
  };
}
async function records(): Promise<Rec[]> {
  // The raw store records of every namespace (get -o json prints Kubernetes objects).
  const r = await cloudorch(['get', '-A', '-o', 'record']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Rec[];
}

/** Runs the CLI with a stdout whose reader has already gone, as `| head -1` leaves it. */
function withClosedStdout(
  args: string[],
): Promise<{ code: number | null; signal: string | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env,
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr });
    });
  });
}

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}
/** A raw HTTP request, so a test can send the headers a browser sends (Origin among them). */
function raw(url: string, method: string, headers: Record<string, string>, body = ''): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => {
        text += d.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function devEndpoints(): { dynamodb: string; dashboard: string } {
  return (
    JSON.parse(readFileSync(env.CLOUDORCH_DEV_STATE, 'utf8')) as {
      endpoints: { dynamodb: string; dashboard: string };
    }
  ).endpoints;
}

beforeAll(async () => {
  dev = await startDev({ dir, env });
}, 120_000);

afterAll(async () => {
  await dev?.stop();
});

describe('cloudorch against cloudorch dev', () => {
  it('dev prints where each part listens', () => {
    for (const part of ['dashboard', 'DynamoDB store', 'EKS simulator', 'Step Functions', 'sweep'])
      expect(dev.log()).toContain(part);
  });

  it('apply -> Ready, and get shows the columns', async () => {
    const r = await cloudorch(['apply', '-f', EXAMPLE]);
    expect(r).toMatchObject({ code: 0, stdout: 'cloudcluster/team-payments/dev-small created\n' });
    const rec = await until('Ready', async () =>
      (await records()).find((x) => x.id === 'team-payments/dev-small' && x.status?.ready),
    );
    expect(rec.status?.observed?.nodeCount).toBe(2);
    // kubectl's default namespace: nothing there yet.
    expect((await cloudorch(['get'])).stdout.trimEnd().split('\n')).toHaveLength(1);
    const g = await cloudorch(['get', '-n', 'team-payments']);
    const [header, line] = g.stdout.trimEnd().split('\n');
    expect(header?.split(/\s{2,}/)).toEqual([
      'NAME',
      'REGION',
      'VERSION',
      'NODES',
      'POOLS',
      'READY',
      'SYNCED',
      'DRIFT',
      'COST/MO',
      'AGE',
    ]);
    expect(line?.split(/\s{2,}/).slice(0, 9)).toEqual([
      'dev-small',
      'us-east-1',
      '1.34',
      '2',
      '1',
      'true',
      'true',
      'no',
      // The CLI prices at today's date: 1.34's control plane is billed at the extended-support rate
      // ($0.60 an hour, $365.00 a month more) from 2026-12-02.
      `$${(133.74 + extraForSupport()).toFixed(2)}`,
    ]);
    expect((await cloudorch(['apply', '-f', EXAMPLE])).stdout).toBe(
      'cloudcluster/team-payments/dev-small unchanged\n',
    );
  });

  it('plan exits 0 without changes, 2 with changes, 1 on error', async () => {
    const same = await cloudorch(['plan', '-f', EXAMPLE]);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stdout).toMatch(/no changes[\s\S]*policy: allowed/);
    const bigger = join(dir, 'bigger.yaml');
    writeFileSync(bigger, readFileSync(EXAMPLE, 'utf8').replace('nodeCount: 2', 'nodeCount: 4'));
    const changed = await cloudorch(['plan', '-f', bigger]);
    expect(changed.code).toBe(2);
    expect(changed.stdout).toMatch(
      /1\. configure node group \S+ \(pool default\): scaling .*"desiredSize":4/,
    );
    expect(changed.stdout).toContain(`cost: $${(194.47 + extraForSupport()).toFixed(2)}/month (+$60.73)`);
    // plan changed nothing
    expect((await records()).find((x) => x.id === 'team-payments/dev-small')?.generation).toBe(1);
    const missing = await cloudorch(['plan', '-f', join(dir, 'nope.yaml')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^error: .*nope\.yaml/);
  });

  it('plan exits 3 for changes policy denies', async () => {
    const denied = await cloudorch(['plan', '-f', join(ROOT, 'examples/denied-by-policy.yaml')]);
    expect(denied.code, denied.stderr).toBe(3);
    expect(denied.stdout).toMatch(/create cluster research-gpu-sandbox[\s\S]*policy: DENIED/);
    // Several manifests: the worst one decides (the clean dev-small plan does not hide the denial).
    const both = await cloudorch(['plan', '-f', EXAMPLE, join(ROOT, 'examples/denied-by-policy.yaml')]);
    expect(both.code).toBe(3);
  });

  it('plan exits 3 for differences that cannot be applied, even with nothing else to do', async () => {
    // A downgrade cannot converge: only Impossible lines, nothing mutating, still not a clean plan.
    const older = join(dir, 'older.yaml');
    writeFileSync(
      older,
      readFileSync(EXAMPLE, 'utf8').replace('kubernetesVersion: "1.34"', 'kubernetesVersion: "1.33"'),
    );
    const impossible = await cloudorch(['plan', '-f', older]);
    expect(impossible.code, impossible.stderr).toBe(3);
    expect(impossible.stdout).toMatch(/1\. cannot converge /);
    const steps = impossible.stdout.split('\n').filter((l) => /^ {2}\d+\. /.test(l));
    expect(steps.every((l) => l.includes('cannot converge'))).toBe(true);
  });

  it('bad YAML and bad specs give clear errors naming file, document and field, and change nothing', async () => {
    const before = await records();
    const bad = join(dir, 'bad.yaml');
    writeFileSync(
      bad,
      `${readFileSync(EXAMPLE, 'utf8').replace('dev-small', 'other')}\n---\napiVersion: compute.cloudorch.io/v1\nkind: CloudCluster\nmetadata: {name: broken}\nspec: {provider: aws, region: mars-1, clusterName: x, kubernetesVersion: "1.34", nodeCount: 1000, instanceType: t3.medium}\n`,
    );
    const r = await cloudorch(['apply', '-f', bad]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${bad}#2: spec.region: region "mars-1" is not in the allowed regions`);
    expect(r.stderr).toContain(`${bad}#2: spec.nodeCount: nodeCount must be at most 450`);
    expect(r.stderr).toContain('nothing was applied');
    const y = await cloudorch(['apply', '-f', '-'], 'apiVersion: [oops\n');
    expect(y.code).toBe(1);
    expect(y.stderr).toMatch(/<stdin>#1: invalid YAML/);
    // The valid first document of bad.yaml was not applied either.
    expect((await records()).map((x) => x.id)).toEqual(before.map((x) => x.id));
  });

  it('apply rejects an id defined in two files of one folder, naming both, and writes nothing', async () => {
    const before = await records();
    const folder = join(dir, 'dup');
    mkdirSync(folder);
    const a = join(folder, 'a.yaml');
    const b = join(folder, 'b.yaml');
    writeFileSync(a, readFileSync(EXAMPLE, 'utf8').replace('nodeCount: 2', 'nodeCount: 3'));
    writeFileSync(b, readFileSync(EXAMPLE, 'utf8').replace('nodeCount: 2', 'nodeCount: 4'));
    const r = await cloudorch(['apply', '-f', `${folder}/`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `error: ${b}#1: metadata.name: team-payments/dev-small is defined twice (first in ${a}#1)`,
    );
    expect(r.stderr).toContain('nothing was applied');
    expect(r.stdout).toBe('');
    expect((await records()).map((x) => [x.id, x.generation])).toEqual(
      before.map((x) => [x.id, x.generation]),
    );
  });

  it('exits quietly when the reader of its output goes away (`get | head -1`)', async () => {
    // -A: the records are outside default, and an empty list would write nothing to stdout.
    for (const args of [
      ['get', '-A'],
      ['get', '-A', '-o', 'json'],
      ['get', '-A', '-w'],
    ]) {
      const r = await withClosedStdout(args);
      expect({ args, ...r }).toEqual({ args, code: 0, signal: null, stderr: '' });
    }
  });

  it('the dev API answers a malformed URL with 400, not 500', async () => {
    const { dashboard } = devEndpoints();
    for (const path of ['/api/clusters/%E0%A4%A', '/api/clusters/%', '/api/clusters/team-payments%2F%ZZ']) {
      const r = await raw(`${dashboard}${path}`, 'GET', {});
      expect({ path, status: r.status }).toEqual({ path, status: 400 });
      expect(JSON.parse(r.body)).toEqual({ message: expect.stringMatching(/malformed/) });
    }
    const ok = await raw(`${dashboard}/api/clusters/team-payments%2Fdev-small`, 'GET', {});
    expect(ok.status).toBe(200);
  });

  it('the local DynamoDB endpoint refuses browsers (no CORS) and still serves the AWS SDK', async () => {
    const { dynamodb } = devEndpoints();
    const origin = 'https://evil.example';
    const preflight = await raw(dynamodb, 'OPTIONS', {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization,content-type,x-amz-target',
    });
    expect(preflight.status).toBe(403);
    expect(Object.keys(preflight.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    // What a page could send once a preflight passed: a made-up signature is enough for the store.
    const call = {
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': 'DynamoDB_20120810.ListTables',
      authorization:
        'AWS4-HMAC-SHA256 Credential=x/20250101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=0',
      'x-amz-date': '20250101T000000Z',
    };
    const browsers: Record<string, string>[] = [
      { origin },
      { origin: 'null' },
      { 'sec-fetch-site': 'same-origin' },
    ];
    for (const headers of browsers) {
      const r = await raw(dynamodb, 'POST', { ...call, ...headers }, '{}');
      expect({ headers, status: r.status }).toEqual({ headers, status: 403 });
      expect(r.headers['access-control-allow-origin']).toBeUndefined();
      expect(r.body).not.toContain('cloudorch-desired-state');
    }
    // Without browser headers the same raw call is served, and so is the real SDK client.
    expect((await raw(dynamodb, 'POST', call, '{}')).body).toContain('cloudorch-desired-state');
    const sdk = new DynamoDBClient({
      endpoint: dynamodb,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    try {
      expect((await sdk.send(new ListTablesCommand({}))).TableNames).toContain('cloudorch-desired-state');
    } finally {
      sdk.destroy();
    }
  });

  it('drift made through the simulator is detected and corrected by the sweep', async () => {
    const d = await cloudorch(['sim', 'drift', 'payments-dev', '--nodes', '5']);
    expect(d.code, d.stderr).toBe(0);
    const fixed = await until('drift corrected', async () => {
      const rec = (await records()).find((x) => x.id === 'team-payments/dev-small');
      return rec?.status?.lastDrift?.some((x) => x.field === 'nodeGroups[default].nodeCount') &&
        rec.status.observed?.nodeCount === 2 &&
        rec.status.ready
        ? rec
        : undefined;
    });
    expect(fixed.status?.conditions.find((c) => c.type === 'Drifted')?.status).toBe('False');
    const desc = await cloudorch(['describe', 'dev-small']);
    expect(desc.stdout).toMatch(/Last drift:\n {2}- nodeGroups\[default\]\.nodeCount: want 2, found 5/);
    expect(desc.stdout).toMatch(/Ready\s+True\s+Reconciled/);
  });

  it('sim drift reaches a cluster outside the default region, by --region or by CloudCluster name', async () => {
    const eu = join(dir, 'eu.yaml');
    writeFileSync(
      eu,
      readFileSync(EXAMPLE, 'utf8')
        .replace('name: dev-small', 'name: dev-eu')
        .replace('region: us-east-1', 'region: eu-west-1')
        .replace('clusterName: payments-dev', 'clusterName: payments-eu'),
    );
    expect((await cloudorch(['apply', '-f', eu])).code).toBe(0);
    const euRecord = async () => (await records()).find((x) => x.id === 'team-payments/dev-eu');
    await until('dev-eu Ready', async () => ((await euRecord())?.status?.ready ? true : undefined));
    // The subcommand's --region, not the program's (which would mean AWS mode).
    const byRegion = await cloudorch([
      'sim',
      'drift',
      'payments-eu',
      '--region',
      'eu-west-1',
      '--nodes',
      '5',
    ]);
    expect(byRegion.code, byRegion.stderr).toBe(0);
    expect(byRegion.stdout).toMatch(/desired size 2 -> 5 \(out of band\)/);
    // A CloudCluster name gives the cluster and its region; each drift shows in describe once seen.
    for (const [name, nodes] of [
      ['dev-eu', '5'],
      ['team-payments/dev-eu', '4'],
    ] as const) {
      if (nodes === '4') {
        const byName = await cloudorch(['sim', 'drift', name, '--nodes', nodes]);
        expect(byName.code, byName.stderr).toBe(0);
      }
      await until(`drift to ${nodes} seen`, async () => {
        const d = await cloudorch(['describe', name]);
        return new RegExp(`nodeCount: want 2, found ${nodes}`).test(d.stdout) ? true : undefined;
      });
    }
    const clash = await cloudorch(['sim', 'drift', 'dev-eu', '--region', 'us-east-1', '--nodes', '3']);
    expect(clash).toMatchObject({
      code: 1,
      stderr: 'error: cloudcluster team-payments/dev-eu is in eu-west-1, not us-east-1\n',
    });
    // Program options after a command's name still select AWS mode, as before.
    const aws = await cloudorch(['get', '--table', 't']);
    expect(aws.code).toBe(1);
    expect(aws.stderr).toMatch(/^error: table t \(from --table\) needs a region/);
    expect((await cloudorch(['delete', 'dev-eu'])).code).toBe(0);
    await until('dev-eu released', async () => ((await euRecord()) ? undefined : true));
  });

  it('apply refuses a record naming a cluster another record holds, naming it, and writes nothing', async () => {
    const other = join(dir, 'other-team.yaml');
    writeFileSync(
      other,
      readFileSync(EXAMPLE, 'utf8').replace('namespace: team-payments', 'namespace: team-other'),
    );
    const r = await cloudorch(['apply', '-f', other]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/already managed by record team-payments\/dev-small/);
    expect(r.stderr).toMatch(/nothing was applied/);
    expect((await records()).map((x) => x.id)).not.toContain('team-other/dev-small');
  });

  it('a malformed item written straight to the table is listed with its reason; the fleet still shows', async () => {
    const sdk = new DynamoDBClient({
      endpoint: devEndpoints().dynamodb,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const Key = { id: { S: 'team-x/broken' } };
    try {
      await sdk.send(
        new PutItemCommand({
          TableName: 'cloudorch-desired-state',
          Item: { ...Key, spec: { S: 'hello' }, status: { M: { conditions: { S: 'nope' } } } },
        }),
      );
      const g = await cloudorch(['get', '-A']);
      expect(g.code, g.stderr).toBe(0);
      expect(g.stdout).toMatch(/team-payments\s+dev-small\s/);
      expect(g.stdout).toMatch(/team-x\/broken: RecordInvalid: .*spec/);
      const d = await cloudorch(['describe', 'broken']);
      expect(d.code, d.stderr).toBe(0);
      expect(d.stdout).toMatch(/RecordInvalid/);
      // describe names who holds the lease (free here: nothing runs for dev-small now).
      expect((await cloudorch(['describe', 'dev-small'])).stdout).toMatch(/^Lease:\s+free$/m);
    } finally {
      await sdk.send(new DeleteItemCommand({ TableName: 'cloudorch-desired-state', Key }));
      sdk.destroy();
    }
  });

  it('a record written before node pools (flat spec, status without pools) still shows in get and describe', async () => {
    const fixture = JSON.parse(
      readFileSync(join(ROOT, 'test/fixtures/upgrade-from-main/records.json'), 'utf8'),
    ) as Record<string, { record: { raw: Record<string, AttributeValue> } }>;
    const item = structuredClone(fixture['team/legacy-basic']!.record.raw);
    // Paused, so a sweep that picks it up observes only: the status stays as older code wrote it.
    const spec = item['spec']?.M;
    if (!spec) throw new Error('the fixture has a spec');
    spec['paused'] = { BOOL: true };
    const sdk = new DynamoDBClient({
      endpoint: devEndpoints().dynamodb,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const Key = { id: { S: 'team/legacy-basic' } };
    try {
      await sdk.send(new PutItemCommand({ TableName: 'cloudorch-desired-state', Item: item }));
      const g = await cloudorch(['get', '-n', 'team']);
      expect(g.code, g.stderr).toBe(0);
      // NODES from the status main wrote, POOLS from the flat spec read as the pool `default`.
      expect(
        g.stdout
          .trimEnd()
          .split('\n')[1]
          ?.split(/\s{2,}/)
          .slice(0, 5),
      ).toEqual(['legacy-basic', 'us-east-1', '1.34', '3', '1']);
      const d = await cloudorch(['describe', 'team/legacy-basic']);
      expect(d.code, d.stderr).toBe(0);
      expect(d.stdout).toMatch(/^Pools:\n {2}default: /m);
      expect(d.stdout).toContain('t3.large ON_DEMAND');
    } finally {
      await sdk.send(new DeleteItemCommand({ TableName: 'cloudorch-desired-state', Key }));
      sdk.destroy();
    }
  });

  it('a multi-pool cluster: get shows the node total and the pool count, describe each pool, sim drift a pool', async () => {
    const example = join(ROOT, 'examples/multi-pool.yaml');
    const r = await cloudorch(['apply', '-f', example]);
    expect(r.stdout).toBe('cloudcluster/team-search/multi-pool created\n');
    const rec = await until('multi-pool Ready', async () =>
      (await records()).find((x) => x.id === 'team-search/multi-pool' && x.status?.ready),
    );
    expect(rec.status?.observed?.nodeCount).toBe(2 + 3 + 2);
    const g = await cloudorch(['get', '-n', 'team-search']);
    expect(
      g.stdout
        .trimEnd()
        .split('\n')[1]
        ?.split(/\s{2,}/)
        .slice(0, 5),
    ).toEqual(['multi-pool', 'us-east-1', '1.34', '7', '3']);
    const d = await cloudorch(['describe', 'team-search/multi-pool']);
    expect(d.stdout).toMatch(/^ {2}system: node group cloudorch-system-\S+ \(ACTIVE, version 1\.34\)$/m);
    expect(d.stdout).toContain('      nodes 2 (min 2, max 3), t3.medium ON_DEMAND');
    expect(d.stdout).toContain('      labels node-role=system; taints CriticalAddonsOnly=true:NO_SCHEDULE');
    expect(d.stdout).toMatch(/^ {2}general: node group /m);
    expect(d.stdout).toMatch(/^ {6}nodes 2 \(min 1, max 10\), c6i\.large,c5\.large,m6i\.large SPOT$/m);
    const several = await cloudorch(['sim', 'drift', 'team-search/multi-pool', '--nodes', '5']);
    expect(several.code).toBe(1);
    expect(several.stderr).toMatch(/several node groups: name one with --pool or --nodegroup/);
    const drift = await cloudorch([
      'sim',
      'drift',
      'team-search/multi-pool',
      '--pool',
      'general',
      '--nodes',
      '5',
    ]);
    expect(drift.code, drift.stderr).toBe(0);
    expect(drift.stdout).toMatch(/^node group cloudorch-general-\S+ \(pool general\): desired size 3 -> 5/);
    const fixed = await until('pool general corrected', async () => {
      const x = (await records()).find((y) => y.id === 'team-search/multi-pool');
      return x?.status?.lastDrift?.some((f) => f.field === 'nodeGroups[general].nodeCount') &&
        x.status.observed?.nodeCount === 7 &&
        x.status.ready
        ? x
        : undefined;
    });
    expect(fixed.status?.lastDrift?.map((f) => f.field)).toEqual(['nodeGroups[general].nodeCount']);
    const del = await cloudorch(['delete', 'team-search/multi-pool']);
    expect(del.code, del.stderr).toBe(0);
    await until('multi-pool released', async () =>
      (await records()).some((x) => x.id === 'team-search/multi-pool') ? undefined : true,
    );
  });

  it('add-ons and access entries: describe and get -o wide show them, and a DEGRADED add-on with its issue code', async () => {
    const id = 'team-checkout/checkout';
    const r = await cloudorch(['apply', '-f', join(ROOT, 'examples/addons-access.yaml')]);
    expect(r.code, r.stderr).toBe(0);
    await until('checkout Ready', async () => (await records()).find((x) => x.id === id && x.status?.ready));
    const d = await cloudorch(['describe', id]);
    for (const name of ['vpc-cni', 'coredns', 'kube-proxy', 'eks-pod-identity-agent', 'aws-ebs-csi-driver'])
      expect(d.stdout).toMatch(new RegExp(`^ {2}${name}: v\\S+-eksbuild\\.\\d+ ACTIVE$`, 'm'));
    expect(d.stdout).toContain('  mode API, exclusive: true');
    expect(d.stdout).toMatch(
      /role\/platform-admin\s{3,}STANDARD\s{3,}AmazonEKSClusterAdminPolicy \(cluster\)\s{3,}listed$/m,
    );
    expect(d.stdout).toMatch(
      /role\/checkout-developers\s{3,}STANDARD\s{3,}AmazonEKSEditPolicy \(checkout, checkout-jobs\)\s{3,}listed$/m,
    );
    expect(d.stdout).toMatch(/^ {2}AddonsReady\s+True\s+AddonsActive .*: 5 add-ons ACTIVE$/m);
    expect(d.stdout).toMatch(/^ {2}UpgradeBlocked\s+False\s+UpgradeClear /m);
    const sick = await cloudorch([
      'sim',
      'addon-health',
      'checkout-staging',
      'coredns',
      '--code',
      'InsufficientNumberOfReplicas',
    ]);
    expect(sick.code, sick.stderr).toBe(0);
    await cloudorch(['reconcile', id]);
    await until('AddonsReady False', async () =>
      (await records())
        .find((x) => x.id === id)
        ?.status?.conditions.some((c) => c.type === 'AddonsReady' && c.status === 'False')
        ? true
        : undefined,
    );
    const sickDescribe = await cloudorch(['describe', id]);
    expect(sickDescribe.stdout).toMatch(
      /^ {2}AddonsReady\s+False\s+AddonUnhealthy .*coredns is DEGRADED \(InsufficientNumberOfReplicas/m,
    );
    expect(sickDescribe.stdout).toMatch(/^ {2}coredns: v\S+ DEGRADED \(InsufficientNumberOfReplicas\)$/m);
    const wide = await cloudorch(['get', '-n', 'team-checkout', '-o', 'wide']);
    expect(wide.stdout).toContain('4/5 ACTIVE; coredns:DEGRADED');
    expect(wide.stdout).toMatch(/API \(3 entries, 1 not listed\)/);
    const del = await cloudorch(['delete', id]);
    expect(del.code, del.stderr).toBe(0);
    await until('checkout released', async () =>
      (await records()).some((x) => x.id === id) ? undefined : true,
    );
  }, 90_000);

  it('reconcile starts an execution; delete removes the cluster and then the record', async () => {
    expect((await cloudorch(['reconcile', 'dev-small'])).stdout).toMatch(
      /dev-small started execution arn:aws:states:[^:]+:\d+:execution:/,
    );
    const del = await cloudorch(['delete', 'dev-small']);
    expect(del.stdout).toMatch(/deletion requested \(deletionPolicy Delete/);
    await until('record released', async () => ((await records()).length === 0 ? true : undefined));
    expect((await cloudorch(['describe', 'dev-small'])).code).toBe(1);
  });

  it('help answers with 0 and lists the exit codes; a usage error is 1', async () => {
    const asks = [['help'], ['help', 'plan'], ['--help'], ['plan', '--help']];
    const answers = await Promise.all(asks.map((args) => cloudorch(args)));
    answers.forEach((r, i) => {
      expect({ args: asks[i], code: r.code }).toEqual({ args: asks[i], code: 0 });
      expect(r.stdout).toContain('3 changes denied by policy or impossible to apply');
    });
    expect((await cloudorch(['no-such-command'])).code).toBe(1);
  });

  it('sim commands refuse to run against AWS', async () => {
    const r = await cloudorch(['--table', 't', '--region', 'us-east-1', 'sim', 'reset']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/only works against `cloudorch dev`/);
  });
});

describe('cloudorch dev --demo', () => {
  it('runs the demo to success and prints the summary', async () => {
    const demoEnv = { ...env, CLOUDORCH_DEV_STATE: join(dir, 'demo.json') };
    const r = await new Promise<Result>((resolve) => {
      execFile(
        process.execPath,
        [CLI, 'dev', '--demo', '--port', '0'],
        { env: demoEnv, cwd: ROOT, timeout: 120_000 },
        (err, stdout, stderr) =>
          resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/drift detected .* after the change, corrected .* after it/);
    expect(r.stdout).toMatch(
      /the rollout waits: cloudorch rollout approve platform\/demo-tag-rollout --stage canary/,
    );
    expect(r.stdout).toMatch(/rollout platform\/demo-tag-rollout: Completed/);
    expect(r.stdout).toMatch(/denied by policy \(nothing applied\): research\/gpu-sandbox/);
    expect(r.stdout).toMatch(
      /add-ons of team-checkout\/checkout: vpc-cni: v\S+ ACTIVE, coredns: v\S+ ACTIVE/,
    );
    expect(r.stdout).toMatch(
      /access to team-checkout\/checkout: API \(3 entries, 1 not listed\): role\/platform-admin AmazonEKSClusterAdminPolicy \(cluster\); role\/checkout-developers AmazonEKSEditPolicy \(checkout, checkout-jobs\)/,
    );
    expect(existsSync(demoEnv.CLOUDORCH_DEV_STATE)).toBe(false); // removed on a clean stop
  }, 150_000);
});
