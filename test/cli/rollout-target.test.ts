/**
 * Where the CLI finds a target's rollouts, and the manifest loading of CloudRollouts beside
 * CloudClusters. No target is contacted: a target without rollout settings fails before any call.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { ENV } from '../../lambdas/config.js';
import { setTarget } from '../../local/cli/commands/config.js';
import { type AwsSelection, selectTarget } from '../../local/cli/config/resolve.js';
import { loadManifests } from '../../local/cli/load.js';
import { type FleetMember, previewRollout } from '../../local/cli/rollout-preview.js';
import { CLI, minimalEnv, ROOT } from './dev-child.js';

const PATH = '/home/u/.config/cloudorch/config.yaml';
const aws = (s: ReturnType<typeof selectTarget>) => s as AwsSelection;

describe('the rollout settings of a target', () => {
  it('come from flags, over the environment', () => {
    const s = aws(
      selectTarget(
        { table: 't', region: 'r', rolloutTable: 'rt-flag' },
        { [ENV.rolloutTable]: 'rt-env', [ENV.rolloutStateMachine]: 'arn:rsm-env' },
        { targets: {} },
        PATH,
      ),
    );
    expect(s.rolloutTable).toEqual({ value: 'rt-flag', from: '--rollout-table' });
    expect(s.rolloutStateMachineArn).toEqual({ value: 'arn:rsm-env', from: ENV.rolloutStateMachine });
  });

  it('come from a named target, which set-target stores', () => {
    const config = setTarget({ targets: {} }, 'prod', {
      table: 't',
      region: 'r',
      rolloutTable: 'rt',
      rolloutStateMachineArn: 'arn:rsm',
    });
    const s = aws(selectTarget({ target: 'prod' }, {}, config, PATH));
    expect(s.rolloutTable?.value).toBe('rt');
    expect(s.rolloutStateMachineArn).toEqual({ value: 'arn:rsm', from: `target 'prod' in ${PATH}` });
  });

  it('are stack settings: without a table they are an error, not silently ignored', () => {
    expect(() => selectTarget({}, { [ENV.rolloutTable]: 'rt' }, { targets: {} }, PATH)).toThrow(
      `${ENV.rolloutTable} is set but ${ENV.table} is not`,
    );
  });
});

function cloudorch(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number; stderr: string }>((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env, cwd: ROOT, timeout: 60_000 }, (err, _out, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stderr }),
    );
  });
}

describe('a target without rollouts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cloudorch-rollout-target-'));
  const base = minimalEnv(dir);

  it('a stack: rollout commands name the stack outputs and where to give them', async () => {
    const env = { ...base, [ENV.table]: 't', AWS_REGION: 'us-east-1' };
    const get = await cloudorch(['rollout', 'get'], env);
    expect(get.code).toBe(1);
    expect(get.stderr).toMatch(
      /rollouts need the stack's rollout table: give the stack output RolloutTableName as --rollout-table, CLOUDORCH_ROLLOUT_TABLE/,
    );
    const approve = await cloudorch(['rollout', 'approve', 'x', '--rollout-table', 'rt'], env);
    expect(approve.stderr).toMatch(
      /Rollout state machine: give the stack output RolloutStateMachineArn as --rollout-state-machine-arn, CLOUDORCH_ROLLOUT_STATE_MACHINE_ARN/,
    );
  }, 60_000);

  it('a dev whose state file does not name them: restart it', async () => {
    writeFileSync(
      base.CLOUDORCH_DEV_STATE,
      JSON.stringify({
        pid: process.pid,
        region: 'us-east-1',
        tableName: 't',
        stateMachineArn: 'arn:sm',
        endpoints: {
          dynamodb: 'http://127.0.0.1:9',
          eks: 'http://127.0.0.1:9',
          sfn: 'http://127.0.0.1:9',
          dashboard: '',
        },
        startedAt: new Date().toISOString(),
      }),
    );
    const r = await cloudorch(['rollout', 'describe', 'x'], base);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/did not record it in .*dev\.json: restart it with this version/);
  }, 60_000);
});

describe('loading CloudRollouts beside CloudClusters', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cloudorch-rollout-load-'));
  const cluster = {
    apiVersion: 'compute.cloudorch.io/v1',
    kind: 'CloudCluster',
    metadata: { name: 'a', namespace: 'fleet' },
    spec: {
      provider: 'aws',
      region: 'us-east-1',
      clusterName: 'a',
      kubernetesVersion: '1.34',
      nodeCount: 2,
      instanceType: 't3.medium',
      deletionPolicy: 'Delete',
    },
  };
  const rollout = {
    apiVersion: 'compute.cloudorch.io/v1',
    kind: 'CloudRollout',
    metadata: { name: 'r', namespace: 'platform' },
    spec: { clusters: ['fleet/a'], change: { kubernetesVersion: '1.35' }, stages: [{ name: 'all' }] },
  };
  const write = (name: string, ...docs: unknown[]) => {
    const path = join(dir, name);
    writeFileSync(path, docs.map((d) => stringify(d)).join('---\n'));
    return path;
  };

  it('reads both kinds of one file, each with its document number', async () => {
    const path = write('both.yaml', cluster, rollout);
    const { manifests, rollouts, issues } = await loadManifests([path]);
    expect(issues).toEqual([]);
    expect(manifests.map((m) => [m.id, m.source])).toEqual([['fleet/a', `${path}#1`]]);
    expect(rollouts.map((r) => [r.rollout.id, r.source])).toEqual([['platform/r', `${path}#2`]]);
  });

  it('names the document and field of an invalid cluster or rollout in a mixed file', async () => {
    const bad = { ...cluster, spec: { ...cluster.spec, nodeCount: -1 } };
    const path = write('bad.yaml', rollout, bad, { ...rollout, spec: { ...rollout.spec, stages: [] } });
    const { issues } = await loadManifests([path]);
    expect(issues.map((i) => i.message)).toEqual([
      expect.stringMatching(new RegExp(`^${path}#2: spec\\.nodeCount: `)),
      `${path}#3: spec.stages: stages must list at least one stage`,
    ]);
  });

  it('reads a List of rollouts, as rollout get -o yaml prints it, and refuses one id twice', async () => {
    const list = write('list.yaml', { apiVersion: 'v1', kind: 'List', items: [rollout, rollout] });
    const { rollouts, issues } = await loadManifests([list]);
    expect(rollouts.map((r) => r.source)).toEqual([`${list}#1.items[0]`, `${list}#1.items[1]`]);
    expect(issues.map((i) => i.message)).toEqual([
      `${list}#1.items[1]: metadata.name: cloudrollout platform/r is defined twice (first in ${list}#1.items[0])`,
    ]);
  });
});

describe('examples/rollouts', () => {
  it('the rollout plans on the example fleet: canary with approval after, early at 2, the rest at 50%', async () => {
    const { manifests, rollouts, issues } = await loadManifests([join(ROOT, 'examples/rollouts')]);
    expect(issues).toEqual([]);
    expect(manifests).toHaveLength(6);
    const fleet = new Map<string, FleetMember>(
      manifests.map((m) => [
        m.id,
        { id: m.id, labels: m.labels, spec: m.spec, generation: 1, deletionRequested: false },
      ]),
    );
    const [example] = rollouts;
    const p = previewRollout(example?.rollout.spec ?? ({} as never), fleet);
    if (!p.ok) throw new Error(p.errors.join('; '));
    expect(p.stages.map((s) => [s.name, s.clusters.length, s.maxConcurrency, s.approval])).toEqual([
      ['canary', 1, 1, 'after'],
      ['early', 2, 2, 'none'],
      ['rest', 3, 2, 'none'],
    ]);
    expect([...p.clusters.values()].every((c) => c.merged.kubernetesVersion === '1.34')).toBe(true);
  });

  it('stays out of `apply -f examples/`, which reads the folder without descending', async () => {
    const { rollouts, issues } = await loadManifests([join(ROOT, 'examples')]);
    expect(issues).toEqual([]);
    expect(rollouts).toEqual([]);
  });
});
