/** Loading manifests for one apply: every file validated, ids unique across all of them. */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifests } from '../../local/cli/load.js';

const EXAMPLE = readFileSync(new URL('../../examples/dev-small.yaml', import.meta.url), 'utf8');

describe('loadManifests', () => {
  it('rejects an id defined in two files of a folder, naming both', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cloudorch-load-'));
    writeFileSync(join(dir, 'a.yaml'), EXAMPLE);
    writeFileSync(join(dir, 'b.yaml'), EXAMPLE.replace('nodeCount: 2', 'nodeCount: 3'));
    writeFileSync(
      join(dir, 'c.yaml'),
      EXAMPLE.replace('name: dev-small', 'name: other').replace(
        'clusterName: payments-dev',
        'clusterName: other-dev',
      ),
    );
    const { issues } = await loadManifests([dir]);
    expect(issues.map((i) => i.message)).toEqual([
      `${join(dir, 'b.yaml')}#1: metadata.name: team-payments/dev-small is defined twice (first in ${join(dir, 'a.yaml')}#1)`,
    ]);
  });

  it('rejects an id defined in several -f paths, naming each later copy and the first', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cloudorch-load-'));
    mkdirSync(join(dir, 'more'));
    const one = join(dir, 'one.yaml');
    const two = join(dir, 'more', 'two.json');
    const three = join(dir, 'three.yml');
    writeFileSync(one, EXAMPLE);
    writeFileSync(
      two,
      JSON.stringify({
        apiVersion: 'compute.cloudorch.io/v1',
        kind: 'CloudCluster',
        metadata: { name: 'dev-small', namespace: 'team-payments' },
        spec: {
          provider: 'aws',
          region: 'us-east-1',
          clusterName: 'payments-dev',
          kubernetesVersion: '1.34',
          nodeCount: 1,
          instanceType: 't3.medium',
        },
      }),
    );
    const x = EXAMPLE.replace('name: dev-small', 'name: x').replace(
      'clusterName: payments-dev',
      'clusterName: x-dev',
    );
    writeFileSync(three, `${x}\n---\n${EXAMPLE}`);
    const { issues } = await loadManifests([one, join(dir, 'more'), three]);
    expect(issues.map((i) => i.message)).toEqual([
      `${two}#1: metadata.name: team-payments/dev-small is defined twice (first in ${one}#1)`,
      `${three}#2: metadata.name: team-payments/dev-small is defined twice (first in ${one}#1)`,
    ]);
  });

  it('rejects two records naming the same cluster in one apply, naming both', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cloudorch-load-'));
    writeFileSync(join(dir, 'a.yaml'), EXAMPLE);
    writeFileSync(join(dir, 'b.yaml'), EXAMPLE.replace('namespace: team-payments', 'namespace: team-other'));
    const { issues } = await loadManifests([dir]);
    expect(issues.map((i) => i.message)).toEqual([
      `${join(dir, 'b.yaml')}#1: spec.clusterName: cluster payments-dev in us-east-1 is also named by team-payments/dev-small (${join(dir, 'a.yaml')}#1); one record per cluster`,
    ]);
  });

  it('reads a file named twice once, so it is not its own duplicate', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cloudorch-load-'));
    writeFileSync(join(dir, 'a.yaml'), EXAMPLE);
    const r = await loadManifests([dir, join(dir, 'a.yaml'), `${dir}/./a.yaml`]);
    expect(r.issues).toEqual([]);
    expect(r.manifests.map((m) => m.id)).toEqual(['team-payments/dev-small']);
  });
});
