/**
 * kubectl habits through the real CLI against one `cloudorch dev` child process: Kubernetes-shaped
 * output that applies back, -o record/wide/name/jsonpath, labels and -l selectors on get, delete and
 * reconcile, -n/-A, and bare names that two namespaces share.
 */
import { DeleteItemCommand, DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { type Dev, startDev } from './dev-child.js';

const manifest = (namespace: string, name: string, labels: string) => `apiVersion: compute.cloudorch.io/v1
kind: CloudCluster
metadata:
  name: ${name}
  namespace: ${namespace}
  labels: ${labels}
spec:
  provider: aws
  region: us-east-1
  clusterName: c-${namespace}-${name}
  kubernetesVersion: "1.34"
  nodeCount: 1
  instanceType: t3.medium
  deletionPolicy: Retain
`;

interface Raw {
  id: string;
  generation: number;
  specHash: string;
  labels?: Record<string, string>;
  deletionRequestedAt?: string;
}

let dev: Dev;
const run = (args: string[], input?: string) => dev.cloudorch(args, input);
async function raw(): Promise<Raw[]> {
  const r = await run(['get', '-A', '-o', 'record']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Raw[];
}

beforeAll(async () => {
  dev = await startDev();
  const all = [
    manifest('default', 'web', '{app: web, tier: "1"}'),
    manifest('team-a', 'web', '{app: web}'),
    manifest('team-a', 'db', '{app: db}'),
  ].join('---\n');
  const r = await run(['apply', '-f', '-'], all);
  expect(r.code, r.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await dev?.stop();
});

describe('cloudorch get, delete and reconcile, kubectl-style', () => {
  it('lists the default namespace, -n NS, or every namespace with -A (a NAMESPACE column)', async () => {
    const def = await run(['get']);
    expect(
      def.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split(/\s+/)[0]),
    ).toEqual(['NAME', 'web']);
    const a = await run(['get', '-n', 'team-a', '-o', 'name']);
    expect(a.stdout).toBe('cloudcluster.compute.cloudorch.io/db\ncloudcluster.compute.cloudorch.io/web\n');
    const all = await run(['get', '-A', '--show-labels']);
    const rows = all.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.split(/\s+/));
    expect(rows.map((r) => [r[0], r[1], r.at(-1)])).toEqual([
      ['NAMESPACE', 'NAME', 'LABELS'],
      ['default', 'web', 'app=web,tier=1'],
      ['team-a', 'db', 'app=db'],
      ['team-a', 'web', 'app=web'],
    ]);
  });

  it('-o yaml and -o json print Kubernetes objects that apply back unchanged; -o record the raw record', async () => {
    const yaml = await run(['get', '-A', '-o', 'yaml']);
    const list = parse(yaml.stdout) as { apiVersion: string; kind: string; items: Record<string, unknown>[] };
    expect(list).toMatchObject({ apiVersion: 'v1', kind: 'List' });
    expect(list.items[0]).toMatchObject({
      apiVersion: 'compute.cloudorch.io/v1',
      kind: 'CloudCluster',
      metadata: { name: 'web', namespace: 'default', labels: { app: 'web', tier: '1' }, generation: 1 },
      spec: { clusterName: 'c-default-web' },
    });
    expect(Object.keys(list.items[0] ?? {})).not.toContain('specHash');
    for (const out of [yaml.stdout, (await run(['get', '-A', '-o', 'json'])).stdout]) {
      const back = await run(['apply', '-f', '-'], out);
      expect(back.stdout.trimEnd().split('\n')).toEqual([
        'cloudcluster/default/web unchanged',
        'cloudcluster/team-a/db unchanged',
        'cloudcluster/team-a/web unchanged',
      ]);
    }
    const one = await run(['get', 'db', '-o', 'json']);
    expect(JSON.parse(one.stdout)).toMatchObject({ kind: 'CloudCluster', metadata: { name: 'db' } });
    expect((await raw()).map((r) => [r.id, r.specHash.length])).toEqual([
      ['default/web', 64],
      ['team-a/db', 64],
      ['team-a/web', 64],
    ]);
  });

  it('a label change applies without a new generation', async () => {
    const yaml = (await run(['get', '-n', 'team-a', 'db', '-o', 'yaml'])).stdout;
    const r = await run(['apply', '-f', '-'], yaml.replace('app: db', 'app: db\n    tier: "2"'));
    expect(r.stdout).toBe('cloudcluster/team-a/db configured (labels only; generation 1 unchanged)\n');
    expect((await raw()).find((x) => x.id === 'team-a/db')).toMatchObject({
      generation: 1,
      labels: { app: 'db', tier: '2' },
    });
  });

  it('labels that break the label rules are refused, naming the field, and nothing is applied', async () => {
    const bad = manifest('default', 'other', '{"-app": x, ok: "a b"}');
    const r = await run(['apply', '-f', '-'], bad);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('<stdin>#1: metadata.labels.-app: key name "-app"');
    expect(r.stderr).toContain('<stdin>#1: metadata.labels.ok: value "a b"');
    expect((await raw()).map((x) => x.id)).not.toContain('default/other');
  });

  it('-o wide, -o jsonpath (with range), and a bad -o that lists the valid ones', async () => {
    const wide = await run(['get', '-o', 'wide']);
    expect(wide.stdout.split('\n')[0]?.split(/\s+/).slice(-8)).toEqual([
      'SUBNETS',
      'NODEGROUPS',
      'ADDONS',
      'ACCESS',
      'LAST-OP',
      'LAST-DRIFT',
      'GENERATION',
      'APPROVAL',
    ]);
    const names = await run(['get', '-A', '-o', 'jsonpath={.items[*].metadata.name}']);
    expect(names.stdout).toBe('web db web\n');
    const ranged = await run([
      'get',
      '-n',
      'team-a',
      '-o',
      'jsonpath={range .items[*]}{.metadata.namespace}/{@.metadata.name}{"\\n"}{end}',
    ]);
    expect(ranged.stdout).toBe('team-a/db\nteam-a/web\n\n');
    const single = await run(['get', '-n', 'team-a', 'web', '-o', 'jsonpath={.spec.clusterName}']);
    expect(single.stdout).toBe('c-team-a-web\n');
    const unsupported = await run(['get', '-o', 'jsonpath={else}']);
    expect(unsupported).toMatchObject({ code: 1, stdout: '' });
    expect(unsupported.stderr).toMatch(/^error: -o jsonpath: \{else\} is not supported/);
    const bad = await run(['get', '-o', 'xml']);
    expect(bad).toMatchObject({
      code: 1,
      stderr:
        'error: -o xml is not a format; use one of: table, wide, yaml, json, name, record, jsonpath=TEMPLATE\n',
    });
  });

  it('-l selects on get; a term that does not parse is named', async () => {
    const byLabel = async (sel: string) =>
      (
        await run([
          'get',
          '-A',
          '-l',
          sel,
          '-o',
          'jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name} {end}',
        ])
      ).stdout.trim();
    expect(await byLabel('app=web')).toBe('default/web team-a/web');
    expect(await byLabel('app=web,!tier')).toBe('team-a/web');
    expect(await byLabel('app in (db, web),tier')).toBe('default/web team-a/db');
    expect(await byLabel('tier notin (2)')).toBe('default/web team-a/web');
    expect(await byLabel('app!=web')).toBe('team-a/db');
    const bad = await run(['get', '-l', 'app=web,tier in (1']);
    expect(bad).toMatchObject({ code: 1, stdout: '' });
    expect(bad.stderr).toMatch(/^error: -l: term "tier in \(1": /);
  });

  it('a bare name two namespaces share is an error listing both, for get, describe, delete, reconcile and sim drift; nothing is deleted', async () => {
    for (const args of [
      ['get', 'web'],
      ['get', '-A', 'web'],
      ['describe', 'web'],
      ['delete', 'web'],
      ['reconcile', 'web'],
      ['sim', 'drift', 'web', '--nodes', '3'],
    ]) {
      const r = await run(args);
      expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 1, stdout: '' });
      expect(r.stderr).toContain('cloudcluster web is in several namespaces: default/web, team-a/web');
    }
    expect((await raw()).filter((r) => r.deletionRequestedAt)).toEqual([]);
    // -n, NS/NAME and what -o name prints each pick one.
    expect((await run(['describe', '-n', 'team-a', 'web'])).stdout).toMatch(/^Name: +team-a\/web$/m);
    expect((await run(['get', 'default/web', '-o', 'name'])).stdout).toBe(
      'cloudcluster.compute.cloudorch.io/web\n',
    );
    const byName = await run(['describe', '-n', 'default', 'cloudcluster.compute.cloudorch.io/web']);
    expect(byName.stdout).toMatch(/^Name: +default\/web$/m);
    const clash = await run(['get', '-n', 'team-a', 'default/web']);
    expect(clash).toMatchObject({
      code: 1,
      stderr: 'error: default/web names namespace default, but -n says team-a\n',
    });
  });

  it('a malformed item is named on stderr by -o yaml, and the rest still applies back', async () => {
    const sdk = new DynamoDBClient({
      endpoint: dev.dynamodb(),
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const Key = { id: { S: 'team-a/broken' } };
    try {
      await sdk.send(
        new PutItemCommand({ TableName: 'cloudorch-desired-state', Item: { ...Key, spec: { S: 'x' } } }),
      );
      const y = await run(['get', '-n', 'team-a', '-o', 'yaml']);
      // Incomplete output is a failure (as kubectl): `get -o yaml > backup.yaml` must not look whole.
      expect(y.code).toBe(1);
      expect(y.stderr).toMatch(
        /^error: cloudcluster team-a\/broken is malformed, not printed \(RecordInvalid: .*spec/,
      );
      expect(parseAllDocuments(y.stdout)).toHaveLength(1);
      expect((await run(['apply', '-f', '-'], y.stdout)).code).toBe(0);
      const one = await run(['get', 'broken', '-o', 'yaml']);
      expect(one).toMatchObject({ code: 1, stdout: '' });
      for (const o of ['json', 'name', 'jsonpath={.items[*].metadata.name}']) {
        const r = await run(['get', '-A', '-o', o]);
        expect({ o, code: r.code }).toEqual({ o, code: 1 });
        expect(r.stderr).toContain('error: cloudcluster team-a/broken is malformed, not printed');
        expect(r.stdout).toContain('db');
      }
      // The table and -o record show it (a row, a {id, recordInvalid}): nothing is left out.
      for (const o of ['table', 'wide', 'record']) {
        const r = await run(['get', '-A', '-o', o]);
        expect({ o, code: r.code }).toEqual({ o, code: 0 });
        expect(r.stdout).toContain('broken');
      }
    } finally {
      await sdk.send(new DeleteItemCommand({ TableName: 'cloudorch-desired-state', Key }));
      sdk.destroy();
    }
  });

  it('an empty list says "No resources found" on stderr (no lone header), exit 0; structured formats print an empty List', async () => {
    expect(await run(['get', '-n', 'nowhere'])).toMatchObject({
      code: 0,
      stdout: '',
      stderr: 'No resources found in nowhere namespace.\n',
    });
    expect(await run(['get', '-A', '-l', 'app=none', '-o', 'wide'])).toMatchObject({
      code: 0,
      stdout: '',
      stderr: 'No resources found.\n',
    });
    const json = await run(['get', '-n', 'nowhere', '-o', 'json']);
    expect(json).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(json.stdout)).toMatchObject({ kind: 'List', items: [] });
  });

  it('-o jsonpath= with no template is an error, as in kubectl', async () => {
    expect(await run(['get', '-o', 'jsonpath='])).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'error: -o jsonpath: template format specified but no template given\n',
    });
  });

  it('an empty -l selects everything in the scope for get and reconcile; delete -l "" is refused and deletes nothing', async () => {
    const names = async (sel: string) =>
      (await run(['get', '-A', '-l', sel, '-o', 'name'])).stdout.trimEnd().split('\n').sort();
    const everything = await names('');
    expect(everything).toHaveLength(3);
    expect(await names('  ')).toEqual(everything);
    const rec = await run(['reconcile', '-n', 'team-a', '-l', '']);
    expect(rec.code, rec.stderr).toBe(0);
    expect(rec.stdout.trimEnd().split('\n')).toHaveLength(2);
    for (const sel of ['', ' ']) {
      const del = await run(['delete', '-A', '-l', sel]);
      expect(del).toMatchObject({ code: 1, stdout: '' });
      expect(del.stderr).toMatch(/^error: delete -l needs a non-empty selector/);
    }
    expect((await raw()).filter((r) => r.deletionRequestedAt)).toEqual([]);
  });

  it('reconcile and delete act on what -l selects within the scope, and on nothing else', async () => {
    const rec = await run(['reconcile', '-A', '-l', 'app=db']);
    expect(rec.code, rec.stderr).toBe(0);
    expect(rec.stdout).toMatch(/^cloudcluster\/team-a\/db (started execution|execution .* already running)/);
    expect(rec.stdout.trimEnd().split('\n')).toHaveLength(1);
    const none = await run(['delete', '-l', 'app=db']);
    expect(none).toMatchObject({ code: 0, stdout: '', stderr: 'No resources found in default namespace.\n' });
    const del = await run(['delete', '-n', 'team-a', '-l', 'app=web']);
    expect(del.stdout).toMatch(/^cloudcluster\/team-a\/web deletion requested/);
    // team-a/web may already be released (Retain: nothing to delete in EKS); the others are untouched.
    const left = (await raw()).filter((r) => r.id !== 'team-a/web');
    expect(left.map((r) => [r.id, r.deletionRequestedAt])).toEqual([
      ['default/web', undefined],
      ['team-a/db', undefined],
    ]);
    expect((await run(['delete'])).stderr).toBe('error: give a name or -l SELECTOR (not both)\n');
  });
});
